package io.spyglass.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.service.RawHttp.Answer;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * How the edge names a request, over a real server on a loopback port: every route kind (health,
 * metrics, the web UI, the API, a result stream, ingestion) is told once, the same way for every
 * part that needs it, whatever the client sends as a method or a trailing slash.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EdgeRoutesTest {
  static final String ALICE = "alice-token-0123456789";
  static final String METER = "meter-token-0123456789";
  static final String ACME = "acme-token-0123456789";

  @TempDir static Path data;
  static ServiceFixture f;

  @BeforeAll
  static void start() throws Exception {
    Path tokens = data.resolve("tokens.txt");
    Files.writeString(
        tokens,
        ALICE + " alice\n" + METER + " meter ingest\n" + ACME + " acme ingest tenant=acme\n");
    f =
        ServiceFixture.startMetering(
            data.resolve("d"), MeteringApiTest.settings(), b -> b.tokensFile = tokens);
  }

  @AfterAll
  static void stop() {
    f.close();
  }

  static Answer raw(String head) throws Exception {
    return raw(head, "");
  }

  /** {@code head}: the request line and header lines (each ending CRLF); Host is added. */
  static Answer raw(String head, String body) throws Exception {
    return RawHttp.exchange(
        "127.0.0.1",
        f.service.port(),
        head + "Host: 127.0.0.1\r\nConnection: close\r\n\r\n" + body);
  }

  static String metrics() throws Exception {
    Answer a = raw("GET /metrics HTTP/1.1\r\nAuthorization: Bearer " + ALICE + "\r\n");
    assertThat(a.status()).isEqualTo(200);
    return a.body();
  }

  // review finding 1: each method a client made up was a new series of the request metric

  @Test
  void madeUpMethodsAreCountedAsOneLabelAndAddNoSeries() throws Exception {
    for (int i = 0; i < 50; i++) {
      Answer a = raw("XYZ" + i + " /api/x HTTP/1.1\r\n");
      assertThat(a.status()).isIn(400, 401, 404, 405, 501);
    }
    Answer known = raw("GET /api/saved HTTP/1.1\r\nAuthorization: Bearer " + ALICE + "\r\n");
    assertThat(known.status()).isEqualTo(200);
    String m = metrics();
    assertThat(m).doesNotContain("XYZ");
    assertThat(m).contains("spyglass_http_requests_total{method=\"OTHER\",status=\"401\"} 50.0");
    assertThat(m).contains("spyglass_http_requests_total{method=\"GET\",status=\"200\"}");
  }

  static long ingestRequests(String status) throws Exception {
    String prefix = "spyglass_ingest_requests_total{status=\"" + status + "\"} ";
    return metrics()
        .lines()
        .filter(l -> l.startsWith(prefix))
        .mapToLong(l -> (long) Double.parseDouble(l.substring(prefix.length())))
        .sum();
  }

  static Answer post(String path, String token, String body) throws Exception {
    return raw(
        "POST "
            + path
            + " HTTP/1.1\r\nAuthorization: Bearer "
            + token
            + "\r\nContent-Type: application/x-ndjson\r\nContent-Length: "
            + body.getBytes(StandardCharsets.UTF_8).length
            + "\r\n",
        body);
  }

  // review finding 7: the path was told apart in five places, each its own way

  @Test
  void aTrailingSlashIsTheSameRouteForEveryPartOfTheEdge() throws Exception {
    // health answers everyone, with or without its slash (the filter behind the edge said 401)
    for (String path : List.of("/api/health", "/api/health/")) {
      Answer a = raw("GET " + path + " HTTP/1.1\r\n");
      assertThat(a.status()).as(path).isEqualTo(200);
      assertThat(ServiceFixture.json(a.body()).get("status").asText()).isEqualTo("UP");
      assertThat(ServiceFixture.json(a.body()).has("runtime")).isFalse();
    }
    // ingestion is counted as ingestion with its slash too (the logger counted only the bare path)
    long before = ingestRequests("202");
    for (String path : List.of("/api/ingest", "/api/ingest/")) {
      Answer a = post(path, ACME, "{\"id\":\"" + path + "\",\"org\":\"acme\"}\n");
      assertThat(a.status()).as(path).isEqualTo(202);
    }
    assertThat(ingestRequests("202")).isEqualTo(before + 2);
    // a tenant's token reads its rows with or without the slash, and nothing else either way
    for (String path : List.of("/api/standing-queries", "/api/standing-queries/")) {
      Answer a = raw("GET " + path + " HTTP/1.1\r\nAuthorization: Bearer " + ACME + "\r\n");
      assertThat(a.status()).as(path).isEqualTo(200);
    }
    for (String path : List.of("/api/queries", "/api/queries/")) {
      Answer a = raw("GET " + path + " HTTP/1.1\r\nAuthorization: Bearer " + ACME + "\r\n");
      assertThat(a.status()).as(path).isEqualTo(403);
    }
  }

  // review finding 8: the tenant scope was applied to /api only, and /metrics answered tenants

  @Test
  void aTokenBoundToTenantsGetsNoMetrics() throws Exception {
    for (String path : List.of("/metrics", "/metrics/")) {
      Answer a = raw("GET " + path + " HTTP/1.1\r\nAuthorization: Bearer " + ACME + "\r\n");
      assertThat(a.status()).as(path).isEqualTo(403);
      assertThat(ServiceFixture.json(a.body()).get("error").get("message").asText())
          .contains("bound to tenants");
      assertThat(a.body()).doesNotContain("spyglass_");
    }
    // a token bound to no tenant reads them, with the ingest role or without
    for (String token : List.of(ALICE, METER)) {
      Answer a = raw("GET /metrics HTTP/1.1\r\nAuthorization: Bearer " + token + "\r\n");
      assertThat(a.status()).isEqualTo(200);
    }
  }

  // review finding 5: any caller's declared body held the backlog and was read, then 403

  @Test
  void ingestionWithoutTheRoleIsRefusedFromItsHeadHoldingNothing() throws Exception {
    var ingestor = f.service.metering().ingestor();
    try (Socket s = RawHttp.connect("127.0.0.1", f.service.port())) {
      // the head only: a body that is not needed is never waited for
      RawHttp.send(
          s,
          "POST /api/ingest HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
              + ALICE
              + "\r\nContent-Type: application/x-ndjson\r\nContent-Length: 60000\r\n\r\n");
      Answer a = RawHttp.read(s);
      assertThat(a.status()).isEqualTo(403);
      assertThat(ServiceFixture.json(a.body()).get("error").get("message").asText())
          .contains("ingest role");
      assertThat(ingestor.backlogBytes()).isZero();
    }
    // with the role, the same request is taken
    Answer ok = post("/api/ingest", METER, "{\"id\":\"role\",\"org\":\"acme\"}\n");
    assertThat(ok.status()).isEqualTo(202);
  }
}
