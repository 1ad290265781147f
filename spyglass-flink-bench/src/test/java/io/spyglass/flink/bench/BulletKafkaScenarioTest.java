package io.spyglass.flink.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
 * {@code spyglass bench bullet-kafka --quick} end to end, as the command runs it: a Kafka broker of
 * its own, a feeder process for the live tests' stream, the job on a mini cluster and the embedded
 * engine on the same topics; every test query answered, every RAW query's 10 records found (a
 * problem makes the command fail), its tables written, and the documents that report them
 * (performance.md, scaling.md) rewritten from them. Timings are printed, never checked.
 */
class BulletKafkaScenarioTest {
  private static final Pattern BLOCK =
      Pattern.compile(
          "<!-- generated: csv (bullet-kafka/[^ ]+) -->\\n(.*?)<!-- end -->", Pattern.DOTALL);

  @TempDir Path results;

  @Test
  void warmUpRunsAreACountAndABadOneSaysSo() {
    assertThat(BulletKafkaScenario.Plan.warmRuns("1")).isEqualTo(1);
    assertThat(BulletKafkaScenario.Plan.warmRuns(" 8 ")).isEqualTo(8);
    assertThat(BulletKafkaScenario.Plan.warmRuns("0")).isZero();
    for (String bad : new String[] {"-1", "many"}) {
      assertThatThrownBy(() -> BulletKafkaScenario.Plan.warmRuns(bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("-D" + BulletKafkaScenario.WARM_RUNS)
          .hasMessageContaining(bad);
    }
  }

  @Test
  void theScenarioIsFoundByName() {
    assertThat(Scenarios.names()).contains("bullet-kafka");
  }

  @Test
  void runsQuickAnswersEveryTestAndFillsTheDocuments() throws Exception {
    Path out = results.resolve("bullet-kafka");
    int exit =
        new CommandLine(new BenchCommand())
            .execute("bullet-kafka", "--quick", "--out", out.toString());
    assertThat(exit).as("exit code (1: a correctness problem, see the output)").isZero();
    for (String file :
        List.of(
            "bullet-kafka.csv",
            "bullet-kafka-test1.csv",
            "bullet-kafka-test2.csv",
            "bullet-kafka-throughput.csv",
            "bullet-kafka-test6.csv",
            "run.json")) {
      assertThat(out.resolve(file)).isNotEmptyFile();
    }
    List<String> summary = Files.readAllLines(out.resolve("bullet-kafka.csv"));
    // the header, then both runtimes for each of the six tests
    assertThat(summary).hasSize(1 + 6 * 2);
    for (int test = 1; test <= 6; test++) {
      String prefix = test + ": ";
      assertThat(summary.stream().filter(l -> l.replaceFirst("^\"", "").startsWith(prefix)))
          .as("test " + test)
          .hasSize(2)
          .anySatisfy(l -> assertThat(l).contains(",embedded,"))
          .anySatisfy(l -> assertThat(l).contains(",Flink job,"));
    }
    // test 6 is sized for each of Bullet's six data volumes
    assertThat(Files.readAllLines(out.resolve("bullet-kafka-test6.csv"))).hasSize(1 + 6);

    for (String name : List.of("performance.md", "scaling.md")) {
      Path doc = results.resolve(name);
      Files.copy(Path.of("..", "docs", name), doc);
      assertThat(
              new CommandLine(new BenchCommand())
                  .execute("report", "--results", results.toString(), "--doc", doc.toString()))
          .isZero();
      Matcher m = BLOCK.matcher(Files.readString(doc));
      int blocks = 0;
      while (m.find()) {
        blocks++;
        assertThat(m.group(2))
            .as(name + ": " + m.group(1))
            .startsWith("| ")
            .doesNotContain("Not measured");
      }
      assertThat(blocks).as(name + ": tables of spyglass bench bullet-kafka").isPositive();
    }
  }
}
