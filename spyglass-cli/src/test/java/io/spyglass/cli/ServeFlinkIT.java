package io.spyglass.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.spyglass.flink.SpyglassJob;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two {@code spyglass serve --runtime flink} processes share one Spyglass job (on a Flink mini
 * cluster in this JVM, over a real Kafka broker): each runs its queries on the job through the same
 * HTTP API as embedded, sees only its own, ends one early with DELETE, and stops cleanly.
 */
class ServeFlinkIT {
  @RegisterExtension
  static final MiniClusterExtension FLINK =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(2)
              .build());

  @TempDir Path data;

  @Test
  void twoServiceInstancesShareOneJob() throws Exception {
    KafkaClusterTestKit kafka = broker();
    try {
      String bootstrap = kafka.bootstrapServers();
      try (Admin admin =
          Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
        admin
            .createTopics(
                List.of(
                    new NewTopic("events", 2, (short) 1),
                    new NewTopic("spyglass-queries", 1, (short) 1)))
            .all()
            .get(30, TimeUnit.SECONDS);
      }
      Configuration conf =
          SpyglassJob.parseArgs(
              "--kafka", bootstrap, "--records.topic", "events", "--checkpoint-ms", "0");
      StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
      env.setParallelism(2);
      SpyglassJob.build(env, conf);
      JobClient job = env.executeAsync("spyglass");
      AtomicBoolean feeding = new AtomicBoolean(true);
      Thread feeder = new Thread(() -> feed(bootstrap, feeding), "feeder");
      feeder.start();
      try (Spyglass.Running a = serve(bootstrap, "a");
          Spyglass.Running b = serve(bootstrap, "b")) {
        String urlA = url(a);
        String urlB = url(b);
        HttpClient http = HttpClient.newHttpClient();
        // one query on each instance at once, each to its end
        CompletableFuture<HttpResponse<String>> countA =
            http.sendAsync(
                post(urlA + "api/query", "SELECT COUNT(*) AS n FROM STREAM(4000, TIME)"),
                HttpResponse.BodyHandlers.ofString());
        CompletableFuture<HttpResponse<String>> groupsB =
            http.sendAsync(
                post(
                    urlB + "api/query",
                    "SELECT k, COUNT(*) AS n FROM STREAM(4000, TIME) GROUP BY k"),
                HttpResponse.BodyHandlers.ofString());
        JsonNode resultsA = Spyglass.parse(countA.get(90, TimeUnit.SECONDS).body());
        JsonNode resultsB = Spyglass.parse(groupsB.get(90, TimeUnit.SECONDS).body());
        JsonNode finalA = resultsA.get(resultsA.size() - 1);
        assertThat(finalA.at("/meta/final").asBoolean()).as(resultsA.toString()).isTrue();
        assertThat(finalA.at("/records/0/n").asLong()).as(resultsA.toString()).isPositive();
        JsonNode finalB = resultsB.get(resultsB.size() - 1);
        assertThat(finalB.get("records")).as(resultsB.toString()).hasSize(3);

        // each instance lists only its own queries
        String idA = finalA.at("/meta/query/id").asText();
        String idB = finalB.at("/meta/query/id").asText();
        String listA = get(http, urlA + "api/queries");
        assertThat(listA).contains(idA).doesNotContain(idB);
        assertThat(get(http, urlB + "api/queries")).contains(idB).doesNotContain(idA);

        // DELETE ends a long query at once with its final result
        HttpResponse<String> submitted =
            http.send(
                post(
                    urlA + "api/queries?detached=true",
                    "SELECT COUNT(*) AS n FROM STREAM(600000, TIME)"),
                HttpResponse.BodyHandlers.ofString());
        assertThat(submitted.statusCode()).as(submitted.body()).isEqualTo(201);
        String id = Spyglass.parse(submitted.body()).get("id").asText();
        awaitRunning(http, urlA + "api/queries/" + id);
        HttpResponse<String> deleted =
            http.send(
                HttpRequest.newBuilder(URI.create(urlA + "api/queries/" + id)).DELETE().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(deleted.statusCode()).isEqualTo(204);
        String events = get(http, urlA + "api/queries/" + id + "/results");
        assertThat(events).contains("\"final\":true");

        // the stream's counters come from the job's status topic
        assertThat(get(http, urlA + "api/health")).contains("Flink job via Kafka");

        a.terminate();
        b.terminate();
        assertThat(a.awaitExit()).as(a.toString()).isZero();
        assertThat(b.awaitExit()).as(b.toString()).isZero();
      } finally {
        feeding.set(false);
        feeder.join();
        job.cancel().get(30, TimeUnit.SECONDS);
      }
    } finally {
      kafka.close();
    }
  }

  private Spyglass.Running serve(String bootstrap, String instance) throws Exception {
    return Spyglass.start(
        "serve",
        "--runtime",
        "flink",
        "--kafka",
        bootstrap,
        "--instance",
        instance,
        "--port",
        "0",
        "--data",
        data.resolve(instance).toString());
  }

  private static String url(Spyglass.Running serve) throws InterruptedException {
    String line = serve.awaitLine("the URL", l -> l.startsWith("Spyglass is serving "));
    return line.substring("Spyglass is serving ".length()).strip();
  }

  private static HttpRequest post(String url, String bql) {
    return HttpRequest.newBuilder(URI.create(url))
        .header("Content-Type", "text/plain")
        .POST(HttpRequest.BodyPublishers.ofString(bql))
        .build();
  }

  private static String get(HttpClient http, String url) throws Exception {
    return http.send(
            HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString())
        .body();
  }

  /** Waits until the query's progress shows records: the job runs it. */
  private static void awaitRunning(HttpClient http, String url) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      if (Spyglass.parse(get(http, url)).at("/progress/recordsSeen").asLong() > 0) {
        return;
      }
      TimeUnit.MILLISECONDS.sleep(100);
    }
    throw new AssertionError("the job never ran " + url);
  }

  /** About 1,000 small records a second, keys k0 to k2. */
  private static void feed(String bootstrap, AtomicBoolean feeding) {
    try (KafkaProducer<byte[], byte[]> p =
        new KafkaProducer<>(
            Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
                ByteArraySerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
                ByteArraySerializer.class))) {
      for (long i = 0; feeding.get(); i++) {
        String json = "{\"k\": \"k" + i % 3 + "\", \"v\": " + i + "}";
        p.send(new ProducerRecord<>("events", json.getBytes(StandardCharsets.UTF_8)));
        if (i % 10 == 9) {
          TimeUnit.MILLISECONDS.sleep(10);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static KafkaClusterTestKit broker() throws Exception {
    KafkaClusterTestKit cluster =
        new KafkaClusterTestKit.Builder(
                new TestKitNodes.Builder()
                    .setCombined(true)
                    .setNumBrokerNodes(1)
                    .setNumControllerNodes(1)
                    .build())
            .setConfigProp("offsets.topic.replication.factor", "1")
            .setConfigProp("transaction.state.log.replication.factor", "1")
            .setConfigProp("transaction.state.log.min.isr", "1")
            .setConfigProp("share.coordinator.state.topic.replication.factor", "1")
            .setConfigProp("share.coordinator.state.topic.min.isr", "1")
            .setConfigProp("group.initial.rebalance.delay.ms", "0")
            .setConfigProp("auto.create.topics.enable", "false")
            .build();
    cluster.format();
    cluster.startup();
    cluster.waitForReadyBrokers();
    return cluster;
  }
}
