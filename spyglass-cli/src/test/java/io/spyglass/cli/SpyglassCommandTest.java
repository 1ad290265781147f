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
    CommandLine cl = SpyglassCommand.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int code = cl.execute(args);
    return new String[] {Integer.toString(code), out.toString(), err.toString()};
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
