package io.spyglass.service;

import static io.spyglass.service.MeteringApiTest.T0;
import static io.spyglass.service.MeteringApiTest.ingest;
import static io.spyglass.service.MeteringApiTest.settings;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Metering with roles, over a real server on a loopback port: ingestion needs the ingest role, a
 * token bound to tenants ingests only their documents and reads only their rows of standing queries
 * (and nothing else), an admin sees everything.
 */
class TenancyTest {
  static final String OPS = "ops-token-0123456789";
  static final String ALICE = "alice-token-0123456789";
  static final String METER = "meter-token-0123456789";
  static final String ACME = "acme-token-0123456789";
  static final String ZETA = "zeta-token-0123456789";

  static final String BY_ORG =
      "SELECT org, COUNT(*) AS docs, SUM(quantity) AS total FROM STREAM(FOREVER) GROUP BY org"
          + " WINDOWING TUMBLING(1h, EVENT_TIME(time), LATENESS 10m)";
  static final String ALL =
      "SELECT COUNT(*) AS docs, SUM(quantity) AS total FROM STREAM(FOREVER)"
          + " WINDOWING TUMBLING(1h, EVENT_TIME(time), LATENESS 10m)";

  @TempDir Path data;

  ServiceFixture start() throws Exception {
    Path tokens = data.resolve("tokens.txt");
    Files.writeString(
        tokens,
        OPS
            + " ops admin\n"
            + ALICE
            + " alice\n"
            + METER
            + " meter ingest\n"
            + ACME
            + " acme ingest tenant=acme\n"
            + ZETA
            + " zeta tenant=zeta\n");
    return ServiceFixture.startMetering(data.resolve("d"), settings(), b -> b.tokensFile = tokens);
  }

  static String doc(String id, String org, int quantity) {
    return "{\"id\":\""
        + id
        + "\",\"org\":\""
        + org
        + "\",\"quantity\":"
        + quantity
        + ",\"time\":"
        + (T0 + 1_000)
        + "}\n";
  }

  static String create(String name, String query) {
    return ServiceFixture.JSON.createObjectNode().put("name", name).put("query", query).toString();
  }

  /** The rows of the standing query's window at T0 once it counts {@code docs} (or 20 s). */
  static TreeMap<String, Long> rows(ServiceFixture f, String name, long docs) throws Exception {
    long deadline = System.currentTimeMillis() + 20_000;
    TreeMap<String, Long> totals = new TreeMap<>();
    while (System.currentTimeMillis() < deadline) {
      HttpResponse<String> r = f.get("/api/standing-queries/" + name + "/results");
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      totals.clear();
      long seen = 0;
      for (JsonNode w : ServiceFixture.json(r.body())) {
        for (JsonNode rec : w.get("records")) {
          totals.merge(rec.get("org").asText(), rec.get("total").asLong(), Long::sum);
          seen += rec.get("docs").asLong();
        }
      }
      if (seen >= docs) {
        return totals;
      }
      Thread.sleep(50);
    }
    return totals;
  }

  @Test
  void ingestionNeedsTheIngestRoleAndATenantTokenIngestsOnlyItsTenants() throws Exception {
    try (ServiceFixture f = start()) {
      f.token = ALICE; // a plain user: no more ingestion
      HttpResponse<String> refused = ingest(f, doc("a1", "acme", 1));
      assertThat(refused.statusCode()).isEqualTo(403);
      assertThat(refused.body()).contains("ingest role").contains("alice");
      f.token = ZETA; // bound to a tenant, but without the ingest role
      assertThat(ingest(f, doc("z1", "zeta", 1)).statusCode()).isEqualTo(403);

      f.token = ACME;
      HttpResponse<String> r =
          ingest(
              f,
              doc("c1", "acme", 1)
                  + doc("c2", "victim", 1000000)
                  + "{\"id\":\"c3\",\"quantity\":5,\"time\":"
                  + T0
                  + "}\n");
      assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
      JsonNode o = ServiceFixture.json(r.body());
      assertThat(o.get("accepted").asInt()).isEqualTo(1);
      assertThat(o.get("rejected").get(0).get("index").asInt()).isEqualTo(1);
      assertThat(o.get("rejected").get(0).get("reason").asText())
          .contains("\"victim\"")
          .contains("not one of this token's tenants [acme]");
      assertThat(o.get("rejected").get(1).get("reason").asText()).contains("no tenant");

      f.token = METER; // ingest, bound to no tenant: any org
      assertThat(ingest(f, doc("m1", "victim", 1)).statusCode()).isEqualTo(202);
      f.token = OPS; // an admin ingests too
      assertThat(ingest(f, doc("o1", "zeta", 1)).statusCode()).isEqualTo(202);
    }
  }

  @Test
  void aTenantTokenReadsOnlyItsRowsAndOnlyQueriesWithATenantColumn() throws Exception {
    try (ServiceFixture f = start()) {
      f.token = OPS;
      assertThat(f.postJson("/api/standing-queries", create("by-org", BY_ORG)).statusCode())
          .isEqualTo(201);
      assertThat(f.postJson("/api/standing-queries", create("all", ALL)).statusCode())
          .isEqualTo(201);
      f.token = METER;
      HttpResponse<String> r =
          ingest(f, doc("1", "acme", 1) + doc("2", "zeta", 10) + doc("3", "victim", 100));
      assertThat(ServiceFixture.json(r.body()).get("accepted").asInt()).isEqualTo(3);

      f.token = OPS; // an admin reads every row
      assertThat(rows(f, "by-org", 3))
          .containsExactly(entry("acme", 1), entry("victim", 100), entry("zeta", 10));
      f.token = ALICE; // a user bound to no tenant too, as before
      assertThat(rows(f, "by-org", 3)).hasSize(3);

      f.token = ACME;
      assertThat(rows(f, "by-org", 1)).containsExactly(entry("acme", 1));
      f.token = ZETA;
      assertThat(rows(f, "by-org", 1)).containsExactly(entry("zeta", 10));
      HttpResponse<String> mixed = f.get("/api/standing-queries/all/results");
      assertThat(mixed.statusCode()).isEqualTo(403);
      assertThat(mixed.body()).contains("no column \\\"org\\\"").contains("mix tenants");
      List<String> listed = new ArrayList<>();
      for (JsonNode q :
          ServiceFixture.json(f.get("/api/standing-queries").body()).get("standingQueries")) {
        listed.add(q.get("name").asText());
      }
      assertThat(listed).containsExactly("by-org");
    }
  }

  @Test
  void aTenantTokenCallsNothingThatShowsOtherTenantsDocuments() throws Exception {
    try (ServiceFixture f = start()) {
      f.token = ACME;
      for (String path : List.of("/api/queries", "/api/schema", "/api/saved", "/api/history")) {
        HttpResponse<String> r = f.get(path);
        assertThat(r.statusCode()).as(path).isEqualTo(403);
        assertThat(r.body()).contains("bound to tenants [acme]");
      }
      assertThat(f.post("/api/queries", "text/plain", ALL).statusCode()).isEqualTo(403);
      assertThat(f.post("/api/query", "text/plain", ALL).statusCode()).isEqualTo(403);
      HttpResponse<String> define = f.postJson("/api/standing-queries", create("mine", BY_ORG));
      assertThat(define.statusCode()).isEqualTo(403);
      String ws = "ws://127.0.0.1:" + f.service.port() + "/api/ws?access_token=" + ACME;
      assertThatThrownBy(
              () ->
                  f.http
                      .newWebSocketBuilder()
                      .buildAsync(URI.create(ws), new WebSocket.Listener() {})
                      .join())
          .hasCauseInstanceOf(WebSocketHandshakeException.class)
          .satisfies(
              e ->
                  assertThat(
                          ((WebSocketHandshakeException) e.getCause()).getResponse().statusCode())
                      .isEqualTo(403));
      assertThat(f.get("/api/health").statusCode()).isEqualTo(200);
      assertThat(f.get("/api/standing-queries").statusCode()).isEqualTo(200);
    }
  }

  static java.util.Map.Entry<String, Long> entry(String org, long total) {
    return java.util.Map.entry(org, total);
  }
}
