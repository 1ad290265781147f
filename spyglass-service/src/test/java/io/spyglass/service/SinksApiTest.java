package io.spyglass.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.spyglass.service.ServiceFixture.Event;
import io.spyglass.service.ServiceFixture.Sse;
import io.spyglass.sinks.DeliverySettings;
import io.spyglass.sinks.SinkPolicy;
import io.spyglass.sinks.SinkSettings;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sinks on the service's queries, over a real server and real webhook receivers on loopback ports:
 * what is not allowed is refused with 422 before anything is sent; every result reaches each sink
 * once, as the bytes /results streams; a failing sink shows in the query's results and counters
 * while the query and the other queries go on.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SinksApiTest {
  static final String WINDOWED =
      "SELECT COUNT(*) AS n FROM STREAM(2000, TIME) WINDOWING TUMBLING(400, TIME)";

  /** Quick retries: a test waits milliseconds for what a service waits seconds. */
  static final DeliverySettings QUICK = DeliverySettings.DEFAULTS.withRetries(50, 60_000, 10, 100);

  @TempDir Path data;

  private static String body(String query, String sinks) {
    return "{\"query\": \"" + query + "\", \"detached\": true, \"sinks\": " + sinks + "}";
  }

  private static String hook(String url) {
    return "{\"type\": \"webhook\", \"url\": \"" + url + "\"}";
  }

  private ServiceFixture start(SinkPolicy policy) throws Exception {
    return ServiceFixture.start(data, b -> b.sinks = new SinkSettings(policy, QUICK));
  }

  private static List<JsonNode> results(ServiceFixture f, String id) throws Exception {
    List<JsonNode> out = new ArrayList<>();
    try (Sse sse = f.sse(id)) {
      for (Event e : sse.all()) {
        out.add(e.json());
      }
    }
    return out;
  }

  private static JsonNode query(ServiceFixture f, String id) {
    return ServiceFixture.json(f.get("/api/queries/" + id).body());
  }

  @Test
  void aWebhookToAHostNotAllowedIsRefusedWith422BeforeAnythingIsSent() throws Exception {
    try (HookReceiver allowed = new HookReceiver();
        HookReceiver other = new HookReceiver();
        ServiceFixture f = start(SinkPolicy.of(List.of(allowed.hostPort()), null, List.of()))) {
      HttpResponse<String> r =
          f.postJson(
              "/api/queries",
              body(WINDOWED, "[" + hook(allowed.url()) + ", " + hook(other.url()) + "]"));
      assertThat(r.statusCode()).as(r.body()).isEqualTo(422);
      JsonNode e = ServiceFixture.json(r.body()).get("error");
      assertThat(e.get("field").asText()).isEqualTo("sinks[1].url");
      assertThat(e.get("refused").asBoolean()).isTrue();
      assertThat(e.get("message").asText()).contains(other.hostPort()).contains("--sink-allow");
      assertThat(e.get("resolution").asText()).contains("--sink-allow " + other.hostPort());
      // an internal address written as a number, a name for an allowed address: refused too
      for (String url :
          List.of(
              "http://169.254.169.254/latest/meta-data",
              "http://2130706433:" + allowed.hostPort().split(":")[1] + "/",
              "http://localhost:" + allowed.hostPort().split(":")[1] + "/")) {
        HttpResponse<String> again =
            f.postJson("/api/queries", body(WINDOWED, "[" + hook(url) + "]"));
        assertThat(again.statusCode()).as(url).isEqualTo(422);
      }
      // no file or Kafka sink without the operator's folder or cluster
      HttpResponse<String> file =
          f.postJson("/api/queries", body(WINDOWED, "[{\"type\": \"file\", \"path\": \"x\"}]"));
      assertThat(file.statusCode()).isEqualTo(422);
      assertThat(ServiceFixture.json(file.body()).at("/error/message").asText())
          .contains("--sink-dir");
      HttpResponse<String> kafka =
          f.postJson("/api/queries", body(WINDOWED, "[{\"type\": \"kafka\", \"topic\": \"t\"}]"));
      assertThat(kafka.statusCode()).isEqualTo(422);
      assertThat(ServiceFixture.json(kafka.body()).at("/error/field").asText())
          .isEqualTo("sinks[0].bootstrap");
      // not written right: 422 naming the field; not an array: 400
      HttpResponse<String> typo =
          f.postJson("/api/queries", body(WINDOWED, "[{\"type\": \"webhok\", \"url\": \"x\"}]"));
      assertThat(typo.statusCode()).isEqualTo(422);
      assertThat(ServiceFixture.json(typo.body()).at("/error/field").asText())
          .isEqualTo("sinks[0].type");
      assertThat(f.postJson("/api/queries", body(WINDOWED, "\"http://x/\"")).statusCode())
          .isEqualTo(400);

      assertThat(ServiceFixture.json(f.get("/api/queries").body()).get("queries"))
          .as("nothing was started")
          .isEmpty();
      assertThat(allowed.arrived() + other.arrived()).as("nothing was sent").isZero();
    }
  }

  @Test
  void everyResultReachesItsWebhookOnceAsTheResultStreamed() throws Exception {
    try (HookReceiver hook = new HookReceiver();
        ServiceFixture f = start(SinkPolicy.of(List.of(hook.hostPort()), null, List.of()))) {
      hook.answer = i -> i < 2 ? 503 : 200; // the first two calls fail: retried
      HttpResponse<String> r =
          f.postJson("/api/queries", body(WINDOWED, "[" + hook(hook.url()) + "]"));
      assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
      String id = ServiceFixture.json(r.body()).get("id").asText();
      JsonNode submitted = ServiceFixture.json(r.body()).get("sinks").get(0);
      assertThat(submitted.get("type").asText()).isEqualTo("webhook");
      assertThat(submitted.get("target").asText()).isEqualTo(hook.url());

      List<JsonNode> streamed = results(f, id);
      assertThat(streamed).hasSizeGreaterThanOrEqualTo(3);
      HookReceiver.await("every result delivered", () -> hook.taken().size() >= streamed.size());
      List<JsonNode> docs = hook.taken();
      assertThat(docs).hasSize(streamed.size());
      assertThat(new HashSet<>(docs.stream().map(d -> d.get("key").asText()).toList()))
          .hasSize(streamed.size());
      for (int i = 0; i < docs.size(); i++) {
        JsonNode d = docs.get(i);
        JsonNode result = streamed.get(i);
        long window = result.at("/meta/window/number").asLong();
        assertThat(d.get("key").asText()).isEqualTo(id + ":" + window);
        assertThat(d.get("query").asText()).isEqualTo(id);
        assertThat(d.get("window").asLong()).isEqualTo(window);
        assertThat(d.get("final").asBoolean()).isEqualTo(result.at("/meta/final").asBoolean());
        assertThat(((ObjectNode) d.deepCopy()).retain("records", "meta")).isEqualTo(result);
      }
      HookReceiver.await(
          "the counters", () -> query(f, id).at("/sinks/0/delivered").asLong() == docs.size());
      JsonNode sink = query(f, id).get("sinks").get(0);
      assertThat(sink.get("retried").asLong()).isEqualTo(2);
      assertThat(sink.get("dropped").asLong()).isZero();
      assertThat(sink.get("failing").asBoolean()).isFalse();
      String metrics = f.get("/metrics").body();
      assertThat(metrics)
          .contains("spyglass_sink_delivered_total{type=\"webhook\"} " + docs.size() + ".0")
          .contains("spyglass_sink_retried_total{type=\"webhook\"} 2.0")
          .contains("spyglass_sinks_failing 0.0");
    }
  }

  @Test
  void aFailingSinkShowsInTheResultsAndItsCountersWhileTheQueryGoesOn() throws Exception {
    try (HookReceiver hook = new HookReceiver();
        ServiceFixture f = start(SinkPolicy.of(List.of(hook.hostPort()), null, List.of()))) {
      hook.answer = i -> 500;
      String id =
          ServiceFixture.json(
                  f.postJson("/api/queries", body(WINDOWED, "[" + hook(hook.url()) + "]")).body())
              .get("id")
              .asText();
      List<JsonNode> streamed = results(f, id);
      assertThat(streamed.get(streamed.size() - 1).at("/meta/final").asBoolean()).isTrue();
      JsonNode error =
          streamed.stream()
              .flatMap(r -> stream(r.at("/meta/errors")))
              .filter(e -> e.get("message").asText().startsWith("Sink webhook " + hook.url()))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no result says the sink fails: " + streamed));
      assertThat(error.get("fatal").asBoolean()).isFalse();
      assertThat(error.get("message").asText()).contains("is failing").contains("answered 500");
      JsonNode sink = query(f, id).get("sinks").get(0);
      assertThat(sink.get("failing").asBoolean()).isTrue();
      assertThat(sink.get("lastError").asText()).contains("answered 500");
      assertThat(f.get("/metrics").body()).contains("spyglass_sinks_failing 1.0");
    }
  }

  private static java.util.stream.Stream<JsonNode> stream(JsonNode array) {
    List<JsonNode> out = new ArrayList<>();
    array.forEach(out::add);
    return out.stream();
  }

  @Test
  void aSlowSinkHoldsUpNeitherItsQueryNorTheOthers() throws Exception {
    try (HookReceiver slow = new HookReceiver();
        HookReceiver fast = new HookReceiver();
        ServiceFixture f =
            start(SinkPolicy.of(List.of(slow.hostPort(), fast.hostPort()), null, List.of()))) {
      CountDownLatch hold = new CountDownLatch(1);
      slow.answer =
          i -> {
            hold.await(60, TimeUnit.SECONDS);
            return 200;
          };
      String a =
          ServiceFixture.json(
                  f.postJson("/api/queries", body(WINDOWED, "[" + hook(slow.url()) + "]")).body())
              .get("id")
              .asText();
      String b =
          ServiceFixture.json(
                  f.postJson("/api/queries", body(WINDOWED, "[" + hook(fast.url()) + "]")).body())
              .get("id")
              .asText();
      // both queries end on time and stream every result while the slow receiver holds its first
      List<JsonNode> ofA = results(f, a);
      List<JsonNode> ofB = results(f, b);
      HookReceiver.await("the other query's sink", () -> fast.taken().size() == ofB.size());
      assertThat(slow.taken()).isEmpty();
      assertThat(query(f, a).get("state").asText()).isEqualTo("finished");
      hold.countDown();
      HookReceiver.await(
          "the slow sink, once it answers",
          () ->
              new HashSet<>(slow.taken().stream().map(d -> d.get("key").asText()).toList()).size()
                  == ofA.size());
    }
  }

  @Test
  void aFileSinkIsWrittenUnderTheSinkFolderALineAResult() throws Exception {
    Path sinkDir = data.resolve("sinks");
    try (ServiceFixture f = start(SinkPolicy.of(List.of(), sinkDir, List.of()))) {
      HttpResponse<String> outside =
          f.postJson(
              "/api/queries",
              body(WINDOWED, "[{\"type\": \"file\", \"path\": \"../escape.ndjson\"}]"));
      assertThat(outside.statusCode()).isEqualTo(422);
      String id =
          ServiceFixture.json(
                  f.postJson(
                          "/api/queries",
                          body(WINDOWED, "[{\"type\": \"file\", \"path\": \"q/out.ndjson\"}]"))
                      .body())
              .get("id")
              .asText();
      List<JsonNode> streamed = results(f, id);
      HookReceiver.await(
          "every result written",
          () -> query(f, id).at("/sinks/0/delivered").asLong() == streamed.size());
      List<String> lines =
          Files.readAllLines(sinkDir.resolve("q/out.ndjson"), StandardCharsets.UTF_8);
      assertThat(lines).hasSize(streamed.size());
      assertThat(query(f, id).at("/sinks/0/target").asText()).isEqualTo("q/out.ndjson");
      for (int i = 0; i < lines.size(); i++) {
        assertThat(((ObjectNode) ServiceFixture.json(lines.get(i))).retain("records", "meta"))
            .isEqualTo(streamed.get(i));
      }
    }
  }
}
