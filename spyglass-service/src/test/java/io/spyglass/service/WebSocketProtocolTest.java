package io.spyglass.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.WebSocket;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a web page needs to follow all its queries over one socket: their progress (so that it polls
 * nothing), leaving a query it no longer shows, and resuming after a dropped connection.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WebSocketProtocolTest {
  /** Results kept per query. */
  static final int KEPT = 20;

  @TempDir static Path data;
  static ServiceFixture f;

  @BeforeAll
  static void start() throws Exception {
    f =
        ServiceFixture.start(
            data,
            b -> {
              b.graceMs = 5_000;
              b.keepResults = KEPT;
            });
  }

  @AfterAll
  static void stop() {
    f.close();
  }

  /** One client socket: the messages it received, in order. */
  static final class Socket implements AutoCloseable {
    final BlockingQueue<JsonNode> got = new LinkedBlockingQueue<>();
    final Deque<JsonNode> skipped = new ArrayDeque<>();
    final WebSocket ws;

    Socket() throws Exception {
      ws =
          f.http
              .newWebSocketBuilder()
              .buildAsync(
                  URI.create("ws://127.0.0.1:" + f.service.port() + "/api/ws"),
                  new WebSocket.Listener() {
                    final StringBuilder part = new StringBuilder();

                    @Override
                    public CompletionStage<?> onText(WebSocket w, CharSequence text, boolean last) {
                      part.append(text);
                      if (last) {
                        got.add(ServiceFixture.json(part.toString()));
                        part.setLength(0);
                      }
                      w.request(1);
                      return null;
                    }
                  })
              .get(10, TimeUnit.SECONDS);
    }

    void send(String json) {
      ws.sendText(json, true).join();
    }

    /** The next message of a type (for a query, if {@code id} is given); others stay. */
    JsonNode next(String type, String id) throws InterruptedException {
      for (JsonNode m : skipped) {
        if (matches(m, type, id)) {
          skipped.remove(m);
          return m;
        }
      }
      while (true) {
        JsonNode m = got.poll(10, TimeUnit.SECONDS);
        assertThat(m).as("a %s message (came instead: %s)", type, skipped).isNotNull();
        if (matches(m, type, id)) {
          return m;
        }
        skipped.add(m);
      }
    }

    private static boolean matches(JsonNode m, String type, String id) {
      return m.get("type").asText().equals(type)
          && (id == null || id.equals(m.path("id").asText()));
    }

    @Override
    public void close() {
      ws.sendClose(WebSocket.NORMAL_CLOSURE, "bye").orTimeout(5, TimeUnit.SECONDS).join();
    }
  }

  private static JsonNode query(String id) {
    return ServiceFixture.json(f.get("/api/queries/" + id).body());
  }

  @Test
  void progressComesEverySecondWhenAskedAndOnceMoreBeforeTheEnd() throws Exception {
    try (Socket s = new Socket()) {
      s.send(
          "{\"type\":\"submit\",\"query\":\"SELECT COUNT(*) AS n FROM STREAM(2500, TIME)"
              + " WINDOWING TUMBLING(500, TIME)\",\"progress\":true}");
      String id = s.next("accepted", null).get("id").asText();
      JsonNode p = s.next("progress", id);
      assertThat(p.get("state").asText()).isEqualTo("running");
      assertThat(p.at("/progress/durationMs").asLong()).isEqualTo(2500);
      assertThat(p.at("/progress/elapsedMs").asLong()).isBetween(1L, 2500L);
      assertThat(p.at("/progress/recordsSeen").asLong()).isPositive();
      // the last progress comes before the end, with the query finished
      JsonNode last = p;
      while (last.get("state").asText().equals("running")) {
        last = s.next("progress", id);
      }
      assertThat(last.get("state").asText()).isEqualTo("finished");
      assertThat(last.at("/progress/resultsEmitted").asLong()).isGreaterThanOrEqualTo(4);
      s.next("end", id);

      // a query that runs until stopped has no duration: null, not Long.MAX_VALUE
      s.send(
          "{\"type\":\"submit\",\"query\":\"SELECT COUNT(*) AS n FROM STREAM(FOREVER)\","
              + "\"progress\":true}");
      String forever = s.next("accepted", null).get("id").asText();
      JsonNode fp = s.next("progress", forever);
      assertThat(fp.at("/progress/durationMs").isNull()).as(fp.toString()).isTrue();
      s.send("{\"type\":\"kill\",\"id\":\"" + forever + "\"}");
      s.next("end", forever);
    }
  }

  @Test
  void noProgressUnlessAsked() throws Exception {
    try (Socket s = new Socket()) {
      s.send(
          "{\"type\":\"submit\",\"query\":\"SELECT COUNT(*) AS n FROM STREAM(1500, TIME)"
              + " WINDOWING TUMBLING(500, TIME)\"}");
      String id = s.next("accepted", null).get("id").asText();
      s.next("end", id);
      for (JsonNode m : s.skipped) {
        assertThat(m.get("type").asText()).isIn("result", "accepted");
      }
    }
  }

  @Test
  void unsubscribingLeavesTheQueryAndResumingSendsOnlyWhatCameAfter() throws Exception {
    String id =
        f.submit("SELECT COUNT(*) AS n FROM STREAM(20s, TIME) WINDOWING TUMBLING(200, TIME)");
    long seen;
    try (Socket s = new Socket()) {
      s.send("{\"type\":\"subscribe\",\"id\":\"" + id + "\"}");
      s.next("result", id);
      seen = s.next("result", id).get("seq").asLong();
      assertThat(query(id).get("clients").asInt()).isEqualTo(1);
      s.send("{\"type\":\"unsubscribe\",\"id\":\"" + id + "\"}");
      s.next("unsubscribed", id);
      assertThat(query(id).get("clients").asInt()).isZero();
      int before = s.got.size() + s.skipped.size();
      Thread.sleep(600); // three more windows: none comes to a socket that left
      assertThat(s.got.size() + s.skipped.size()).isEqualTo(before);
    }
    // another socket (a page that reconnected) takes up after the last result it saw
    try (Socket again = new Socket()) {
      again.send("{\"type\":\"subscribe\",\"id\":\"" + id + "\",\"after\":" + seen + "}");
      assertThat(again.next("result", id).get("seq").asLong()).isEqualTo(seen + 1);
      again.send("{\"type\":\"kill\",\"id\":\"" + id + "\"}");
      again.next("end", id);
      again.send("{\"type\":\"subscribe\",\"id\":\"" + id + "\",\"after\":-1}");
      assertThat(again.next("error", id).get("status").asInt()).isEqualTo(400);
    }
  }

  @Test
  void aSubscriptionAfterResultsNoLongerKeptIsToldOfTheGap() throws Exception {
    // more results than a query keeps: the first ones are gone
    String id =
        f.submit("SELECT COUNT(*) AS n FROM STREAM(MAX, TIME) WINDOWING TUMBLING(100, TIME)", true);
    long deadline = System.currentTimeMillis() + 30_000;
    while (query(id).at("/progress/resultsEmitted").asLong() < KEPT + 10
        && System.currentTimeMillis() < deadline) {
      Thread.sleep(100);
    }
    f.delete("/api/queries/" + id);
    try (Socket s = new Socket()) {
      s.send("{\"type\":\"subscribe\",\"id\":\"" + id + "\",\"after\":3}");
      JsonNode gap = s.next("gap", id);
      assertThat(gap.get("from").asLong()).isEqualTo(4);
      long to = gap.get("to").asLong();
      assertThat(to).isGreaterThan(4);
      long seq = s.next("result", id).get("seq").asLong();
      // the query's last results may trim the log once more before the first is sent: that is
      // told by another gap, never skipped silently
      for (JsonNode m : s.skipped) {
        if (m.get("type").asText().equals("gap")) {
          assertThat(m.get("from").asLong()).isEqualTo(to + 1);
          to = m.get("to").asLong();
        }
      }
      assertThat(seq).isEqualTo(to + 1);
      s.next("end", id); // not dropped for being behind: it asked for what is kept
      List<String> errors = new ArrayList<>();
      s.skipped.forEach(
          m -> {
            if (m.get("type").asText().equals("error")) {
              errors.add(m.toString());
            }
          });
      assertThat(errors).isEmpty();
    }
  }

  @Test
  void aQueryThatIsNotTheCallersIsNotFoundWithItsId() throws Exception {
    try (Socket s = new Socket()) {
      s.send("{\"type\":\"subscribe\",\"id\":\"nosuchquery1\"}");
      assertThat(s.next("error", "nosuchquery1").get("status").asInt()).isEqualTo(404);
      s.send("{\"type\":\"nonsense\"}");
      assertThat(s.next("error", null).at("/error/resolution").asText()).contains("unsubscribe");
    }
  }
}
