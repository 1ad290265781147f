package io.spyglass.cli;

import io.spyglass.core.partial.Partials;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code spyglass} command. */
@Command(
    name = "spyglass",
    mixinStandardHelpOptions = true,
    versionProvider = SpyglassCommand.Version.class,
    description = "Query a live stream of JSON records with BQL, a SQL-like language.",
    footer = {
      "",
      "Examples:",
      "  ./spyglass query --source gen 'SELECT COUNT(*) FROM STREAM(5000, TIME)'",
      "  ./spyglass serve --source gen",
      "  ./spyglass generate --count 3",
      "  ./spyglass explain \"SELECT * FROM STREAM() WHERE id = 'x'\""
    })
public final class SpyglassCommand implements Runnable {
  /** Exit code of a query that is not valid BQL. */
  static final int BAD_QUERY = 2;

  /**
   * The subcommands, in the order {@code --help} lists them. Each one's options are built from its
   * annotations when it is added (reflection over every field and mixin: ServeCommand alone has
   * more than a hundred options), so that a start builds only the one it runs.
   */
  private static final List<Class<?>> SUBCOMMANDS =
      List.of(
          QueryCommand.class,
          ServeCommand.class,
          ValidateCommand.class,
          ExplainCommand.class,
          GenerateCommand.class,
          BenchCommand.class,
          CommandLine.HelpCommand.class);

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(System.err);
  }

  public static void main(String[] args) {
    String unsupported = unsupportedJava(Runtime.version().feature(), Partials.sketchLibrary());
    if (unsupported != null) {
      System.err.println("spyglass: " + unsupported);
      System.exit(1);
    }
    useReleasesSqlite();
    System.exit(commandLine(args).execute(args));
  }

  /**
   * Has sqlite-jdbc load SQLite's native library from the release's {@code lib/sqlite/} (the folder
   * of this jar), where the release ships it for Linux on x86_64 and aarch64, instead of extracting
   * it from its jar into the temporary folder at every start (and running a process to tell the
   * system apart). Elsewhere (another system, musl's libc, a build without that folder, {@code
   * -Dorg.sqlite.lib.path} given) sqlite-jdbc does as before.
   */
  private static void useReleasesSqlite() {
    if (System.getProperty("org.sqlite.lib.path") != null) {
      return;
    }
    try {
      Path lib =
          Path.of(SpyglassCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI())
              .getParent();
      Path folder =
          sqliteFolder(
              lib, System.getProperty("os.name"), System.getProperty("os.arch"), Path.of("/lib"));
      if (folder != null) {
        System.setProperty("org.sqlite.lib.path", folder.toString());
        System.setProperty("org.sqlite.lib.name", SQLITE_LIBRARY);
      }
    } catch (java.net.URISyntaxException | RuntimeException e) {
      // not from a folder of jars: sqlite-jdbc extracts it as before
    }
  }

  static final String SQLITE_LIBRARY = "libsqlitejdbc.so";

  /**
   * The folder in {@code lib} with SQLite's native library for this system ({@code os.name}, {@code
   * os.arch}), or null: Linux with glibc ({@code systemLib} has no musl loader) on x86_64 or
   * aarch64, where the release has it.
   */
  static Path sqliteFolder(Path lib, String osName, String osArch, Path systemLib) {
    String arch =
        switch (osArch) {
          case "amd64", "x86_64" -> "x86_64";
          case "aarch64" -> "aarch64";
          default -> null;
        };
    if (lib == null
        || arch == null
        || !"Linux".equals(osName)
        || Files.exists(systemLib.resolve("ld-musl-" + arch + ".so.1"))) {
      return null;
    }
    Path folder = lib.resolve("sqlite").resolve("Linux").resolve(arch);
    return Files.isRegularFile(folder.resolve(SQLITE_LIBRARY)) ? folder : null;
  }

  /**
   * Why Spyglass cannot run on this Java, or null. Its sketches (DataSketches) come in one line for
   * Java 17 and 21 and one for Java 25 and later, which the build adds when it finds a JDK 25.
   */
  static String unsupportedJava(int feature, String sketchLibrary) {
    if (feature >= 25 && !sketchLibrary.equals("DataSketches 9")) {
      return "this build of Spyglass runs on Java 17 and 21 only (it was built without a JDK 25):"
          + " run it on Java 17 or 21, or build it again with a JDK 25"
          + " (mvn -Djdk25.home=/path/to/jdk-25 ...)";
    }
    if (feature != 17 && feature != 21 && feature < 25) {
      return "Spyglass runs on Java 17, 21 and 25 (or later), not on Java "
          + feature
          + "; run it with one of these (./spyglass takes the java on the PATH)";
    }
    return null;
  }

  /** The whole command, every subcommand built. */
  static CommandLine commandLine() {
    return commandLine(new String[0]);
  }

  /**
   * The command for these arguments: when the first one names a subcommand (other than {@code
   * help}), only that subcommand is built, which is all it needs (its {@code --help}, its errors);
   * otherwise (no arguments, an option, {@code help}, a word that is no subcommand) all of them, so
   * that the top command's help and errors list them all.
   */
  static CommandLine commandLine(String[] args) {
    Class<?> only = args.length == 0 ? null : named(args[0]);
    CommandLine cl = new CommandLine(new SpyglassCommand());
    for (Class<?> sub : SUBCOMMANDS) {
      if (only == null || sub == only) {
        cl.addSubcommand(new CommandLine(sub));
      }
    }
    versionEverywhere(cl, new Version());
    cl.setExecutionExceptionHandler(
        (e, cmd, parsed) -> {
          cmd.getErr().println("spyglass: " + e.getMessage());
          return 1;
        });
    return cl;
  }

  /** The subcommand (not {@code help}) that this word names, or null. */
  private static Class<?> named(String word) {
    for (Class<?> sub : SUBCOMMANDS) {
      Command c = sub.getAnnotation(Command.class);
      if (sub != CommandLine.HelpCommand.class
          && (c.name().equals(word) || List.of(c.aliases()).contains(word))) {
        return sub;
      }
    }
    return null;
  }

  /** Gives {@code -V} of every subcommand the top command's version, as {@code --help} is. */
  private static void versionEverywhere(CommandLine cl, CommandLine.IVersionProvider version) {
    for (CommandLine sub : cl.getSubcommands().values()) {
      CommandLine.Model.CommandSpec spec = sub.getCommandSpec();
      if (spec.versionProvider() == null && spec.version().length == 0) {
        spec.versionProvider(version);
      }
      versionEverywhere(sub, version);
    }
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = SpyglassCommand.class.getPackage().getImplementationVersion();
      return new String[] {"spyglass " + (v == null ? "development build" : v)};
    }
  }
}
