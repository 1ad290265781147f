package io.spyglass.benchcli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The bench's own jar runs {@code spyglass bench}: its scenarios, the Flink job's among them. */
class SpyglassBenchTest {
  private record Run(int code, String out, String err) {}

  private static Run run(String... args) {
    CommandLine cl = SpyglassBench.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int code = cl.execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  void itIsSpyglassBenchWithItsVersion() {
    Run help = run("--help");
    assertThat(help.code()).isZero();
    assertThat(help.out()).startsWith("Usage: spyglass bench ").contains("./spyglass bench");
    Run version = run("-V");
    assertThat(version.code()).isZero();
    assertThat(version.out()).startsWith("spyglass ");
  }

  @Test
  void anUnknownScenarioIsRefusedWithTheScenariosOfEveryModule() {
    Run r = run("no-such-scenario");
    assertThat(r.code()).isEqualTo(2);
    // publish.sh reads the scenarios from this line
    assertThat(r.err())
        .contains("Unknown scenario no-such-scenario; one of ")
        .contains("latency")
        .contains("versus-bullet")
        .contains("flink") // spyglass-flink-bench's, found through ServiceLoader
        .contains("bullet-kafka");
  }
}
