package io.spyglass.flink.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.scenarios.BenchCommand;
import io.spyglass.scenarios.Scenarios;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code spyglass bench flink --quick} end to end, as the command runs it: a Kafka broker of its
 * own, the job on a mini cluster and the embedded engine on the same backlogs, every needle found
 * and every COUNT exact (a problem makes the command fail), its tables written. Timings are
 * printed, never checked.
 */
class FlinkScenarioTest {
  @TempDir Path out;

  @Test
  void theScenarioIsFoundByName() {
    assertThat(Scenarios.names()).contains("flink");
  }

  @Test
  void runsQuickAndFindsEverything() throws Exception {
    int exit =
        new CommandLine(new BenchCommand()).execute("flink", "--quick", "--out", out.toString());
    assertThat(exit).as("exit code (1: a correctness problem, see the output)").isZero();
    for (String csv :
        List.of(
            "flink-runtimes.csv",
            "flink-ratios.csv",
            "flink-size.csv",
            "flink-workers.csv",
            "flink-depth.csv",
            "run.json")) {
      assertThat(out.resolve(csv)).isNotEmptyFile();
    }
    List<String> rows = Files.readAllLines(out.resolve("flink-runtimes.csv"));
    // the header, then both runtimes for each workload (quick: one slot count, the cores)
    assertThat(rows).hasSize(1 + 2 * 2);
    assertThat(rows.get(1)).contains("embedded");
  }
}
