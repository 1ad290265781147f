package io.spyglass.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spyglass.service.query.ResultLimits;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class ServeCommandTest {
  @TempDir Path data;

  /** Runs {@code serve} with {@code args}; its exit code, and what it wrote to stderr. */
  static Object[] serve(String... args) {
    StringWriter err = new StringWriter();
    int code = new CommandLine(new ServeCommand()).setErr(new PrintWriter(err, true)).execute(args);
    return new Object[] {code, err.toString()};
  }

  @Test
  void anIngestBacklogOverItsMostStopsTheStartWithAClearError() {
    Object[] r =
        serve(
            "--source",
            "http",
            "--port",
            "0",
            "--data",
            data.toString(),
            "--ingest-backlog",
            "3GiB");
    assertThat(r[0]).isEqualTo(1);
    assertThat((String) r[1])
        .contains("--ingest-backlog")
        .contains("at most 1GiB")
        .contains("3221225472 bytes is over it");
    assertThat(data.resolve("ingest")).doesNotExist();
  }

  /**
   * The job of --runtime flink --source http reads the ingest log, or with --kafka its records
   * topic: another source is refused.
   */
  @Test
  void theMeteringJobTakesNoOtherSource() {
    Object[] kafka =
        serve(
            "--runtime",
            "flink",
            "--source",
            "gen",
            "--source",
            "http",
            "--kafka",
            "127.0.0.1:9",
            "--port",
            "0",
            "--data",
            data.toString());
    assertThat(kafka[0]).isEqualTo(1);
    assertThat((String) kafka[1]).contains("reads its records topic only");
    Object[] other =
        serve(
            "--runtime",
            "flink",
            "--source",
            "gen",
            "--source",
            "http",
            "--port",
            "0",
            "--data",
            data.toString());
    assertThat(other[0]).isEqualTo(1);
    assertThat((String) other[1]).contains("reads the ingest log only");
    assertThat(data.resolve("ingest")).doesNotExist();
  }

  @Test
  void serveReadsTheGeneratorPacedUnlessItsRateIsGiven() {
    assertThat(ServeOptions.paced("gen")).isEqualTo("gen?rate=10000");
    assertThat(ServeOptions.paced("gen?seed=7&size=300"))
        .isEqualTo("gen?seed=7&size=300&rate=10000");
    assertThat(ServeOptions.paced("gen?rate=0")).isEqualTo("gen?rate=0");
    assertThat(ServeOptions.paced("gen?seed=1&rate=50000")).isEqualTo("gen?seed=1&rate=50000");
    assertThat(ServeOptions.paced("file:/tmp/gen")).isEqualTo("file:/tmp/gen");
    assertThat(ServeOptions.paced("kafka://h:9092/gen")).isEqualTo("kafka://h:9092/gen");
  }

  @Test
  void resultMemoryLimitsComeFromTheHeapOrTheFlags() {
    long heap = Runtime.getRuntime().maxMemory();
    ResultLimits defaults = ServeOptions.resultLimits(null, null, null);
    assertThat(defaults.maxBytes()).isEqualTo(Math.max(1L << 20, heap / 4));
    assertThat(defaults.maxBytesPerUser()).isEqualTo(defaults.maxBytes() / 4);
    assertThat(defaults.maxResultBytes()).isLessThanOrEqualTo(8L << 20);

    ResultLimits given = ServeOptions.resultLimits("1GiB", null, null);
    assertThat(given.maxBytes()).isEqualTo(1L << 30);
    assertThat(given.maxBytesPerUser()).isEqualTo(256L << 20);
    assertThat(given.maxResultBytes()).isEqualTo(8L << 20);

    ResultLimits all = ServeOptions.resultLimits("64MiB", "16MiB", "1MiB");
    assertThat(all).isEqualTo(new ResultLimits(64L << 20, 16L << 20, 1L << 20));

    assertThatThrownBy(() -> ServeOptions.resultLimits("64MiB", "128MiB", null))
        .hasMessageContaining("--max-result-memory");
    assertThatThrownBy(() -> ServeOptions.resultLimits(null, null, "1KiB"))
        .hasMessageContaining("--max-result-size");
  }

  @Test
  void theLauncherExitsTheJvmWhenItRunsOutOfHeapSoThatASupervisorRestartsIt() throws Exception {
    Path launcher = Path.of("..", "spyglass");
    assertThat(launcher).exists();
    String exec =
        Files.readAllLines(launcher).stream()
            .filter(l -> l.startsWith("exec java"))
            .findFirst()
            .orElseThrow();
    assertThat(exec).contains("-XX:+ExitOnOutOfMemoryError");
  }

  @Test
  void aSizeTooLargeForItsUnitIsRefusedNotWrappedAround() {
    assertThat(OptionValues.parseBytes("64MiB")).isEqualTo(64L << 20);
    assertThat(OptionValues.parseBytes("8589934591GiB")).isEqualTo(8589934591L << 30);
    // 2^63 / 2^30 GiB would wrap around to a negative size, 2^34 GiB to 0
    for (String big : new String[] {"8589934592GiB", "17179869184GiB", "9007199254740992KiB"}) {
      assertThatThrownBy(() -> OptionValues.parseBytes(big))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("'" + big + "' is too large");
    }
    Object[] r =
        serve("--port", "0", "--data", data.toString(), "--max-standing-state", "17179869184GiB");
    assertThat(r[0]).isEqualTo(1);
    assertThat((String) r[1]).contains("'17179869184GiB' is too large");
  }
}
