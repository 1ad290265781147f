package io.spyglass.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The targets block of a document, rewritten from a run's results as {@code spyglass bench report}
 * does: the Kafka targets read from the CSV files of the flink and bullet-kafka parts.
 */
class BenchReportTest {
  @TempDir Path dir;

  private Path doc() throws Exception {
    Path doc = dir.resolve("doc.md");
    Files.writeString(doc, "# Targets\n\n<!-- generated: targets -->\nold\n<!-- end -->\n");
    return doc;
  }

  @Test
  void kafkaTargetsComeFromTheFlinkAndBulletKafkaParts() throws Exception {
    Path results = Files.createDirectories(dir.resolve("results"));
    Files.createDirectories(results.resolve("flink"));
    Files.createDirectories(results.resolve("bullet-kafka"));
    // the needles at the most slots count; the mix and fewer slots do not
    Files.writeString(
        results.resolve("flink/flink-ratios.csv"),
        String.join(
            "\n",
            "queries,slots,records/s,records per CPU-second,\"p99 latency (ms), embedded\","
                + "\"p99 latency (ms), Flink job\","
                + "\"records per CPU-second, embedded: from Kafka / from a file\"",
            "\"10,000 needles\",1,0.78,0.65,10,\"1,043\",0.20",
            "\"10,000 needles\",2,0.51,0.80,3,336,0.61",
            "\"1,000 mixed\",2,0.67,0.10,4,28,0.10",
            ""));
    Files.writeString(
        results.resolve("bullet-kafka/bullet-kafka-test6.csv"),
        String.join(
            "\n",
            "records/s,MiB/s,Bullet: cores,embedded: cores,Flink job: cores",
            "\"69,700\",307,98.3,3,4",
            "\"1,004,500\",\"4,024\",\"1,189.4\",9,50",
            ""));
    Path doc = doc();

    new BenchReport(results, doc).regenerate();

    String text = Files.readString(doc);
    assertThat(text)
        .contains("| 10,000 needle queries, the embedded engine from Kafka / from a file")
        .contains("| 0.61 x | >= 0.60 x | met |")
        .contains("| 0.80 x | >= 0.75 x | met |")
        .contains("| 336 ms | <= 100 ms | not met |")
        .contains("| 50.0 cores | <= 12.0 cores | not met |")
        .doesNotContain("old");
  }

  @Test
  void kafkaTargetsOfAPartNotRunAreNotMeasured() throws Exception {
    Path results = Files.createDirectories(dir.resolve("empty"));
    Path doc = doc();

    new BenchReport(results, doc).regenerate();

    assertThat(Files.readString(doc))
        .contains(
            "from Kafka / from a file, per CPU-second (spyglass bench flink, the same records")
        .contains(
            "on the Flink job at 70% load (spyglass bench bullet-kafka; Bullet: 1,189.4) | n/a")
        .contains("not measured");
  }
}
