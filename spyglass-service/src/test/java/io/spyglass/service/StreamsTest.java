package io.spyglass.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.spyglass.service.ServiceFixture.Event;
import io.spyglass.service.ServiceFixture.Sse;
import io.spyglass.service.http.StreamSettings;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
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
 * Clients that leave, read slowly or not at all, send headers a byte a second, and WebSocket
 * clients: over a real server, with raw sockets where an HTTP client would be too polite.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StreamsTest {
  /** Long enough that a test's client subscribes within it on a loaded machine. */
  static final long GRACE_MS = 1_000;

  @TempDir static Path data;
  static ServiceFixture f;

  @BeforeAll
  static void start() throws Exception {
    f =
        ServiceFixture.start(
            data,
            b -> {
              b.graceMs = GRACE_MS;
              b.streams = new StreamSettings(8, 4_000, 200);
              b.headerTimeoutMs = 1_500;
            });
  }

  @AfterAll
  static void stop() {
    f.close();
  }

  private static JsonNode query(String id) {
    return ServiceFixture.json(f.get("/api/queries/" + id).body());
  }

  private static void awaitState(String id, String state) throws InterruptedException {
    long deadline = System.currentTimeMillis() + 10_000;
    while (!query(id).get("state").asText().equals(state)
        && System.currentTimeMillis() < deadline) {
      Thread.sleep(50);
    }
    assertThat(query(id).get("state").asText()).isEqualTo(state);
  }

  @Test
  void aQueryWhoseLastClientLeftEndsAfterTheGracePeriodUnlessDetached() throws Exception {
    String detached =
        f.submit("SELECT COUNT(*) FROM STREAM(MAX, TIME) WINDOWING TUMBLING(200, TIME)", true);
    String attached = null;
    Sse reading = null;
    for (int attempt = 0; attempt < 5 && reading == null; attempt++) {
      String id = f.submit("SELECT COUNT(*) FROM STREAM(MAX, TIME) WINDOWING TUMBLING(200, TIME)");
      Sse s = f.sse(id);
      Event first = s.next();
      assertThat(first.event()).isEqualTo("result");
      if (first.isFinal()) {
        s.close(); // a loaded machine took longer than the grace period to subscribe: again
      } else {
        attached = id;
        reading = s;
      }
    }
    assertThat(reading).as("a subscription within the grace period").isNotNull();
    try (Sse sse = reading) {
      Thread.sleep(GRACE_MS * 3 / 2); // longer than the grace period: a client keeps it alive
      assertThat(query(attached).get("state").asText()).isEqualTo("running");
      assertThat(query(attached).get("clients").asInt()).isEqualTo(1);
      assertThat(sse.next().isFinal()).isFalse(); // and its results go on
    }
    awaitState(attached, "stopped");
    Thread.sleep(GRACE_MS * 3 / 2);
    assertThat(query(detached).get("state").asText()).isEqualTo("running");
    // a query nobody ever subscribed to ends too
    String never = f.submit("SELECT COUNT(*) FROM STREAM(MAX, TIME)");
    awaitState(never, "stopped");
    f.delete("/api/queries/" + detached);
    awaitState(detached, "stopped");
    JsonNode history = ServiceFixture.json(f.get("/api/history").body()).get("history");
    List<String> states = new ArrayList<>();
    history.forEach(h -> states.add(h.get("id").asText() + "=" + h.get("state").asText()));
    assertThat(states).contains(attached + "=stopped", detached + "=stopped");
  }

  @Test
  void aRunRequestWhoseClientLeftEndsItsQueryAfterTheGracePeriod() throws Exception {
    String text = "SELECT COUNT(*) AS gone FROM STREAM(MAX, TIME)";
    String id = null;
    try (Socket client = new Socket("127.0.0.1", f.service.port())) {
      byte[] body = text.getBytes(StandardCharsets.UTF_8);
      OutputStream out = client.getOutputStream();
      out.write(
          ("POST /api/query HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nContent-Length: "
                  + body.length
                  + "\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.write(body);
      out.flush();
      long deadline = System.currentTimeMillis() + 10_000;
      while (id == null && System.currentTimeMillis() < deadline) {
        for (JsonNode q : ServiceFixture.json(f.get("/api/queries").body()).get("queries")) {
          if (q.get("query").asText().equals(text) && q.get("state").asText().equals("running")) {
            id = q.get("id").asText();
          }
        }
        Thread.sleep(20);
      }
      assertThat(id).as("the query of the run request").isNotNull();
      Thread.sleep(
          GRACE_MS * 3 / 2); // longer than the grace period: a waiting client keeps it alive
      assertThat(query(id).get("state").asText()).isEqualTo("running");
    }
    // the client left without its answer: the query ends, as if its stream had closed
    awaitState(id, "stopped");
  }

  @Test
  void aClientThatNeverReadsIsDroppedWithAnErrorEventAndSlowsNobody() throws Exception {
    // about 300 KB a second of results: a client that does not read fills its connection fast
    String id =
        f.submit("SELECT * FROM STREAM(MAX, TIME) WINDOWING TUMBLING(100, TIME) LIMIT 1000", true);
    long droppedBefore = f.service.metrics().droppedClients();
    BlockingQueue<Event> fastEvents = new LinkedBlockingQueue<>();
    try (Socket slow = new Socket();
        Sse fast = f.sse(id)) {
      Thread reader =
          new Thread(
              () -> {
                try {
                  Event e;
                  while ((e = fast.next()) != null) {
                    fastEvents.add(e);
                  }
                } catch (IOException e) {
                  // closed at the end of the test
                }
              });
      reader.start();
      while (fastEvents.isEmpty()) {
        Thread.sleep(20);
      }
      int streamsBefore = f.service.server().openStreams();
      slow.setReceiveBufferSize(4096);
      slow.connect(new InetSocketAddress("127.0.0.1", f.service.port()));
      OutputStream out = slow.getOutputStream();
      out.write(
          ("GET /api/queries/" + id + "/results HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      long read0 = f.service.runtime().stats().recordsRead();
      long t0 = System.nanoTime();
      long deadline = System.currentTimeMillis() + 20_000;
      while (f.service.metrics().droppedClients() == droppedBefore
          && System.currentTimeMillis() < deadline) {
        Thread.sleep(20);
      }
      assertThat(f.service.metrics().droppedClients()).isEqualTo(droppedBefore + 1);
      // the engine kept reading at the source's pace (2,000 records/s), whatever the slow client
      double seconds = (System.nanoTime() - t0) / 1e9;
      long read = f.service.runtime().stats().recordsRead() - read0;
      assertThat(read).isGreaterThan((long) (2_000 * seconds * 0.5));
      // the server let go of the slow stream at once, its error event queued behind what the
      // client had not read: the client, reading at last, finds it at the end of its stream
      long until0 = System.currentTimeMillis() + 2_000;
      while (f.service.server().openStreams() > streamsBefore
          && System.currentTimeMillis() < until0) {
        Thread.sleep(20);
      }
      assertThat(f.service.server().openStreams()).isEqualTo(streamsBefore);
      Thread.sleep(500);
      String text = readToEnd(slow.getInputStream());
      assertThat(text).startsWith("HTTP/1.1 200");
      int last = text.lastIndexOf("event: ");
      assertThat(text.substring(last)).startsWith("event: error\ndata: {");
      String data = text.substring(text.indexOf("data: ", last) + 6);
      JsonNode error = ServiceFixture.json(data.substring(0, data.indexOf('\n'))).get("error");
      assertThat(error.get("message").asText()).contains("too far behind");
      assertThat(error.get("resolution").asText()).contains("Last-Event-ID");
      // the fast client read every result, in order, meanwhile, and goes on
      int before = fastEvents.size();
      long until = System.currentTimeMillis() + 5_000;
      while (fastEvents.size() < before + 3 && System.currentTimeMillis() < until) {
        Thread.sleep(20);
      }
      List<Event> seen = new ArrayList<>(fastEvents);
      assertThat(seen.size()).isGreaterThan(before).isGreaterThan(10);
      for (int i = 0; i < seen.size(); i++) {
        assertThat(seen.get(i).id()).isEqualTo(Integer.toString(i + 1));
      }
    }
    assertThat(f.get("/metrics").body())
        .contains("spyglass_stream_clients_dropped_total{stream=\"sse\"} 1.0");
    f.delete("/api/queries/" + id);
  }

  private static String readToEnd(InputStream in) throws IOException {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    byte[] b = new byte[65536];
    int n;
    while ((n = in.read(b)) >= 0) {
      buf.write(b, 0, n);
    }
    return buf.toString(StandardCharsets.UTF_8);
  }

  @Test
  void aClientSendingHeadersAByteASecondIsClosedAndOthersAreServed() throws Exception {
    long closedBefore = f.service.server().slowHeadersClosed();
    // more half-sent request heads than the server has threads (250 at most)
    List<Socket> crowd = new ArrayList<>();
    try (Socket slow = new Socket("127.0.0.1", f.service.port())) {
      for (int i = 0; i < 300; i++) {
        Socket s = new Socket("127.0.0.1", f.service.port());
        crowd.add(s);
        s.getOutputStream()
            .write("GET /api/health HTTP/1.1\r\nHo".getBytes(StandardCharsets.US_ASCII));
        s.getOutputStream().flush();
      }
      byte[] head =
          "GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
      slow.setSoTimeout(10_000);
      boolean closed = false;
      for (int i = 0; i < head.length && !closed; i++) {
        try {
          slow.getOutputStream().write(head[i]);
          slow.getOutputStream().flush();
        } catch (IOException e) {
          closed = true;
          break;
        }
        // meanwhile, everyone else is answered at once
        HttpResponse<String> health = f.get("/api/health");
        assertThat(health.statusCode()).isEqualTo(200);
        Thread.sleep(1_000);
        if (f.service.server().slowHeadersClosed() > closedBefore) {
          closed = true;
        }
      }
      assertThat(closed).isTrue();
      assertThat(slow.getInputStream().read()).isEqualTo(-1); // closed without an answer
      for (Socket s : crowd) {
        s.setSoTimeout(10_000);
        assertThat(s.getInputStream().read()).isEqualTo(-1);
      }
    } finally {
      for (Socket s : crowd) {
        s.close();
      }
    }
    assertThat(f.service.server().slowHeadersClosed()).isEqualTo(closedBefore + 1 + crowd.size());
  }

  @Test
  void aConnectionThatSendsNothingIsClosedAfterTheHeadDeadline() throws Exception {
    try (Socket silent = new Socket("127.0.0.1", f.service.port())) {
      silent.setSoTimeout(20_000);
      assertThat(silent.getInputStream().read()).isEqualTo(-1); // closed, without an answer
    }
  }

  @Test
  void oneWebSocketCarriesManyQueries() throws Exception {
    BlockingQueue<JsonNode> got = new LinkedBlockingQueue<>();
    SKIPPED.clear();
    WebSocket ws =
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
    // one message at a time: a WebSocket refuses a send while the previous one is in progress
    ws.sendText(
            "{\"type\":\"submit\",\"query\":\"SELECT COUNT(*) AS n FROM STREAM(600, TIME)"
                + " WINDOWING TUMBLING(200, TIME)\"}",
            true)
        .get(5, TimeUnit.SECONDS);
    ws.sendText(
            "{\"type\":\"submit\",\"query\":\"SELECT COUNT(*) AS n FROM STREAM(MAX, TIME)\"}", true)
        .get(5, TimeUnit.SECONDS);
    ws.sendText("{\"type\":\"submit\",\"query\":\"SELECT FOO(x) FROM STREAM()\"}", true)
        .get(5, TimeUnit.SECONDS);
    JsonNode a = next(got, "accepted");
    JsonNode b = next(got, "accepted");
    String windowed = a.get("id").asText();
    String forever = b.get("id").asText();
    JsonNode invalid = next(got, "error");
    assertThat(invalid.get("status").asInt()).isEqualTo(422);
    assertThat(invalid.get("errors").get(0).get("column").asInt()).isEqualTo(8);
    ws.sendText("{\"type\":\"kill\",\"id\":\"" + forever + "\"}", true).get(5, TimeUnit.SECONDS);
    // both queries' results arrive on the one socket, each query ending with its final result
    List<JsonNode> windowedResults = new ArrayList<>();
    List<JsonNode> foreverResults = new ArrayList<>();
    int ends = 0;
    while (ends < 2) {
      JsonNode m = poll(got);
      assertThat(m).isNotNull();
      switch (m.get("type").asText()) {
        case "result" ->
            (m.get("id").asText().equals(windowed) ? windowedResults : foreverResults).add(m);
        case "end" -> ends++;
        case "killed" -> assertThat(m.get("id").asText()).isEqualTo(forever);
        default -> throw new AssertionError("unexpected " + m);
      }
    }
    assertThat(windowedResults).hasSizeGreaterThanOrEqualTo(2);
    assertThat(windowedResults.get(windowedResults.size() - 1).at("/result/meta/final").asBoolean())
        .isTrue();
    assertThat(foreverResults).hasSize(1);
    assertThat(foreverResults.get(0).at("/result/meta/final").asBoolean()).isTrue();
    for (int i = 0; i < windowedResults.size(); i++) {
      assertThat(windowedResults.get(i).get("seq").asLong()).isEqualTo(i + 1);
    }
    ws.sendText("{\"type\":\"kill\",\"id\":\"nope\"}", true).get(5, TimeUnit.SECONDS);
    assertThat(next(got, "error").get("status").asInt()).isEqualTo(404);
    ws.sendText("not json", true).get(5, TimeUnit.SECONDS);
    assertThat(next(got, "error").get("status").asInt()).isEqualTo(400);
    ws.sendClose(WebSocket.NORMAL_CLOSURE, "bye").get(5, TimeUnit.SECONDS);
  }

  /** Messages taken from the socket but not yet looked at by the test. */
  private static final java.util.Deque<JsonNode> SKIPPED = new java.util.ArrayDeque<>();

  /** The next message of a type; others taken meanwhile stay for {@link #poll}. */
  private static JsonNode next(BlockingQueue<JsonNode> got, String type)
      throws InterruptedException {
    for (JsonNode m : SKIPPED) {
      if (m.get("type").asText().equals(type)) {
        SKIPPED.remove(m);
        return m;
      }
    }
    while (true) {
      JsonNode m = got.poll(10, TimeUnit.SECONDS);
      assertThat(m).as("a %s message (came instead: %s)", type, SKIPPED).isNotNull();
      if (m.get("type").asText().equals(type)) {
        return m;
      }
      SKIPPED.add(m);
    }
  }

  /** The next message in order, skipped ones first. */
  private static JsonNode poll(BlockingQueue<JsonNode> got) throws InterruptedException {
    return SKIPPED.isEmpty() ? got.poll(10, TimeUnit.SECONDS) : SKIPPED.poll();
  }
}
