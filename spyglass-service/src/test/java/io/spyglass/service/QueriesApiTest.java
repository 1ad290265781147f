package io.spyglass.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.spyglass.service.ServiceFixture.Event;
import io.spyglass.service.ServiceFixture.Sse;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The query routes over a real server and a real HTTP client. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class QueriesApiTest {
  @TempDir static Path data;
  static ServiceFixture f;

  @BeforeAll
  static void start() throws Exception {
    f = ServiceFixture.start(data, b -> {});
  }

  @AfterAll
  static void stop() {
    f.close();
  }

  static final String WINDOWED =
      "SELECT COUNT(*) AS n FROM STREAM(2000, TIME) WINDOWING TUMBLING(500, TIME)";

  @Test
  void submitThenStreamEveryWindowToTheFinalResult() throws Exception {
    HttpResponse<String> r = f.postJson("/api/queries", "{\"query\": \"" + WINDOWED + "\"}");
    assertThat(r.statusCode()).isEqualTo(201);
    JsonNode body = ServiceFixture.json(r.body());
    String id = body.get("id").asText();
    assertThat(body.get("query").asText()).isEqualTo(WINDOWED);
    assertThat(r.headers().firstValue("Location")).hasValue("/api/queries/" + id);

    List<Event> events;
    try (Sse sse = f.sse(id)) {
      assertThat(sse.response.statusCode()).isEqualTo(200);
      assertThat(sse.response.headers().firstValue("Content-Type").orElse(""))
          .startsWith("text/event-stream");
      events = sse.all(); // the server ends the stream after the final result
    }
    assertThat(events).hasSizeGreaterThanOrEqualTo(2);
    for (int i = 0; i < events.size(); i++) {
      Event e = events.get(i);
      assertThat(e.event()).isEqualTo("result");
      assertThat(e.id()).isEqualTo(Integer.toString(i + 1));
      JsonNode result = e.json();
      assertThat(result.get("records").get(0).get("n").asLong()).isPositive();
      assertThat(result.get("meta").get("query").get("id").asText()).isEqualTo(id);
      assertThat(result.get("meta").get("final").asBoolean()).isEqualTo(i == events.size() - 1);
    }
    // the state afterwards: finished, with progress and the last result as the stream sent it
    JsonNode q = ServiceFixture.json(f.get("/api/queries/" + id).body());
    assertThat(q.get("state").asText()).isEqualTo("finished");
    assertThat(q.get("progress").get("resultsEmitted").asLong()).isEqualTo(events.size());
    assertThat(q.get("progress").get("durationMs").asLong()).isEqualTo(2000);
    assertThat(q.get("progress").get("recordsSeen").asLong()).isPositive();
    assertThat(q.get("lastResult")).isEqualTo(events.get(events.size() - 1).json());
  }

  @Test
  void aQueryThatEndsBetweenTwoProgressSweepsKeepsItsCounters() throws Exception {
    // 60 ms: usually over before the service's sweep (every 250 ms) reads the engine's counters
    String id = f.submit("SELECT COUNT(*) AS n FROM STREAM(60, TIME)", true);
    List<Event> events;
    try (Sse sse = f.sse(id)) {
      events = sse.all();
    }
    long n = events.get(events.size() - 1).json().get("records").get(0).get("n").asLong();
    JsonNode progress = ServiceFixture.json(f.get("/api/queries/" + id).body()).get("progress");
    assertThat(progress.get("recordsMatched").asLong()).isEqualTo(n);
    assertThat(progress.get("recordsSeen").asLong()).isEqualTo(n).isPositive();
  }

  @Test
  void lastEventIdResumesAfterItAndALateSubscriberGetsEverythingFirst() throws Exception {
    String id = f.submit(WINDOWED, true);
    String second;
    try (Sse sse = f.sse(id)) {
      assertThat(sse.next().id()).isEqualTo("1");
      second = sse.next().id();
    }
    assertThat(second).isEqualTo("2");
    List<Event> rest;
    try (Sse sse = f.sse(id, second)) {
      rest = sse.all();
    }
    assertThat(rest).isNotEmpty();
    assertThat(rest.get(0).id()).isEqualTo("3");
    assertThat(rest.get(rest.size() - 1).isFinal()).isTrue();
    // after the end: a new subscriber gets every result from the first
    List<Event> all;
    try (Sse sse = f.sse(id)) {
      all = sse.all();
    }
    assertThat(all).hasSize(2 + rest.size());
    assertThat(all.get(0).id()).isEqualTo("1");
    // and one that saw the last gets 204: nothing more will come
    try (Sse sse = f.sse(id, all.get(all.size() - 1).id())) {
      assertThat(sse.response.statusCode()).isEqualTo(204);
    }
    try (Sse sse = f.sse(id, "not-a-number")) {
      assertThat(sse.response.statusCode()).isEqualTo(400);
    }
  }

  @Test
  void deleteEndsTheQueryAndItsStreamGetsTheFinalResult() throws Exception {
    String id = f.submit("SELECT COUNT(*) AS n FROM STREAM(MAX, TIME)");
    try (Sse sse = f.sse(id)) {
      Thread.sleep(200);
      assertThat(f.delete("/api/queries/" + id).statusCode()).isEqualTo(204);
      List<Event> events = sse.all();
      assertThat(events).hasSize(1);
      assertThat(events.get(0).isFinal()).isTrue();
      assertThat(events.get(0).json().get("records").get(0).get("n").asLong()).isPositive();
    }
    assertThat(ServiceFixture.json(f.get("/api/queries/" + id).body()).get("state").asText())
        .isEqualTo("stopped"); // as its history says
  }

  @Test
  void aQueryWithoutAnEndHasNoDurationAndOneWithMaxHasTheLongest() throws Exception {
    String forever = "SELECT COUNT(*) AS n FROM STREAM(FOREVER) WINDOWING TUMBLING(1s, TIME)";
    String id = f.submit(forever, true);
    HttpResponse<String> r = f.get("/api/queries/" + id);
    assertThat(r.body()).doesNotContain(Long.toString(Long.MAX_VALUE));
    JsonNode progress = ServiceFixture.json(r.body()).get("progress");
    assertThat(progress.has("durationMs")).isTrue();
    assertThat(progress.get("durationMs").isNull()).isTrue();
    assertThat(f.get("/api/queries").body()).doesNotContain(Long.toString(Long.MAX_VALUE));
    JsonNode v =
        ServiceFixture.json(f.postJson("/api/validate", "{\"query\": \"" + forever + "\"}").body());
    assertThat(v.get("durationMs").isNull()).isTrue();
    assertThat(f.delete("/api/queries/" + id).statusCode()).isEqualTo(204);

    String max = f.submit("SELECT COUNT(*) AS n FROM STREAM(MAX, TIME)", true);
    JsonNode p = ServiceFixture.json(f.get("/api/queries/" + max).body()).get("progress");
    assertThat(p.get("durationMs").asLong()).isEqualTo(24 * 3600 * 1000L);
    assertThat(f.delete("/api/queries/" + max).statusCode()).isEqualTo(204);
  }

  /** The count of deliveries timed on SSE streams so far. */
  private static double sseDeliveriesTimed() {
    for (String line : f.get("/metrics").body().split("\n")) {
      if (line.startsWith("spyglass_result_latency_seconds_count{stream=\"sse\"}")) {
        return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    throw new AssertionError("no latency count for sse in /metrics");
  }

  @Test
  void theLatencyHistogramTimesLiveDeliveriesOnlyNotResultsSentAgain() throws Exception {
    String id = f.submit(WINDOWED, true);
    double before = sseDeliveriesTimed();
    List<Event> live;
    try (Sse sse = f.sse(id)) {
      live = sse.all();
    }
    double afterLive = sseDeliveriesTimed();
    // the first result may have come before the stream began: it was sent again, not live
    assertThat(afterLive - before).isBetween(live.size() - 1.0, (double) live.size());
    // a late reader, after the end, gets every result again: none of them is timed
    try (Sse sse = f.sse(id)) {
      assertThat(sse.all()).hasSize(live.size());
    }
    try (Sse sse = f.sse(id, "1")) {
      assertThat(sse.all()).hasSize(live.size() - 1);
    }
    assertThat(sseDeliveriesTimed()).isEqualTo(afterLive);
  }

  @Test
  void invalidQueryIs422WithPositionsAndFixes() {
    HttpResponse<String> r =
        f.post("/api/queries", "text/plain", "SELECT FOO(x) FROM STREAM(1000, TIME)");
    assertThat(r.statusCode()).isEqualTo(422);
    JsonNode e = ServiceFixture.json(r.body()).get("errors").get(0);
    assertThat(e.get("line").asInt()).isEqualTo(1);
    assertThat(e.get("column").asInt()).isEqualTo(8);
    assertThat(e.get("message").asText()).contains("FOO");
    assertThat(e.get("fix").asText()).isNotBlank();

    HttpResponse<String> v =
        f.postJson("/api/validate", "{\"query\": \"SELECT *\\nFROM STREAM(10s, TIME) WHERE\"}");
    assertThat(v.statusCode()).isEqualTo(422);
    assertThat(ServiceFixture.json(v.body()).get("errors").get(0).get("line").asInt()).isEqualTo(2);
  }

  @Test
  void aPatternWhoseProgramWouldFillTheHeapIsRefusedAtOnce() {
    // RE2/J expands counted repetition when it compiles: this one is 10^9 instructions
    String huge = "SELECT COUNT(*) FROM STREAM(1s, TIME) WHERE s RLIKE '((a{1000}){1000}){1000}'";
    for (String path : List.of("/api/validate", "/api/queries", "/api/query")) {
      HttpResponse<String> r = f.post(path, "text/plain", huge);
      assertThat(r.statusCode()).as(path).isEqualTo(422);
      JsonNode e = ServiceFixture.json(r.body()).get("errors").get(0);
      assertThat(e.get("message").asText()).contains("is too large");
      assertThat(e.get("column").asInt()).isEqualTo(53);
    }
    assertThat(f.get("/api/health").statusCode()).isEqualTo(200);
  }

  @Test
  void validateAnswersTheCanonicalFormAndThePlan() {
    HttpResponse<String> r =
        f.post("/api/validate", "text/plain", "select count(*) from stream(10s, time)");
    assertThat(r.statusCode()).isEqualTo(200);
    JsonNode v = ServiceFixture.json(r.body());
    assertThat(v.get("valid").asBoolean()).isTrue();
    assertThat(v.get("canonical").asText())
        .startsWith("SELECT COUNT(*) AS \"COUNT(*)\" FROM STREAM(10000, TIME)");
    assertThat(v.get("formatted").asText()).isEqualTo("SELECT COUNT(*) FROM STREAM(10s, TIME)");
    assertThat(v.get("explain").asText()).contains("aggregation:");
  }

  @Test
  void runAnswersEveryResultAsAnArray() {
    HttpResponse<String> r =
        f.postJson(
            "/api/query",
            "{\"query\": \"SELECT COUNT(*) AS n FROM STREAM(600, TIME)"
                + " WINDOWING TUMBLING(300, TIME)\"}");
    assertThat(r.statusCode()).isEqualTo(200);
    JsonNode results = ServiceFixture.json(r.body());
    assertThat(results.isArray()).isTrue();
    assertThat(results.size()).isGreaterThanOrEqualTo(2);
    assertThat(results.get(results.size() - 1).get("meta").get("final").asBoolean()).isTrue();
  }

  @Test
  void listShowsTheCallersQueriesWithProgressAndQuota() throws Exception {
    String id = f.submit("SELECT COUNT(*) FROM STREAM(MAX, TIME)", true);
    Thread.sleep(150);
    JsonNode list = ServiceFixture.json(f.get("/api/queries").body());
    JsonNode mine = null;
    for (JsonNode q : list.get("queries")) {
      if (q.get("id").asText().equals(id)) {
        mine = q;
      }
    }
    assertThat(mine).isNotNull();
    assertThat(mine.get("state").asText()).isEqualTo("running");
    assertThat(mine.get("progress").get("elapsedMs").asLong()).isPositive();
    assertThat(list.get("quota").get("running").asInt()).isPositive();
    assertThat(list.get("quota").get("maxQueries").asInt()).isEqualTo(1000);
    f.delete("/api/queries/" + id);
  }

  @Test
  void badRequestsGetTheRightStatusAndAJsonBody() {
    Map<Integer, HttpResponse<String>> cases =
        Map.of(
            404, f.get("/api/queries/nope"),
            400, f.post("/api/queries", "application/json", "{\"query\": "),
            415, f.post("/api/queries", "application/x-www-form-urlencoded", "query=x"),
            405, f.delete("/api/validate"));
    cases.forEach(
        (status, r) -> {
          assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
          assertThat(r.headers().firstValue("Content-Type").orElse("")).contains("json");
          JsonNode e = ServiceFixture.json(r.body()).get("error");
          assertThat(e.get("message").asText()).isNotBlank();
          assertThat(e.get("resolution").asText()).isNotBlank();
        });
    assertThat(cases.get(405).headers().firstValue("Allow").orElse("")).contains("POST");
    HttpResponse<String> unknown = f.get("/api/nothing-here");
    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThat(ServiceFixture.json(unknown.body()).get("error").get("message").asText())
        .contains("/api/nothing-here");
    HttpResponse<String> missing = f.postJson("/api/queries", "{\"detached\": true}");
    assertThat(missing.statusCode()).isEqualTo(400);
    // the parser's own words, without its description of the source
    HttpResponse<String> unclosed = f.postJson("/api/queries", "{\"query\": [\"SELECT\"");
    assertThat(unclosed.statusCode()).isEqualTo(400);
    assertThat(ServiceFixture.json(unclosed.body()).get("error").get("message").asText())
        .doesNotContain("Source")
        .contains("start marker at line 1, column 11");
  }

  @Test
  void bodiesOverOneMebibyteAre413() {
    String big = "SELECT * FROM STREAM(1000, TIME) -- " + "x".repeat((1 << 20) + 10);
    // refused from its Content-Length while the client still sends: the server reads the rest
    // before it answers, or the client, still writing, could lose the answer to a reset (it did,
    // about one time in nine)
    for (int i = 0; i < 20; i++) {
      HttpResponse<String> r = f.post("/api/queries", "text/plain", big);
      assertThat(r.statusCode()).isEqualTo(413);
      assertThat(ServiceFixture.json(r.body()).get("error").get("message").asText())
          .contains("1 MiB");
    }
    // the same without a Content-Length (chunked): counted as it arrives
    byte[] bytes =
        ("{\"name\": \"big\", \"query\": \"" + big + "\"}")
            .getBytes(java.nio.charset.StandardCharsets.UTF_8);
    for (String path : List.of("/api/queries", "/api/validate", "/api/saved")) {
      HttpResponse<String> chunked =
          f.send(
              f.request(path)
                  .header("Content-Type", "application/json")
                  .POST(
                      java.net.http.HttpRequest.BodyPublishers.ofInputStream(
                          () -> new java.io.ByteArrayInputStream(bytes)))
                  .build(),
              null);
      assertThat(chunked.statusCode()).as(path).isEqualTo(413);
      assertThat(ServiceFixture.json(chunked.body()).get("error").get("message").asText())
          .contains("1 MiB");
    }
    // just under the limit is read (and answered for what it is)
    String under = "SELECT COUNT(*) FROM STREAM(1s, TIME) -- " + "x".repeat((1 << 20) - 100);
    HttpResponse<String> read = f.post("/api/validate", "text/plain", under);
    assertThat(read.statusCode()).isNotEqualTo(413);
    assertThat(ServiceFixture.json(read.body()).has("valid") || read.statusCode() == 422).isTrue();
  }

  @Test
  void schemaShowsTheFieldsOfTheLiveStream() throws Exception {
    JsonNode fields = null;
    for (int i = 0; i < 100; i++) {
      JsonNode s = ServiceFixture.json(f.get("/api/schema").body());
      if (s.get("records").asLong() > 20) {
        fields = s.get("fields");
        break;
      }
      Thread.sleep(50);
    }
    assertThat(fields).isNotNull();
    Map<String, JsonNode> byPath = new java.util.HashMap<>();
    fields.forEach(fl -> byPath.put(fl.get("path").asText(), fl));
    assertThat(byPath).containsKeys("id", "duration", "demographics", "demographics.country");
    JsonNode country = byPath.get("demographics.country");
    assertThat(country.get("types").get(0).asText()).isEqualTo("STRING");
    assertThat(country.get("share").asDouble()).isBetween(0.0, 1.0);
    assertThat(country.get("examples").size()).isPositive();
    assertThat(byPath.get("demographics").get("types").get(0).asText()).isEqualTo("MAP");
  }

  @Test
  void healthMetricsAndTheOpenApiDocument() throws Exception {
    HttpResponse<String> h = f.get("/api/health");
    assertThat(h.statusCode()).isEqualTo(200);
    JsonNode health = ServiceFixture.json(h.body());
    assertThat(health.get("status").asText()).isEqualTo("UP");
    assertThat(health.get("problems").isArray()).isTrue();
    assertThat(health.get("problems").size()).isZero();
    HttpResponse<String> m = f.get("/metrics");
    assertThat(m.statusCode()).isEqualTo(200);
    assertThat(m.body())
        .contains("spyglass_records_read_total")
        .contains("spyglass_records_malformed_total")
        .contains("spyglass_queries_running")
        .contains("spyglass_queries_started_total")
        .contains("spyglass_queries_rejected_total")
        .contains("spyglass_queries_failed_total")
        .contains("spyglass_results_emitted_total")
        .contains("spyglass_result_latency_seconds_bucket")
        .contains("spyglass_stream_clients")
        .contains("spyglass_stream_clients_dropped_total")
        .contains("jvm_memory_used_bytes");
    JsonNode doc = ServiceFixture.json(f.get("/api/openapi.json").body());
    assertThat(doc.get("openapi").asText()).startsWith("3.");
    JsonNode paths = doc.get("paths");
    List<String> routes = f.service.server().routes();
    assertThat(routes)
        .contains(
            "WS /api/ws",
            "GET /api/queries/{id}/results",
            "GET /api/queries/{id}/export",
            "POST /api/tickets",
            "POST /api/alerts",
            "POST /api/alerts/{name}/mute")
        .hasSize(31);
    for (String route : routes) {
      String[] mp = route.split(" ", 2);
      String path = mp[1];
      String method = mp[0].equals("WS") ? "get" : mp[0].toLowerCase();
      assertThat(paths.has(path)).as("%s is in the OpenAPI document", route).isTrue();
      assertThat(paths.get(path).has(method)).as("%s is in the OpenAPI document", route).isTrue();
    }
  }
}
