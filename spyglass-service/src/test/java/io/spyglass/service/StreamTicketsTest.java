package io.spyglass.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.spyglass.service.ServiceFixture.Sse;
import java.net.URI;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stream tickets (POST /api/tickets, then ?ticket=T on the WebSocket or the SSE stream), so that a
 * browser puts no token in a URL.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StreamTicketsTest {
  @TempDir static Path data;
  static ServiceFixture f;

  @BeforeAll
  static void start() throws Exception {
    Path tokens = data.resolve("tokens.txt");
    Files.writeString(tokens, "alice-token-0123456 alice\nbob-token-012345678 bob\n");
    f = ServiceFixture.start(data.resolve("db"), b -> b.tokensFile = tokens);
  }

  @AfterAll
  static void stop() {
    f.close();
  }

  private static String ticket(String token) {
    f.token = token;
    HttpResponse<String> r = f.post("/api/tickets", "application/json", "");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    JsonNode t = ServiceFixture.json(r.body());
    assertThat(t.get("ticket").asText()).matches("[A-Za-z0-9_-]{32,}");
    assertThat(t.get("expiresMs").asLong())
        .isBetween(System.currentTimeMillis(), System.currentTimeMillis() + 31_000);
    return t.get("ticket").asText();
  }

  private static WebSocket connect(String query, LinkedBlockingQueue<JsonNode> got) {
    return f.http
        .newWebSocketBuilder()
        .buildAsync(
            URI.create("ws://127.0.0.1:" + f.service.port() + "/api/ws" + query),
            new WebSocket.Listener() {
              @Override
              public CompletionStage<?> onText(WebSocket w, CharSequence text, boolean last) {
                got.add(ServiceFixture.json(text.toString()));
                w.request(1);
                return null;
              }
            })
        .orTimeout(10, TimeUnit.SECONDS)
        .join();
  }

  @Test
  void aTicketOpensOneWebSocketAsItsUserOnce() throws Exception {
    f.token = null;
    assertThat(f.post("/api/tickets", "application/json", "").statusCode()).isEqualTo(401);
    String t = ticket("alice-token-0123456");
    String aliceQuery = f.submit("SELECT COUNT(*) FROM STREAM(30s, TIME)", true);
    LinkedBlockingQueue<JsonNode> got = new LinkedBlockingQueue<>();
    WebSocket ws = connect("?ticket=" + t, got);
    ws.sendText("{\"type\":\"kill\",\"id\":\"" + aliceQuery + "\"}", true).join();
    assertThat(got.poll(10, TimeUnit.SECONDS).get("type").asText()).isEqualTo("killed");
    ws.sendClose(WebSocket.NORMAL_CLOSURE, "bye").join();
    // spent: the same ticket opens nothing
    assertThatThrownBy(() -> connect("?ticket=" + t, got))
        .isInstanceOf(CompletionException.class)
        .hasCauseInstanceOf(WebSocketHandshakeException.class);
    assertThatThrownBy(() -> connect("?ticket=made-up-ticket-made-up-ticket-000", got))
        .hasCauseInstanceOf(WebSocketHandshakeException.class);
    WebSocketHandshakeException e =
        (WebSocketHandshakeException)
            org.assertj.core.api.Assertions.catchThrowable(() -> connect("", got)).getCause();
    assertThat(e.getResponse().statusCode()).isEqualTo(401);
  }

  @Test
  void aTicketIsTheUserWhoAskedForIt() throws Exception {
    f.token = "alice-token-0123456";
    String aliceQuery = f.submit("SELECT COUNT(*) FROM STREAM(30s, TIME)", true);
    String bobs = ticket("bob-token-012345678");
    LinkedBlockingQueue<JsonNode> got = new LinkedBlockingQueue<>();
    WebSocket ws = connect("?ticket=" + bobs, got);
    ws.sendText("{\"type\":\"subscribe\",\"id\":\"" + aliceQuery + "\"}", true).join();
    JsonNode m = got.poll(10, TimeUnit.SECONDS);
    assertThat(m.get("type").asText()).isEqualTo("error");
    assertThat(m.get("status").asInt()).isEqualTo(404);
    ws.sendClose(WebSocket.NORMAL_CLOSURE, "bye").join();
    f.token = "alice-token-0123456";
    f.delete("/api/queries/" + aliceQuery);
  }

  @Test
  void aTicketOpensTheResultsStream() throws Exception {
    f.token = "alice-token-0123456";
    String id = f.submit("SELECT COUNT(*) AS n FROM STREAM(1s, TIME)");
    String t = ticket("alice-token-0123456");
    f.token = null;
    try (Sse s = f.new Sse("/api/queries/" + id + "/results?ticket=" + t, null)) {
      assertThat(s.response.statusCode()).isEqualTo(200);
      assertThat(s.next().event()).isEqualTo("result");
    }
    try (Sse s = f.new Sse("/api/queries/" + id + "/results?ticket=" + t, null)) {
      assertThat(s.response.statusCode()).isEqualTo(401);
    }
    // a ticket is for the stream routes only
    String other = ticket("alice-token-0123456");
    f.token = null;
    assertThat(f.get("/api/queries?ticket=" + other).statusCode()).isEqualTo(401);
  }
}
