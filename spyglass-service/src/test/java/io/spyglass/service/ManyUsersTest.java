package io.spyglass.service;

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
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Tokens, who sees what, and admission: over a real server with three users. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ManyUsersTest {
  @TempDir static Path data;
  static ServiceFixture f;

  static final String LONG = "SELECT COUNT(*) FROM STREAM(60s, TIME)";

  @BeforeAll
  static void start() throws Exception {
    Path tokens = data.resolve("tokens.txt");
    Files.writeString(
        tokens,
        "# token user [admin]\nalice-token-0123456 alice\nbob-token-012345678 bob\n\nroot-token-01234567 root admin\n");
    f =
        ServiceFixture.start(
            data.resolve("db"),
            b -> {
              b.tokensFile = tokens;
              b.maxQueries = 4;
              b.maxQueriesPerUser = 2;
            });
  }

  @AfterAll
  static void stop() {
    f.close();
  }

  @Test
  void everyApiRouteButHealthNeedsAToken() {
    f.token = null;
    for (String path :
        List.of("/api/queries", "/api/schema", "/api/saved", "/api/history", "/api/openapi.json")) {
      HttpResponse<String> r = f.get(path);
      assertThat(r.statusCode()).as(path).isEqualTo(401);
      assertThat(r.headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"spyglass\"");
      assertThat(ServiceFixture.json(r.body()).get("error").get("resolution").asText())
          .contains("Bearer");
    }
    assertThat(f.post("/api/queries", "text/plain", LONG).statusCode()).isEqualTo(401);
    f.token = "wrong";
    HttpResponse<String> wrong = f.get("/api/queries");
    assertThat(wrong.statusCode()).isEqualTo(401);
    assertThat(ServiceFixture.json(wrong.body()).get("error").get("message").asText())
        .contains("not valid");
    f.token = null;
    // health answers everyone, but tells its details only to a caller with a token
    HttpResponse<String> health = f.get("/api/health");
    assertThat(health.statusCode()).isEqualTo(200);
    assertThat(ServiceFixture.json(health.body()).properties())
        .extracting(java.util.Map.Entry::getKey)
        .containsExactly("status", "problems");
    assertThat(ServiceFixture.json(health.body()).get("status").asText()).isEqualTo("UP");
    assertThat(f.get("/metrics").statusCode()).isEqualTo(401);
    // a token in the URL only on the result streams, for clients that cannot set headers
    HttpResponse<String> inUrl = f.get("/api/queries?access_token=bob-token-012345678");
    assertThat(inUrl.statusCode()).isEqualTo(401);
    assertThat(ServiceFixture.json(inUrl.body()).get("error").get("message").asText())
        .contains("only by GET /api/ws and GET /api/queries/{id}/results");
    f.token = "bob-token-012345678";
    assertThat(ServiceFixture.json(f.get("/api/health").body()).has("runningQueries")).isTrue();
    assertThat(f.get("/metrics").statusCode()).isEqualTo(200);
    String id = f.submit("SELECT COUNT(*) FROM STREAM(1s, TIME)");
    f.token = null;
    assertThat(
            f.get("/api/queries/" + id + "/results?access_token=bob-token-012345678").statusCode())
        .isEqualTo(200);
  }

  @Test
  void theWebSocketNeedsATokenToo() throws Exception {
    String ws = "ws://127.0.0.1:" + f.service.port() + "/api/ws";
    assertThatThrownBy(
            () -> f.http.newWebSocketBuilder().buildAsync(URI.create(ws), NOTHING).join())
        .hasCauseInstanceOf(WebSocketHandshakeException.class)
        .satisfies(
            e ->
                assertThat(((WebSocketHandshakeException) e.getCause()).getResponse().statusCode())
                    .isEqualTo(401));
    WebSocket ok =
        f.http
            .newWebSocketBuilder()
            .buildAsync(URI.create(ws + "?access_token=bob-token-012345678"), NOTHING)
            .get(10, TimeUnit.SECONDS);
    ok.sendClose(WebSocket.NORMAL_CLOSURE, "").get(5, TimeUnit.SECONDS);
  }

  private static final WebSocket.Listener NOTHING = new WebSocket.Listener() {};

  @Test
  void usersSeeAndEndOnlyTheirOwnQueriesAndAnAdminSeesAll() throws Exception {
    f.token = "alice-token-0123456";
    String alices = f.submit(LONG);
    f.token = "bob-token-012345678";
    assertThat(f.get("/api/queries/" + alices).statusCode()).isEqualTo(404);
    assertThat(f.delete("/api/queries/" + alices).statusCode()).isEqualTo(404);
    try (ServiceFixture.Sse sse = f.sse(alices)) {
      assertThat(sse.response.statusCode()).isEqualTo(404);
    }
    assertThat(ids(f.get("/api/queries"))).doesNotContain(alices);
    f.token = "root-token-01234567";
    assertThat(ids(f.get("/api/queries"))).contains(alices);
    assertThat(f.get("/api/queries/" + alices).statusCode()).isEqualTo(200);
    assertThat(f.delete("/api/queries/" + alices).statusCode()).isEqualTo(204);
    f.token = "alice-token-0123456";
    waitUntilNoneRunning();
  }

  @Test
  void admissionRefusesWith429RetryAfterAndWhichLimit() throws Exception {
    List<String> started = new ArrayList<>();
    f.token = "alice-token-0123456";
    started.add(f.submit(LONG, true));
    started.add(f.submit(LONG, true));
    HttpResponse<String> mine = f.post("/api/queries", "text/plain", LONG);
    assertThat(mine.statusCode()).isEqualTo(429);
    assertThat(mine.headers().firstValue("Retry-After")).isPresent();
    long retry = Long.parseLong(mine.headers().firstValue("Retry-After").get());
    assertThat(retry).isBetween(1L, 60L);
    JsonNode e = ServiceFixture.json(mine.body()).get("error");
    assertThat(e.get("limit").asText()).isEqualTo("max-queries-per-user");
    assertThat(e.get("message").asText()).contains("alice").contains("2 of 2");
    assertThat(e.get("resolution").asText()).contains("DELETE /api/queries");

    f.token = "bob-token-012345678";
    started.add(f.submit(LONG, true));
    started.add(f.submit(LONG, true));
    f.token = "root-token-01234567";
    HttpResponse<String> all = f.post("/api/queries", "text/plain", LONG);
    assertThat(all.statusCode()).isEqualTo(429);
    assertThat(all.headers().firstValue("Retry-After")).isPresent();
    assertThat(ServiceFixture.json(all.body()).get("error").get("limit").asText())
        .isEqualTo("max-queries");
    assertThat(f.get("/metrics").body())
        .contains("spyglass_queries_rejected_total{reason=\"max-queries\"} 1.0")
        .contains("spyglass_queries_rejected_total{reason=\"max-queries-per-user\"} 1.0");
    for (String id : started) {
      assertThat(f.delete("/api/queries/" + id).statusCode()).isEqualTo(204);
    }
    waitUntilNoneRunning();
    f.token = "alice-token-0123456";
    assertThat(f.post("/api/queries", "text/plain", "SELECT * FROM STREAM(100, TIME)").statusCode())
        .isEqualTo(201);
  }

  private static List<String> ids(HttpResponse<String> r) {
    List<String> out = new ArrayList<>();
    ServiceFixture.json(r.body()).get("queries").forEach(q -> out.add(q.get("id").asText()));
    return out;
  }

  private static void waitUntilNoneRunning() throws InterruptedException {
    long deadline = System.currentTimeMillis() + 10_000;
    while (f.service.queries().running() > 0 && System.currentTimeMillis() < deadline) {
      Thread.sleep(20);
    }
    assertThat(f.service.queries().running()).isZero();
  }
}
