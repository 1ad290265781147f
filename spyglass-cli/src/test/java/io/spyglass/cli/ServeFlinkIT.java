package io.spyglass.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.spyglass.flink.SpyglassJob;
import io.spyglass.testkit.kafka.TestKafka;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
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
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two {@code spyglass serve --runtime flink} processes share one Spyglass job (on a Flink mini
 * cluster in this JVM, over a real Kafka broker): each runs its queries on the job through the same
 * HTTP API as embedded, follows each one's windows over SSE and sees only its own queries' results,
 * ends one early with DELETE, and stops cleanly.
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
    // the module's broker, shared with the other test classes: the job's default topics and
    // these instances are this test's own
    TestKafka kafka = TestKafka.shared();
    String bootstrap = kafka.bootstrap();
    kafka.createTopics(Map.of("events", 2, "spyglass-queries", 1));
    Configuration conf =
        SpyglassJob.parseArgs(
            "--kafka", bootstrap, "--records.topic", "events", "--checkpoint-ms", "0");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(2);
    SpyglassJob.build(env, conf);
    JobClient job = env.executeAsync("spyglass");
    AtomicBoolean feeding = new AtomicBoolean(true);
    Thread feeder = new Thread(() -> feed(kafka, feeding), "feeder");
    feeder.start();
    try (Spyglass.Running a = serve(bootstrap, "a");
        Spyglass.Running b = serve(bootstrap, "b")) {
      String urlA = url(a);
      String urlB = url(b);
      HttpClient http = HttpClient.newHttpClient();
      // one windowed query on each instance at once, each followed to its end over SSE
      String idA =
          submit(
              http,
              urlA,
              "SELECT COUNT(*) AS n FROM STREAM(4000, TIME)" + " WINDOWING TUMBLING(1000, TIME)");
      String idB =
          submit(
              http,
              urlB,
              "SELECT k, COUNT(*) AS n FROM STREAM(4000, TIME) GROUP BY k"
                  + " WINDOWING TUMBLING(1000, TIME)");
      CompletableFuture<List<JsonNode>> sseA = sse(http, urlA + "api/queries/" + idA + "/results");
      CompletableFuture<List<JsonNode>> sseB = sse(http, urlB + "api/queries/" + idB + "/results");
      List<JsonNode> resultsA = sseA.get(90, TimeUnit.SECONDS);
      List<JsonNode> resultsB = sseB.get(90, TimeUnit.SECONDS);
      assertThat(resultsA).as(resultsA.toString()).hasSizeGreaterThanOrEqualTo(2);
      assertThat(resultsB).as(resultsB.toString()).hasSizeGreaterThanOrEqualTo(2);
      for (JsonNode r : resultsA) {
        assertThat(r.at("/meta/query/id").asText()).as(r.toString()).isEqualTo(idA);
        assertThat(r.has("records")).as(r.toString()).isTrue();
      }
      for (JsonNode r : resultsB) {
        assertThat(r.at("/meta/query/id").asText()).as(r.toString()).isEqualTo(idB);
      }
      JsonNode finalA = resultsA.get(resultsA.size() - 1);
      assertThat(finalA.at("/meta/final").asBoolean()).as(resultsA.toString()).isTrue();
      long countedA = 0;
      for (JsonNode r : resultsA) {
        countedA += r.at("/records/0/n").asLong();
      }
      assertThat(countedA).as(resultsA.toString()).isPositive();
      JsonNode finalB = resultsB.get(resultsB.size() - 1);
      assertThat(finalB.at("/meta/final").asBoolean()).as(resultsB.toString()).isTrue();
      assertThat(resultsB.stream().anyMatch(r -> r.get("records").size() == 3))
          .as(resultsB.toString())
          .isTrue();

      // each instance knows only its own queries
      assertThat(get(http, urlA + "api/queries")).contains(idA);
      assertThat(get(http, urlB + "api/queries")).contains(idB);
      if (!idA.equals(idB)) {
        assertThat(get(http, urlA + "api/queries")).doesNotContain(idB);
        assertThat(get(http, urlB + "api/queries")).doesNotContain(idA);
        assertThat(status(http, urlB + "api/queries/" + idA + "/results")).isEqualTo(404);
      }

      // DELETE ends a long query at once with its final result
      String id = submit(http, urlA, "SELECT COUNT(*) AS n FROM STREAM(600000, TIME)");
      awaitRunning(http, urlA + "api/queries/" + id);
      HttpResponse<String> deleted =
          http.send(
              HttpRequest.newBuilder(URI.create(urlA + "api/queries/" + id)).DELETE().build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(deleted.statusCode()).isEqualTo(204);
      List<JsonNode> killed =
          sse(http, urlA + "api/queries/" + id + "/results").get(30, TimeUnit.SECONDS);
      assertThat(killed.get(killed.size() - 1).at("/meta/final").asBoolean())
          .as(killed.toString())
          .isTrue();

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
    // two JVMs connecting to Kafka beside a mini cluster: slow to start on a busy machine
    return MeteringServe.url(serve, 120);
  }

  private static HttpRequest post(String url, String bql) {
    return HttpRequest.newBuilder(URI.create(url))
        .header("Content-Type", "text/plain")
        .POST(HttpRequest.BodyPublishers.ofString(bql))
        .build();
  }

  private static String submit(HttpClient http, String url, String bql) throws Exception {
    HttpResponse<String> r =
        http.send(post(url + "api/queries", bql), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    return Spyglass.parse(r.body()).get("id").asText();
  }

  private static int status(HttpClient http, String url) throws Exception {
    return http.send(
            HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }

  /** The results a query's SSE stream sends, until the final one (or the stream's end). */
  private static CompletableFuture<List<JsonNode>> sse(HttpClient http, String url)
      throws Exception {
    HttpResponse<InputStream> stream =
        http.send(
            HttpRequest.newBuilder(URI.create(url)).build(),
            HttpResponse.BodyHandlers.ofInputStream());
    assertThat(stream.statusCode()).isEqualTo(200);
    return CompletableFuture.supplyAsync(
        () -> {
          List<JsonNode> out = new ArrayList<>();
          try (BufferedReader r =
              new BufferedReader(new InputStreamReader(stream.body(), StandardCharsets.UTF_8))) {
            String l;
            while ((l = r.readLine()) != null) {
              if (l.startsWith("data: ")) {
                JsonNode n = Spyglass.parse(l.substring(6));
                if (n.has("meta")) {
                  out.add(n);
                  if (n.at("/meta/final").asBoolean()) {
                    break;
                  }
                }
              }
            }
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
          return out;
        });
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
  private static void feed(TestKafka kafka, AtomicBoolean feeding) {
    try (KafkaProducer<byte[], byte[]> p = kafka.producer()) {
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
}
