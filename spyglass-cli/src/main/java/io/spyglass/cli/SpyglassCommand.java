package io.spyglass.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code spyglass} command. */
@Command(
    name = "spyglass",
    mixinStandardHelpOptions = true,
    versionProvider = SpyglassCommand.Version.class,
    description = "Query a live stream of JSON records with BQL, a SQL-like language.",
    subcommands = {
      QueryCommand.class,
      ServeCommand.class,
      ValidateCommand.class,
      ExplainCommand.class,
      GenerateCommand.class,
      io.spyglass.scenarios.BenchCommand.class,
      CommandLine.HelpCommand.class
    },
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

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(System.err);
  }

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new SpyglassCommand());
    cl.setExecutionExceptionHandler(
        (e, cmd, parsed) -> {
          cmd.getErr().println("spyglass: " + e.getMessage());
          return 1;
        });
    return cl;
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = SpyglassCommand.class.getPackage().getImplementationVersion();
      return new String[] {"spyglass " + (v == null ? "development build" : v)};
    }
  }
}
