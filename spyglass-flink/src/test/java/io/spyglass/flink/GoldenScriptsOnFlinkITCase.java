package io.spyglass.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.flink.client.FlinkQueryClient;
import io.spyglass.testkit.GoldenScript;
import io.spyglass.testkit.kafka.TestKafka;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.flink.core.execution.JobClient;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Every case of the test kit's golden scripts, run on the Flink job (parallelism 2) through a real
 * Kafka broker, with time in clock marks: the same results as the embedded driver, windows,
 * durations and metadata included. The cases share one job, one after another.
 */
@OnMiniCluster
class GoldenScriptsOnFlinkITCase {
  private static final int PARTITIONS = 2;
  private static JobClient job;
  private static FlinkQueryClient client;
  private static KafkaProducer<byte[], byte[]> producer;
  private static FlinkGoldenDriver driver;

  @BeforeAll
  static void startJob() throws Exception {
    KafkaJobs.Job j =
        KafkaJobs.prepare(
            "golden", PARTITIONS, Map.of("clock", "MARKS", "records.virtual-fields", "false"));
    job = KafkaJobs.start(j, 2);
    producer = TestKafka.shared().producer();
    FlinkGoldenDriver[] d = new FlinkGoldenDriver[1];
    client =
        FlinkQueryClient.connect(
            FlinkQueryClient.Settings.of(TestKafka.shared().bootstrap(), "golden")
                .withQueryTopic(j.queriesTopic())
                .withClock(() -> d[0].clockMs()));
    driver = new FlinkGoldenDriver(producer, j.recordsTopic(), PARTITIONS, client);
    d[0] = driver;
  }

  @AfterAll
  static void stopJob() throws Exception {
    if (client != null) {
      client.close();
    }
    if (producer != null) {
      producer.close();
    }
    if (job != null) {
      job.cancel().get();
    }
  }

  @TestFactory
  Stream<DynamicTest> goldenScriptsOnFlink() throws IOException {
    Path dir =
        Paths.get(
            System.getProperty("spyglass.golden", "../spyglass-testkit/src/test/resources/golden"));
    List<GoldenScript.Case> cases = new ArrayList<>();
    try (Stream<Path> s = Files.list(dir)) {
      for (Path f : s.filter(p -> p.toString().endsWith(".golden")).sorted().toList()) {
        cases.addAll(GoldenScript.parse(f));
      }
    }
    assertThat(cases).as("golden cases in " + dir.toAbsolutePath()).hasSizeGreaterThan(100);
    // Reading open windows (peek) is a call on a query's combiner, which the job does not offer.
    cases.removeIf(c -> c.steps().stream().anyMatch(s -> s.startsWith("peek ")));
    String only = System.getProperty("spyglass.golden.only");
    if (only != null) {
      cases.removeIf(c -> !c.toString().contains(only));
      List<GoldenScript.Case> again = new ArrayList<>();
      for (int i = 0; i < Integer.getInteger("spyglass.golden.repeat", 1); i++) {
        again.addAll(cases);
      }
      cases = again;
    }
    // The first case runs at the script's own clock; the others run later and see their times
    // shifted back. A query reading the clock itself (NOW()) must come first.
    cases.sort(Comparator.comparing(c -> readsClock(c) ? 0 : 1));
    assertThat(cases.stream().filter(GoldenScriptsOnFlinkITCase::readsClock).count())
        .as("cases whose answers are the clock itself: one job runs only one of them")
        .isLessThanOrEqualTo(1);
    return cases.stream()
        .map(
            c ->
                DynamicTest.dynamicTest(
                    c.toString(), () -> GoldenScript.run(c, driver.nextCase())));
  }

  private static boolean readsClock(GoldenScript.Case c) {
    return c.steps().stream().anyMatch(s -> s.contains("NOW()") || s.contains("UNIXTIMESTAMP()"));
  }
}
