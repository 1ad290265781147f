package io.spyglass.flink.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.scenarios.BenchCommand;
import io.spyglass.scenarios.Scenarios;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code spyglass bench flink --quick} end to end, as the command runs it: a Kafka broker of its
 * own, the job on a mini cluster and the embedded engine on the same backlogs (and the engine on a
 * file of the same records), every needle found and every COUNT exact (a problem makes the command
 * fail), its tables written, and the documents that report them (performance.md, scaling.md's plan)
 * rewritten from them. Timings are printed, never checked.
 */
class FlinkScenarioTest {
  private static final Pattern FLINK_BLOCK =
      Pattern.compile("<!-- generated: csv (flink/[^ ]+) -->\\n(.*?)<!-- end -->", Pattern.DOTALL);

  @TempDir Path results;

  @Test
  void theScenarioIsFoundByName() {
    assertThat(Scenarios.names()).contains("flink");
  }

  @Test
  void runsQuickFindsEverythingAndFillsTheDocuments() throws Exception {
    Path out = results.resolve("flink");
    int exit =
        new CommandLine(new BenchCommand()).execute("flink", "--quick", "--out", out.toString());
    assertThat(exit).as("exit code (1: a correctness problem, see the output)").isZero();
    for (String file :
        List.of(
            "flink-runtimes.csv",
            "flink-ratios.csv",
            "flink-size.csv",
            "flink-workers.csv",
            "flink-depth.csv",
            "flink-plan.csv",
            "run.json")) {
      assertThat(out.resolve(file)).isNotEmptyFile();
    }
    List<String> rows = Files.readAllLines(out.resolve("flink-runtimes.csv"));
    // the header, then the embedded engine from a file and both runtimes from Kafka for each
    // workload (quick: one slot count, the cores)
    assertThat(rows).hasSize(1 + 3 * 2);
    assertThat(rows.get(1)).contains("embedded");
    assertThat(rows).filteredOn(r -> r.contains("\"embedded, from a file\"")).hasSize(2);

    for (String name : List.of("performance.md", "scaling.md")) {
      Path doc = results.resolve(name);
      Files.copy(Path.of("..", "docs", name), doc);
      assertThat(
              new CommandLine(new BenchCommand())
                  .execute("report", "--results", results.toString(), "--doc", doc.toString()))
          .isZero();
      Matcher m = FLINK_BLOCK.matcher(Files.readString(doc));
      int blocks = 0;
      while (m.find()) {
        blocks++;
        assertThat(m.group(2))
            .as(name + ": " + m.group(1))
            .startsWith("| ")
            .doesNotContain("Not measured");
      }
      assertThat(blocks).as(name + ": tables of spyglass bench flink").isPositive();
    }
  }
}
