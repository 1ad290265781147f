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
import java.util.TreeMap;
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

  static Spyglass.Running serve(Path data, String bootstrap, String... more) throws Exception {
    return serveAs(data, bootstrap, "metering", more);
  }

  /** The service of instance {@code name}, over the topics {@code name-records} and others. */
  static Spyglass.Running serveAs(Path data, String bootstrap, String name, String... more)
      throws Exception {
    return Spyglass.start(serveArgs(data, bootstrap, name, more).toArray(String[]::new));
  }

  /** The arguments of {@link #serveAs}. */
  static List<String> serveArgs(Path data, String bootstrap, String name, String... more) {
    List<String> args = new ArrayList<>();
    args.add("serve");
    args.addAll(KafkaFormArgs.of(data, bootstrap, name));
    args.addAll(List.of("--checkpoint-every", "200ms"));
    args.addAll(List.of(more));
    return args;
  }

  static String url(Spyglass.Running s) throws InterruptedException {
    String line = s.awaitLine("the URL", l -> l.startsWith("Spyglass is serving "), 120);
    return line.substring("Spyglass is serving ".length()).strip();
  }

  /** The job on the mini cluster, reading the records topic's committed requests. */
  static JobClient job(String bootstrap) throws Exception {
    return job(bootstrap, "metering");
  }

  /** The job over the topics of {@link #serveAs}'s {@code name}. */
  static JobClient job(String bootstrap, String name) throws Exception {
    Configuration conf =
        SpyglassJob.parseArgs(
            "--kafka",
            bootstrap,
            "--records.topic",
            name + "-records",
            "--queries.topic",
            name + "-queries",
            "--status.topic",
            name + "-status",
            "--group",
            name + "-job",
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
        String first = MeteringIT.lines(MeteringIT.first());
        assertThat(ingest(url, first)).isEqualTo(taken(MeteringIT.first().size(), 0));
        // sent again after its 202 (the client did not hear it): repeats, by their ids
        assertThat(ingest(url, first)).isEqualTo(taken(0, MeteringIT.first().size()));
        assertThat(m.awaitFinals(url, "usage", afterFirst)).isEqualTo(afterFirst);
        s.kill9();
      }
      try (Spyglass.Running s = serve(kafkaData, kafka.bootstrap())) {
        String url = url(s);
        // and again after a kill -9: the ids are remembered under --data
        List<String> first = MeteringIT.lines(MeteringIT.first()).lines().toList();
        assertThat(ingest(url, String.join("\n", first.subList(0, 50)) + "\n"))
            .isEqualTo(taken(0, 50));
        assertThat(m.awaitFinals(url, "usage", afterFirst)).isEqualTo(afterFirst);
        // half of the next window, checkpointed; then the TaskManager dies in its middle
        List<String> second = MeteringIT.lines(MeteringIT.second()).lines().toList();
        int half = second.size() / 2;
        m.post(url, String.join("\n", second.subList(0, half)) + "\n");
        // a report shows the open windows as the job holds them: the one of close-a, still within
        // its lateness, and the one the half begins
        List<MeteringIT.Doc> open = new ArrayList<>(MeteringIT.second().subList(1, half));
        open.add(MeteringIT.first().get(MeteringIT.first().size() - 1));
        assertThat(awaitOpen(url, "usage", open.size()))
            .isEqualTo(MeteringIT.expected(open, Long.MAX_VALUE, 0));
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

  /** Posts documents: what the 202 says was taken, as {@link #taken}. */
  String ingest(String url, String body) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(url + "api/ingest"))
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
    JsonNode b = Spyglass.parse(r.body());
    return taken(b.get("accepted").asInt(), b.get("duplicates").asInt());
  }

  static String taken(int accepted, int duplicates) {
    return "accepted " + accepted + ", duplicates " + duplicates;
  }

  /** A report of {@code name}: its windows, open ones included, as the service answers. */
  JsonNode report(String url, String name) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(url + "api/standing-queries/" + name + "/results"))
                .timeout(Duration.ofSeconds(60))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return Spyglass.parse(r.body());
  }

  /**
   * The open windows of {@code name} by start, as {@link MeteringIT#finals} shows final ones, once
   * they hold {@code docs} documents (or after a minute).
   */
  Map<Long, String> awaitOpen(String url, String name, long docs) throws Exception {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      Map<Long, String> out = new TreeMap<>();
      long n = 0;
      for (JsonNode w : report(url, name)) {
        if (w.path("window").path("final").asBoolean(true)) {
          continue;
        }
        List<String> records = new ArrayList<>();
        for (JsonNode rec : w.get("records")) {
          records.add(rec.toString());
          n += rec.path("docs").asLong();
        }
        records.sort(null);
        out.put(
            w.path("window").path("start").asLong(),
            records + " late " + w.path("meta").path("late").asLong());
      }
      if (n >= docs || System.nanoTime() > until) {
        return out;
      }
      Thread.sleep(100);
    }
  }

  /** The documents counted in every window of {@code name}, open ones included. */
  long counted(String url, String name) throws Exception {
    long n = 0;
    for (JsonNode w : report(url, name)) {
      for (JsonNode rec : w.get("records")) {
        n += rec.path("docs").asLong();
      }
    }
    return n;
  }

  /** The standing query {@code name} as the listing shows it. */
  JsonNode listed(String url, String name) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(url + "api/standing-queries")).build(),
            HttpResponse.BodyHandlers.ofString());
    for (JsonNode q : Spyglass.parse(r.body()).get("standingQueries")) {
      if (q.get("name").asText().equals(name)) {
        return q;
      }
    }
    throw new AssertionError("no standing query " + name + ": " + r.body());
  }

  /**
   * {@code --max-standing-state} on the job on the cluster: a query whose state there grows over it
   * stops (failed, naming the flag), the others go on counting.
   */
  @Test
  void aStandingQueryWhoseStateOnTheJobGrowsOverTheBoundStopsTheOthersGoOn() throws Exception {
    TestKafka kafka = TestKafka.shared();
    kafka.createTopics(Map.of("limit-records", 1, "limit-queries", 1));
    JobClient job = job(kafka.bootstrap(), "limit");
    try (Spyglass.Running s =
        serveAs(kafkaData, kafka.bootstrap(), "limit", "--max-standing-state", "16KiB")) {
      String url = url(s);
      m.define(url, "small", MeteringIT.COUNT, false);
      m.define(
          url,
          "big",
          "SELECT id, COUNT(*) AS docs FROM STREAM(FOREVER) GROUP BY id"
              + " WINDOWING TUMBLING(1h, EVENT_TIME(time), LATENESS 10m)",
          false);
      StringBuilder docs = new StringBuilder();
      for (int i = 0; i < 1_000; i++) { // 1,000 groups of 45 bytes
        docs.append(
            Spyglass.JSON
                .createObjectNode()
                .put("id", "s" + i + "-" + "k".repeat(40))
                .put("org", "o1")
                .put("quantity", 1)
                .put("time", MeteringIT.BASE + i)
                .toString());
        docs.append('\n');
      }
      assertThat(ingest(url, docs.toString())).isEqualTo(taken(1_000, 0));
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
      while (!listed(url, "big").path("state").asText().equals("FAILED")
          && System.nanoTime() < until) {
        Thread.sleep(100);
      }
      JsonNode big = listed(url, "big");
      assertThat(big.path("state").asText()).as(big.toString()).isEqualTo("FAILED");
      assertThat(big.path("error").asText()).contains("--max-standing-state");
      assertThat(listed(url, "small").path("state").asText()).isEqualTo("RUNNING");
      m.post(url, "{\"id\":\"one-more\",\"quantity\":1,\"time\":" + MeteringIT.BASE + "}\n");
      until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (counted(url, "small") < 1_001 && System.nanoTime() < until) {
        Thread.sleep(100);
      }
      assertThat(counted(url, "small")).isEqualTo(1_001);
      s.terminate();
      assertThat(s.awaitExit()).as(s.toString()).isZero();
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

  /**
   * A second service started on the same --data stops at the folder's lock, saying so, before it
   * opens its writer of the records topic (which would fence the first one's producer, of the same
   * instance): the first one keeps taking documents, its next request 202.
   */
  @Test
  void aSecondServiceOnTheSameFolderStopsAtTheLockAndTheFirstGoesOn() throws Exception {
    TestKafka kafka = TestKafka.shared();
    kafka.createTopics(Map.of("twice-records", 1, "twice-queries", 1));
    try (Spyglass.Running first = serveAs(kafkaData, kafka.bootstrap(), "twice")) {
      String url = url(first);
      HttpResponse<String> a = post(url, "{\"id\":\"a\",\"time\":1}\n");
      assertThat(a.statusCode()).as(a.body()).isEqualTo(202);

      Spyglass.Run second =
          Spyglass.run(
              new ProcessBuilder(
                  Spyglass.command(
                      serveArgs(kafkaData, kafka.bootstrap(), "twice").toArray(String[]::new))),
              null,
              120);
      assertThat(second.exitCode()).as(second.stderr()).isEqualTo(1);
      assertThat(second.stderr())
          .contains("is in use by another Spyglass")
          .contains("give this one another --data folder");

      HttpResponse<String> b = post(url, "{\"id\":\"b\",\"time\":2}\n");
      assertThat(b.statusCode())
          .as("the first service's writer was not fenced: " + b.body())
          .isEqualTo(202);
      assertThat(Spyglass.parse(b.body()).get("accepted").asInt()).isEqualTo(1);
      first.terminate();
      assertThat(first.awaitExit()).as(first.toString()).isZero();
    }
  }

  private HttpResponse<String> post(String url, String body) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(url + "api/ingest"))
            .timeout(Duration.ofSeconds(60))
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
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
