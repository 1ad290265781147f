package io.spyglass.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.service.RawHttp.Answer;
import java.nio.file.Files;
import java.nio.file.Path;
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

  @TempDir static Path data;
  static ServiceFixture f;

  @BeforeAll
  static void start() throws Exception {
    Path tokens = data.resolve("tokens.txt");
    Files.writeString(tokens, ALICE + " alice\n");
    f = ServiceFixture.start(data.resolve("d"), b -> b.tokensFile = tokens);
  }

  @AfterAll
  static void stop() {
    f.close();
  }

  static Answer raw(String head) throws Exception {
    return RawHttp.exchange(
        "127.0.0.1", f.service.port(), head + "Host: 127.0.0.1\r\nConnection: close\r\n\r\n");
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
}
