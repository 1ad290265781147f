package io.spyglass.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.spyglass.engine.ingest.Ingestor;
import io.spyglass.service.metering.Metering;
import io.spyglass.service.metering.StandingStore;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ingestion and standing queries over a real server on a loopback port: plain and gzip bodies, a
 * malformed line among good ones, repeats, 413, 429 with Retry-After under a small backlog bound,
 * and exact totals across a restart on the same data folder.
 */
class MeteringApiTest {
  static final String COUNT =
      "SELECT COUNT(*) AS docs, SUM(quantity) AS total FROM STREAM(FOREVER)"
          + " WINDOWING TUMBLING(1h, EVENT_TIME(time), LATENESS 10m)";
  static final long T0 = 1_767_225_600_000L; // an hour's start

  @TempDir Path data;

  static Metering.Settings settings() {
    return new Metering.Settings("id", Ingestor.Options.DEFAULTS, 100, null);
  }

  static String doc(String id, int quantity) {
    return doc(id, quantity, T0 + 1_000);
  }

  static String doc(String id, int quantity, long timeMs) {
    return "{\"id\":\""
        + id
        + "\",\"org\":\"o1\",\"quantity\":"
        + quantity
        + ",\"time\":"
        + timeMs
        + "}";
  }

  static String lines(String prefix, int from, int to) {
    StringBuilder b = new StringBuilder();
    for (int i = from; i < to; i++) {
      b.append(doc(prefix + i, 1)).append('\n');
    }
    return b.toString();
  }

  static HttpResponse<String> ingest(ServiceFixture f, String body) {
    return f.post("/api/ingest", "application/x-ndjson", body);
  }

  static byte[] gzip(String s) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream z = new GZIPOutputStream(out)) {
      z.write(s.getBytes(StandardCharsets.UTF_8));
    }
    return out.toByteArray();
  }

  /** The standing query's totals over every window, once they reach {@code docs} (or 20 s). */
  static long[] totals(ServiceFixture f, String name, long docs) throws InterruptedException {
    long[] t = {0, 0, 0};
    long deadline = System.currentTimeMillis() + 20_000;
    while (System.currentTimeMillis() < deadline) {
      HttpResponse<String> r = f.get("/api/standing-queries/" + name + "/results");
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      t = new long[] {0, 0, 0};
      for (JsonNode w : ServiceFixture.json(r.body())) {
        for (JsonNode rec : w.get("records")) {
          t[0] += rec.path("docs").asLong();
          t[1] += rec.path("total").asLong();
        }
        // the query's late documents since it started, as of its latest result (not per window)
        t[2] = Math.max(t[2], w.get("meta").get("late").asLong());
      }
      if (t[0] >= docs) {
        return t;
      }
      Thread.sleep(100);
    }
    return t;
  }

  @Test
  void ingestsCountsOnceAndKeepsItAcrossARestart() throws Exception {
    exactAcrossARestart(settings());
  }

  @Test
  void keepsStandingQueriesInPostgreSql() throws Exception {
    try (EmbeddedPostgres pg = EmbeddedPostgres.builder().start()) {
      Metering.Settings s = settings();
      exactAcrossARestart(
          new Metering.Settings(
              s.idField(),
              s.ingest(),
              s.checkpointEveryMs(),
              pg.getJdbcUrl("postgres", "postgres")));
      // the windows are in PostgreSQL, not in a file under the data folder
      assertThat(data.resolve(StandingStore.FILE)).doesNotExist();
    }
  }

  void exactAcrossARestart(Metering.Settings settings) throws Exception {
    try (ServiceFixture f = ServiceFixture.startMetering(data, settings, b -> {})) {
      HttpResponse<String> created =
          f.postJson(
              "/api/standing-queries",
              ServiceFixture.JSON
                  .createObjectNode()
                  .put("name", "usage")
                  .put("query", COUNT)
                  .toString());
      assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
      assertThat(
              f.postJson(
                      "/api/standing-queries",
                      ServiceFixture.JSON
                          .createObjectNode()
                          .put("name", "usage")
                          .put("query", COUNT)
                          .toString())
                  .statusCode())
          .isEqualTo(409);

      // plain JSON lines with a malformed one and one without an id among them
      String body = lines("a", 0, 5) + "{\"id\": \"bad\", \n" + lines("a", 5, 10) + "{\"n\":1}\n";
      HttpResponse<String> r = ingest(f, body);
      assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
      JsonNode o = ServiceFixture.json(r.body());
      assertThat(o.get("accepted").asInt()).isEqualTo(10);
      assertThat(o.get("duplicates").asInt()).isZero();
      assertThat(o.get("rejected")).hasSize(2);
      assertThat(o.get("rejected").get(0).get("index").asInt()).isEqualTo(5);
      assertThat(o.get("rejected").get(1).get("index").asInt()).isEqualTo(11);
      assertThat(o.get("rejected").get(1).get("reason").asText()).contains("\"id\"");

      // a gzip JSON array, half of it repeats
      StringBuilder array = new StringBuilder("[");
      for (int i = 5; i < 25; i++) {
        array.append(i > 5 ? "," : "").append(doc("a" + i, 1));
      }
      array.append("]");
      HttpResponse<String> z =
          f.send(
              f.request("/api/ingest")
                  .header("Content-Type", "application/json")
                  .header("Content-Encoding", "gzip")
                  .POST(HttpRequest.BodyPublishers.ofByteArray(gzip(array.toString())))
                  .build(),
              array.toString());
      assertThat(z.statusCode()).as(z.body()).isEqualTo(202);
      assertThat(ServiceFixture.json(z.body()).get("accepted").asInt()).isEqualTo(15);
      assertThat(ServiceFixture.json(z.body()).get("duplicates").asInt()).isEqualTo(5);

      // over 10 MiB: 413, nothing kept
      String big = lines("big", 0, 1) + "x".repeat(10 << 20);
      assertThat(ingest(f, big).statusCode()).isEqualTo(413);

      assertThat(totals(f, "usage", 25)).containsExactly(25, 25, 0);
      JsonNode list = ServiceFixture.json(f.get("/api/standing-queries").body());
      assertThat(list.get("standingQueries").get(0).get("name").asText()).isEqualTo("usage");
    }
    // a restart: the standing query goes on from its saved state; repeats stay repeats
    try (ServiceFixture f = ServiceFixture.startMetering(data, settings, b -> {})) {
      HttpResponse<String> r = ingest(f, lines("a", 20, 40));
      assertThat(ServiceFixture.json(r.body()).get("accepted").asInt()).isEqualTo(15);
      assertThat(ServiceFixture.json(r.body()).get("duplicates").asInt()).isEqualTo(5);
      assertThat(totals(f, "usage", 40)).containsExactly(40, 40, 0);
      assertThat(f.delete("/api/standing-queries/usage").statusCode()).isEqualTo(204);
      assertThat(f.get("/api/standing-queries/usage/results").statusCode()).isEqualTo(404);
    }
  }

  @Test
  void onlyItsOwnerOrAnAdminEndsAStandingQuery() throws Exception {
    Path tokens = data.resolve("tokens.txt");
    java.nio.file.Files.writeString(
        tokens,
        "alice-0123456789abcdef alice\nbob-0123456789abcdef bob\nroot-0123456789abcdef root admin\n");
    try (ServiceFixture f =
        ServiceFixture.startMetering(data, settings(), b -> b.tokensFile = tokens)) {
      f.token = "alice-0123456789abcdef";
      String body =
          ServiceFixture.JSON
              .createObjectNode()
              .put("name", "usage")
              .put("query", COUNT)
              .toString();
      assertThat(f.postJson("/api/standing-queries", body).statusCode()).isEqualTo(201);

      f.token = "bob-0123456789abcdef"; // everyone reads the totals; bob may not end alice's query
      assertThat(f.get("/api/standing-queries/usage/results").statusCode()).isEqualTo(200);
      HttpResponse<String> refused = f.delete("/api/standing-queries/usage");
      assertThat(refused.statusCode()).isEqualTo(403);
      assertThat(refused.body()).contains("belongs to alice").contains("owner");
      assertThat(f.get("/api/standing-queries/usage/results").statusCode()).isEqualTo(200);

      f.token = "root-0123456789abcdef"; // an admin may
      assertThat(f.delete("/api/standing-queries/usage").statusCode()).isEqualTo(204);
      f.token = "alice-0123456789abcdef";
      assertThat(f.postJson("/api/standing-queries", body).statusCode()).isEqualTo(201);
      assertThat(f.delete("/api/standing-queries/usage").statusCode()).isEqualTo(204);
    }
  }

  @Test
  void lateDocumentsAreCountedInTheirWindowsMetaAndInNoRecords() throws Exception {
    try (ServiceFixture f = ServiceFixture.startMetering(data, settings(), b -> {})) {
      String create =
          ServiceFixture.JSON.createObjectNode().put("name", "late").put("query", COUNT).toString();
      assertThat(f.postJson("/api/standing-queries", create).statusCode()).isEqualTo(201);
      // a standing query has no end
      String ends =
          ServiceFixture.JSON
              .createObjectNode()
              .put("name", "ends")
              .put("query", "SELECT COUNT(*) AS n FROM STREAM(10s, TIME)")
              .toString();
      assertThat(f.postJson("/api/standing-queries", ends).statusCode()).isEqualTo(400);
      assertThat(ingest(f, lines("e", 0, 3)).statusCode()).isEqualTo(202);
      // an hour and more later: the first window is final once the watermark passes its end + 10m
      assertThat(ingest(f, doc("later", 1, T0 + 2 * 3_600_000L) + "\n").statusCode())
          .isEqualTo(202);
      JsonNode first = awaitWindow(f, "late", T0, w -> w.get("window").get("final").asBoolean());
      assertThat(first.get("records").get(0).get("docs").asLong()).isEqualTo(3);
      assertThat(first.get("window").get("end").asLong()).isEqualTo(T0 + 3_600_000L);
      // a document for the final window: late, in its meta, not in its records
      assertThat(ingest(f, doc("too-late", 1, T0 + 5) + "\n").statusCode()).isEqualTo(202);
      JsonNode late = awaitWindow(f, "late", T0, w -> w.get("meta").get("late").asLong() == 1);
      assertThat(late.get("records").get(0).get("docs").asLong()).isEqualTo(3);
      // the later window is open
      JsonNode open = awaitWindow(f, "late", T0 + 2 * 3_600_000L, w -> true);
      assertThat(open.get("window").get("final").asBoolean()).isFalse();
      assertThat(totals(f, "late", 4)).containsExactly(4, 4, 1);
    }
  }

  @Test
  void documentsWithoutATimeAreCountedInTheReportNotLost() throws Exception {
    try (ServiceFixture f = ServiceFixture.startMetering(data, settings(), b -> {})) {
      String create =
          ServiceFixture.JSON.createObjectNode().put("name", "bill").put("query", COUNT).toString();
      assertThat(f.postJson("/api/standing-queries", create).statusCode()).isEqualTo(201);
      // only a document without a time: no window, but the listing says so
      assertThat(ingest(f, "{\"id\":\"t0\",\"org\":\"acme\",\"quantity\":7}\n").statusCode())
          .isEqualTo(202);
      assertThat(f.get("/api/standing-queries/bill/results").body()).isEqualTo("[]");
      awaitListed(f, "bill", q -> q.path("withoutTime").asLong() == 1);

      String body =
          "{\"id\":\"t1\",\"org\":\"acme\",\"quantity\":7,\"time\":"
              + T0
              + "}\n{\"id\":\"t2\",\"org\":\"acme\",\"quantity\":7}\n"
              + "{\"id\":\"t3\",\"org\":\"acme\",\"quantity\":7,\"time\":\"2026-01-01T00:00:00Z\"}\n";
      HttpResponse<String> r = ingest(f, body);
      assertThat(ServiceFixture.json(r.body()).get("accepted").asInt()).isEqualTo(3);
      JsonNode w = awaitWindow(f, "bill", T0, x -> x.get("meta").get("withoutTime").asLong() == 3);
      assertThat(w.get("records").get(0).get("docs").asLong()).isEqualTo(1);
      assertThat(w.get("meta").get("late").asLong()).isZero();
      awaitListed(f, "bill", q -> q.path("withoutTime").asLong() == 3);
    }
  }

  @Test
  void standingQueryErrorsGiveTheRightAdvice() throws Exception {
    try (ServiceFixture f = ServiceFixture.startMetering(data, settings(), b -> {})) {
      JsonNode ends =
          ServiceFixture.json(
                  f.postJson(
                          "/api/standing-queries",
                          "{\"name\":\"x1\",\"query\":\"SELECT COUNT(*) FROM STREAM(10s, TIME)\"}")
                      .body())
              .get("error");
      assertThat(ends.get("message").asText()).contains("STREAM(FOREVER)");
      assertThat(ends.get("resolution").asText()).contains("Write FROM STREAM(FOREVER)");
      assertThat(ends.get("resolution").asText()).doesNotContain("Name it");

      HttpResponse<String> empty =
          f.postJson(
              "/api/standing-queries",
              "{\"name\":\"\",\"query\":\"SELECT COUNT(*) FROM STREAM(FOREVER)\"}");
      assertThat(empty.statusCode()).isEqualTo(400);
      JsonNode e = ServiceFixture.json(empty.body()).get("error");
      assertThat(e.get("message").asText()).isEqualTo("\"name\" is empty");
      assertThat(e.get("resolution").asText()).contains("1 to 100 letters, digits");

      JsonNode badName =
          ServiceFixture.json(
                  f.postJson(
                          "/api/standing-queries",
                          "{\"name\":\"a b\",\"query\":\"SELECT COUNT(*) FROM STREAM(FOREVER)\"}")
                      .body())
              .get("error");
      assertThat(badName.get("message").asText()).contains("'a b' is not");
      assertThat(badName.get("resolution").asText()).contains("usage-by-org");
    }
  }

  /** The standing query {@code name} as listed once it satisfies {@code condition} (or 20 s). */
  static JsonNode awaitListed(
      ServiceFixture f, String name, java.util.function.Predicate<JsonNode> condition)
      throws InterruptedException {
    long deadline = System.currentTimeMillis() + 20_000;
    JsonNode seen = null;
    while (System.currentTimeMillis() < deadline) {
      for (JsonNode q :
          ServiceFixture.json(f.get("/api/standing-queries").body()).get("standingQueries")) {
        if (q.get("name").asText().equals(name)) {
          seen = q;
          if (condition.test(q)) {
            return q;
          }
        }
      }
      Thread.sleep(50);
    }
    throw new AssertionError("standing query " + name + " never came to it: " + seen);
  }

  /** The window starting at {@code startMs} once it satisfies {@code condition} (or 20 s). */
  static JsonNode awaitWindow(
      ServiceFixture f, String name, long startMs, java.util.function.Predicate<JsonNode> condition)
      throws InterruptedException {
    long deadline = System.currentTimeMillis() + 20_000;
    JsonNode seen = null;
    while (System.currentTimeMillis() < deadline) {
      for (JsonNode w :
          ServiceFixture.json(f.get("/api/standing-queries/" + name + "/results").body())) {
        if (w.get("window").get("start").asLong() == startMs) {
          seen = w;
          if (condition.test(w)) {
            return w;
          }
        }
      }
      Thread.sleep(50);
    }
    throw new AssertionError("window " + startMs + " of " + name + " never came to it: " + seen);
  }

  @Test
  void takesBodiesPastOneMebibyteUpTo10MiBChunkedOrNot() throws Exception {
    try (ServiceFixture f = ServiceFixture.startMetering(data, settings(), b -> {})) {
      StringBuilder b = new StringBuilder();
      String pad = "p".repeat(200);
      for (int i = 0; i < 12_000; i++) {
        b.append("{\"id\":\"big").append(i).append("\",\"pad\":\"").append(pad).append("\"}\n");
      }
      String body = b.toString();
      assertThat(body.length()).isGreaterThan(2 << 20);
      HttpResponse<String> r = ingest(f, body);
      assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
      assertThat(ServiceFixture.json(r.body()).get("accepted").asInt()).isEqualTo(12_000);
      HttpResponse<String> chunked =
          f.send(
              f.request("/api/ingest")
                  .POST(
                      HttpRequest.BodyPublishers.ofInputStream(
                          () ->
                              new java.io.ByteArrayInputStream(
                                  body.getBytes(StandardCharsets.UTF_8))))
                  .build(),
              body);
      assertThat(chunked.statusCode()).as(chunked.body()).isEqualTo(202);
      assertThat(ServiceFixture.json(chunked.body()).get("duplicates").asInt()).isEqualTo(12_000);
    }
  }

  @Test
  void everyQuerySeesTheIngestedDocuments() throws Exception {
    try (ServiceFixture f = ServiceFixture.startMetering(data, settings(), b -> {})) {
      CompletableFuture<HttpResponse<String>> run =
          CompletableFuture.supplyAsync(
              () ->
                  f.post(
                      "/api/query",
                      "text/plain",
                      "SELECT COUNT(*) AS n, SUM(quantity) AS q FROM STREAM(3s, TIME)"));
      Thread.sleep(1_000); // the query runs: it looks forward
      assertThat(ingest(f, lines("q", 0, 7)).statusCode()).isEqualTo(202);
      HttpResponse<String> r = run.get(30, TimeUnit.SECONDS);
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      JsonNode last = ServiceFixture.json(r.body()).get(0);
      assertThat(last.get("records").get(0).get("n").asLong()).isEqualTo(7);
    }
  }

  @Test
  void aBacklogOverItsBoundIsRefusedWith429AndNothingOfItIsKept() throws Exception {
    Metering.Settings small =
        new Metering.Settings("id", Ingestor.Options.DEFAULTS.withBacklogBytes(2_000), 100, null);
    try (ServiceFixture f = ServiceFixture.startMetering(data, small, b -> {})) {
      assertThat(
              f.postJson(
                      "/api/standing-queries",
                      ServiceFixture.JSON
                          .createObjectNode()
                          .put("name", "n")
                          .put("query", COUNT)
                          .toString())
                  .statusCode())
          .isEqualTo(201);
      ExecutorService clients = Executors.newFixedThreadPool(8);
      int requests = 200;
      int perRequest = 50;
      List<Future<Integer>> sent = new ArrayList<>();
      int[] refused = {0};
      for (int q = 0; q < requests; q++) {
        String body = lines("r" + q + "-", 0, perRequest);
        sent.add(
            clients.submit(
                () -> {
                  while (true) {
                    HttpResponse<String> r = ingest(f, body);
                    if (r.statusCode() == 429) {
                      assertThat(r.headers().firstValue("Retry-After")).isPresent();
                      synchronized (refused) {
                        refused[0]++;
                      }
                      Thread.sleep(20); // sooner than Retry-After says: the test has no time
                      continue;
                    }
                    assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
                    return ServiceFixture.json(r.body()).get("accepted").asInt();
                  }
                }));
      }
      long accepted = 0;
      for (Future<Integer> s : sent) {
        accepted += s.get();
      }
      clients.shutdown();
      assertThat(refused[0]).as("requests refused with 429").isPositive();
      assertThat(accepted).isEqualTo((long) requests * perRequest);
      assertThat(totals(f, "n", accepted)[0]).isEqualTo(accepted);
    }
  }
}
