package io.spyglass.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class SpyglassCommandTest {
  @Test
  void javaVersionsOutsideTheSketchLinesAreRefusedClearly() {
    assertThat(SpyglassCommand.unsupportedJava(17, "DataSketches 6")).isNull();
    assertThat(SpyglassCommand.unsupportedJava(21, "DataSketches 6")).isNull();
    assertThat(SpyglassCommand.unsupportedJava(25, "DataSketches 9")).isNull();
    assertThat(SpyglassCommand.unsupportedJava(26, "DataSketches 9")).isNull();
    assertThat(SpyglassCommand.unsupportedJava(23, "DataSketches 6"))
        .contains("Java 17, 21 and 25")
        .contains("not on Java 23");
    assertThat(SpyglassCommand.unsupportedJava(25, "DataSketches 6"))
        .contains("built without a JDK 25")
        .contains("-Djdk25.home");
  }

  private static String[] run(String... args) {
    // as main builds it: only the subcommand named first, or all of them
    CommandLine cl = SpyglassCommand.commandLine(args);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int code = cl.execute(args);
    return new String[] {Integer.toString(code), out.toString(), err.toString()};
  }

  @Test
  void takesSqlitesNativeLibraryFromTheReleaseWhereItHasOneForThisSystem(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    java.nio.file.Path lib = java.nio.file.Files.createDirectories(dir.resolve("lib"));
    java.nio.file.Path system = java.nio.file.Files.createDirectories(dir.resolve("system-lib"));
    assertThat(SpyglassCommand.sqliteFolder(lib, "Linux", "amd64", system))
        .as("none shipped")
        .isNull();
    java.nio.file.Path x86 =
        java.nio.file.Files.createDirectories(lib.resolve("sqlite/Linux/x86_64"));
    java.nio.file.Files.writeString(x86.resolve(SpyglassCommand.SQLITE_LIBRARY), "ELF");
    assertThat(SpyglassCommand.sqliteFolder(lib, "Linux", "amd64", system)).isEqualTo(x86);
    assertThat(SpyglassCommand.sqliteFolder(lib, "Linux", "aarch64", system)).isNull();
    assertThat(SpyglassCommand.sqliteFolder(lib, "Mac OS X", "x86_64", system)).isNull();
    assertThat(SpyglassCommand.sqliteFolder(lib, "Linux", "ppc64le", system)).isNull();
    java.nio.file.Files.writeString(system.resolve("ld-musl-x86_64.so.1"), "");
    assertThat(SpyglassCommand.sqliteFolder(lib, "Linux", "amd64", system))
        .as("musl's libc: the glibc build does not fit")
        .isNull();
  }

  @Test
  void aStartBuildsOnlyTheSubcommandItRuns() {
    assertThat(
            SpyglassCommand.commandLine(new String[] {"serve", "--port", "9300"}).getSubcommands())
        .containsOnlyKeys("serve");
    assertThat(SpyglassCommand.commandLine(new String[] {"query", "SELECT"}).getSubcommands())
        .containsOnlyKeys("query");
    List<String> all =
        List.of("query", "serve", "validate", "explain", "generate", "bench", "help");
    for (String[] args :
        List.of(
            new String[0],
            new String[] {"--help"},
            new String[] {"help", "serve"},
            new String[] {"nonsense"})) {
      assertThat(SpyglassCommand.commandLine(args).getSubcommands().keySet())
          .as(List.of(args).toString())
          .containsExactlyElementsOf(all);
    }
  }

  @Test
  void theHelpListsEveryCommandAndEachCommandsHelpIsItsOwn() {
    String[] top = run("--help");
    assertThat(top[0]).isEqualTo("0");
    for (String command : List.of("query", "serve", "validate", "explain", "generate", "bench")) {
      assertThat(top[1]).contains("  " + command + " ");
    }
    String[] serve = run("serve", "--help");
    assertThat(serve[0]).isEqualTo("0");
    assertThat(serve[1]).startsWith("Usage: spyglass serve ").contains("--port");
    assertThat(run("help", "serve")[1]).isEqualTo(serve[1]);
    String[] wrong = run("serve", "--no-such-option");
    assertThat(wrong[0]).isEqualTo("2");
    assertThat(wrong[2]).contains("Unknown option: '--no-such-option'").contains("spyglass serve");
    String[] none = run("nonsense");
    assertThat(none[0]).isEqualTo("2");
    assertThat(none[2]).contains("nonsense").contains("serve");
  }

  @Test
  void everyCommandPrintsTheVersion() {
    for (String command : List.of("query", "serve", "validate", "explain", "generate", "bench")) {
      String[] r = run(command, "-V");
      assertThat(r[0]).as(command).isEqualTo("0");
      assertThat(r[1]).as(command).startsWith("spyglass ");
    }
    assertThat(run("-V")[1]).startsWith("spyglass ");
  }

  @Test
  void benchSaysWhereTheBenchmarksAreWhateverItIsGiven() {
    for (List<String> args :
        List.of(List.of("bench"), List.of("bench", "latency", "--quick", "--out", "/tmp/x"))) {
      String[] r = run(args.toArray(String[]::new));
      assertThat(r[0]).as(args.toString()).isEqualTo("1");
      assertThat(r[2])
          .as(args.toString())
          .startsWith("spyglass bench: the benchmarks are not in this jar")
          .contains("./spyglass bench SCENARIO")
          .contains("spyglass-bench-cli/target/spyglass-bench.jar");
    }
    String[] help = run("bench", "--help");
    assertThat(help[0]).isEqualTo("0");
    assertThat(help[1]).contains("spyglass-bench.jar").contains("./spyglass bench");
  }

  @Test
  void generateRefusesASizeOutsideItsRange() {
    for (String size : List.of("99", "8193")) {
      String[] r = run("generate", "--count", "1", "--size", size);
      assertThat(r[0]).isEqualTo("2");
      assertThat(r[2]).contains("--size must be 100 to 8192 bytes, not " + size);
    }
  }
}
