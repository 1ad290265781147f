package io.spyglass.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.spyglass.flink.SpyglassJob;
import io.spyglass.testkit.kafka.TestKafka;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code spyglass serve --runtime flink --kafka HOST:PORT --source http}: the accepted documents go
 * to the job's records topic on a real broker before the 202, the standing queries run on the job
 * (on a Flink mini cluster in this JVM, as the cluster) reading it. The same documents give the
 * same final windows as on the embedded runtime; the service killed with SIGKILL and started again
 * on the same folder, and a TaskManager lost in the middle of a window, keep every final window
 * once, and count a late document once. A request while Kafka cannot take it is answered 503,
 * saying what to do.
 */
class MeteringKafkaIT {
  @RegisterExtension
  static final MiniClusterExtension FLINK =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(2)
              .build());

  @TempDir Path kafkaData;

  final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  /** The embedded metering checks' documents, expected windows and requests. */
  final MeteringIT m = new MeteringIT();

  static Spyglass.Running serve(Path data, String bootstrap) throws Exception {
    return Spyglass.start(
        "serve",
        "--runtime",
        "flink",
        "--kafka",
        bootstrap,
        "--records-topic",
        "metering-records",
        "--query-topic",
        "metering-queries",
        "--status-topic",
        "metering-status",
        "--instance",
        "metering",
        "--source",
        "http",
        "--port",
        "0",
        "--data",
        data.toString(),
        "--checkpoint-every",
        "200ms");
  }

  static String url(Spyglass.Running s) throws InterruptedException {
    String line = s.awaitLine("the URL", l -> l.startsWith("Spyglass is serving "), 120);
    return line.substring("Spyglass is serving ".length()).strip();
  }

  /** The job on the mini cluster, reading the records topic's committed requests. */
  static JobClient job(String bootstrap) throws Exception {
    Configuration conf =
        SpyglassJob.parseArgs(
            "--kafka",
            bootstrap,
            "--records.topic",
            "metering-records",
            "--queries.topic",
            "metering-queries",
            "--status.topic",
            "metering-status",
            "--group",
            "metering-job",
            "--records.read-committed",
            "true",
            "--checkpoint-ms",
            "500");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    // one reader over both partitions: a standing query waits for its marks in each
    env.setParallelism(1);
    SpyglassJob.build(env, conf);
    return env.executeAsync("spyglass-metering-kafka");
  }

  @Test
  void finalWindowsAsOnTheEmbeddedRuntimeOnceEachAcrossAKillAndALostTaskManager(
      @InjectMiniCluster MiniCluster cluster) throws Exception {
    // the windows the documents make, as the embedded runtime gives them (MeteringIT)
    Map<Long, String> afterFirst =
        MeteringIT.expected(MeteringIT.first(), MeteringIT.BASE + 10 * MeteringIT.HOUR, 0);
    List<MeteringIT.Doc> all = new ArrayList<>(MeteringIT.first());
    all.addAll(MeteringIT.second());
    all.removeIf(d -> d.id().equals("late")); // counted as late, not in the window's records
    Map<Long, String> afterSecond =
        MeteringIT.expected(all, MeteringIT.BASE + 20 * MeteringIT.HOUR, 1);
    assertThat(afterFirst).hasSize(3);
    assertThat(afterSecond).hasSize(5);

    TestKafka kafka = TestKafka.shared();
    kafka.createTopics(Map.of("metering-records", 2, "metering-queries", 1));
    JobClient job = job(kafka.bootstrap());
    try {
      try (Spyglass.Running s = serve(kafkaData, kafka.bootstrap())) {
        String url = url(s);
        assertThat(s.awaitLine("the runtime", l -> l.contains("runtime:") && l.contains("Flink")))
            .contains("standing queries on the Flink job via Kafka");
        m.define(url, "usage", MeteringIT.BY_ORG, false);
        m.post(url, MeteringIT.lines(MeteringIT.first()));
        assertThat(m.awaitFinals(url, "usage", afterFirst)).isEqualTo(afterFirst);
        s.kill9();
      }
      try (Spyglass.Running s = serve(kafkaData, kafka.bootstrap())) {
        String url = url(s);
        assertThat(m.awaitFinals(url, "usage", afterFirst)).isEqualTo(afterFirst);
        // half of the next window, checkpointed; then the TaskManager dies in its middle
        List<String> second = MeteringIT.lines(MeteringIT.second()).lines().toList();
        int half = second.size() / 2;
        m.post(url, String.join("\n", second.subList(0, half)) + "\n");
        long done = completedCheckpoints(cluster, job);
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (completedCheckpoints(cluster, job) < done + 2 && System.nanoTime() < until) {
          Thread.sleep(50);
        }
        cluster.terminateTaskManager(0).get(30, TimeUnit.SECONDS);
        cluster.startTaskManager();
        m.post(url, String.join("\n", second.subList(half, second.size())) + "\n");
        assertThat(m.awaitFinals(url, "usage", afterSecond)).isEqualTo(afterSecond);
        assertThat(
                cluster
                    .getExecutionGraph(job.getJobID())
                    .get()
                    .getStatusTimestamp(org.apache.flink.api.common.JobStatus.RESTARTING))
            .as("the job restarted after the TaskManager died")
            .isPositive();
        Thread.sleep(1_000); // a window or late document written twice would show by now
        assertThat(m.finals(url, "usage")).isEqualTo(afterSecond);
        s.terminate();
        assertThat(s.awaitExit()).as(s.toString()).isZero();
      }
    } finally {
      job.cancel().get(30, TimeUnit.SECONDS);
    }
  }

  private static long completedCheckpoints(MiniCluster cluster, JobClient job) throws Exception {
    var stats = cluster.getExecutionGraph(job.getJobID()).get().getCheckpointStatsSnapshot();
    return stats == null ? 0 : stats.getCounts().getNumberOfCompletedCheckpoints();
  }

  @Test
  void kafkaThatDoesNotAnswerIsNamedAtTheStart() throws Exception {
    try (Spyglass.Running s = serve(kafkaData, "127.0.0.1:9")) {
      assertThat(s.awaitExit()).isEqualTo(1);
      assertThat(s.toString()).contains("Kafka at 127.0.0.1:9");
    }
  }

  /** A request while Kafka is down: 503 and what to do, nothing acknowledged. */
  @Test
  @SuppressWarnings("try") // the broker is stopped in the middle of its block
  void aRequestWhileKafkaIsDownIs503() throws Exception {
    try (TestKafka kafka = TestKafka.start()) {
      kafka.createTopics(Map.of("metering-records", 1, "metering-queries", 1));
      try (Spyglass.Running s = serve(kafkaData, kafka.bootstrap())) {
        String url = url(s);
        kafka.close();
        HttpResponse<String> r =
            http.send(
                HttpRequest.newBuilder(URI.create(url + "api/ingest"))
                    .timeout(Duration.ofSeconds(90))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"id\":\"x\",\"time\":1}\n"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(503);
        JsonNode error = Spyglass.parse(r.body()).get("error");
        assertThat(error.get("message").asText()).contains("metering-records");
        assertThat(error.get("resolution").asText())
            .contains("Send them again")
            .contains("none of them was acknowledged");
        s.kill9();
      }
    }
  }

  /** A request the records topic cannot take (missing, here): 503 and what to do, nothing kept. */
  @Test
  void aRequestKafkaCannotTakeIs503() throws Exception {
    TestKafka kafka = TestKafka.shared();
    kafka.createTopics(Map.of("metering-queries", 1));
    try (Spyglass.Running s =
        Spyglass.start(
            "serve",
            "--runtime",
            "flink",
            "--kafka",
            kafka.bootstrap(),
            "--records-topic",
            "metering-missing",
            "--query-topic",
            "metering-queries",
            "--instance",
            "missing",
            "--source",
            "http",
            "--port",
            "0",
            "--data",
            kafkaData.toString())) {
      String url = url(s);
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(URI.create(url + "api/ingest"))
                  .timeout(Duration.ofSeconds(60))
                  .POST(HttpRequest.BodyPublishers.ofString("{\"id\":\"x\",\"time\":1}\n"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).as(r.body()).isEqualTo(503);
      JsonNode error = Spyglass.parse(r.body()).get("error");
      assertThat(error.get("message").asText()).contains("metering-missing");
      assertThat(error.get("resolution").asText()).contains("Send them again");
      s.terminate();
      assertThat(s.awaitExit()).as(s.toString()).isZero();
    }
  }
}
