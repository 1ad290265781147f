package io.spyglass.sinks;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.SpyglassClock;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The sinks' own HTTP/1.1 client against a real receiver on a loopback port that answers in each of
 * the ways HTTP/1.1 allows (a body of a given length, chunked, until the connection closes, an
 * interim 100 first, closing after each answer, never answering): every document delivered once,
 * connections kept alive where the receiver keeps them, a silent receiver timed out and tried
 * again.
 */
class Http1ClientTest {
  private static final DeliverySettings QUICK =
      DeliverySettings.DEFAULTS.withRetries(50, 60_000, 5, 100).withRequestTimeoutMs(10_000);

  private final List<AutoCloseable> open = new ArrayList<>();

  private <T extends AutoCloseable> T closing(T t) {
    open.add(t);
    return t;
  }

  @AfterEach
  void closeAll() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
  }

  /**
   * A receiver on raw sockets: reads each request (head and {@code Content-Length} body), records
   * it, and writes what {@code answer} gives for the request's index, then closes the connection
   * when {@code closeAfter} says so.
   */
  static final class RawReceiver implements AutoCloseable {
    final ServerSocket server;
    final AtomicInteger connections = new AtomicInteger();
    final List<String> requests = new CopyOnWriteArrayList<>();
    final AtomicInteger count = new AtomicInteger();
    volatile IntFunction<String> answer = i -> "HTTP/1.1 204 No Content\r\n\r\n";
    volatile boolean closeAfter;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    RawReceiver() throws IOException {
      server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      Thread t = new Thread(this::accept, "raw-receiver");
      t.setDaemon(true);
      t.start();
    }

    String url() {
      return "http://127.0.0.1:" + server.getLocalPort() + "/hook?x=1";
    }

    private void accept() {
      while (!server.isClosed()) {
        try {
          Socket s = server.accept();
          sockets.add(s);
          connections.incrementAndGet();
          Thread t = new Thread(() -> serve(s), "raw-receiver-conn");
          t.setDaemon(true);
          t.start();
        } catch (IOException e) {
          return;
        }
      }
    }

    private void serve(Socket s) {
      try (s;
          InputStream in = s.getInputStream();
          OutputStream out = s.getOutputStream()) {
        while (true) {
          String head = readHead(in);
          if (head == null) {
            return;
          }
          int length = 0;
          for (String line : head.split("\r\n")) {
            if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
              length = Integer.parseInt(line.substring(15).strip());
            }
          }
          byte[] body = in.readNBytes(length);
          requests.add(head + "\r\n\r\n" + new String(body, StandardCharsets.UTF_8));
          String a = answer.apply(count.getAndIncrement());
          if (a == null) {
            continue; // no answer: the client times out
          }
          out.write(a.getBytes(StandardCharsets.ISO_8859_1));
          out.flush();
          if (closeAfter || a.contains("Connection: close")) {
            return;
          }
        }
      } catch (IOException e) {
        // the client went away
      }
    }

    private static String readHead(InputStream in) throws IOException {
      ByteArrayOutputStream b = new ByteArrayOutputStream();
      int c;
      while ((c = in.read()) >= 0) {
        b.write(c);
        if (c == '\n' && b.size() >= 4) {
          byte[] a = b.toByteArray();
          int n = a.length;
          if (a[n - 4] == '\r' && a[n - 3] == '\n' && a[n - 2] == '\r') {
            return new String(a, 0, n - 4, StandardCharsets.ISO_8859_1);
          }
        }
      }
      return null;
    }

    @Override
    public void close() throws IOException {
      server.close();
      for (Socket s : sockets) {
        s.close();
      }
    }
  }

  private QuerySinks query(String id, RawReceiver r, DeliverySettings settings) {
    Sinks sinks = closing(new Sinks(settings, SinkPolicy.unrestricted()));
    return sinks.forQuery(id, List.of(SinkSpec.webhook(r.url())));
  }

  private static void offer(QuerySinks q, int n) {
    for (int i = 1; i <= n; i++) {
      q.offer(Results.window(q.queryId(), i, i == n));
    }
  }

  @Test
  void theRequestIsAPostWithTheDocumentAndItsHeaders() throws Exception {
    RawReceiver r = closing(new RawReceiver());
    QuerySinks q = query("q", r, QUICK);
    io.spyglass.core.result.Result result = Results.window("q", 1, true);
    String doc =
        QuerySinks.keysOnly("q").document(result.meta(), SinkDocument.resultJson(result)).text();
    q.offer(result);
    Await.until("delivered", () -> q.stats().get(0).delivered() == 1);
    String req = r.requests.get(0);
    assertThat(req).startsWith("POST /hook?x=1 HTTP/1.1\r\n");
    assertThat(req).contains("\r\nHost: 127.0.0.1:" + r.server.getLocalPort() + "\r\n");
    assertThat(req).contains("\r\nContent-Type: application/json\r\n");
    assertThat(req).contains("\r\nIdempotency-Key: q:1\r\n");
    assertThat(req).contains("\r\nUser-Agent: Spyglass\r\n");
    assertThat(req).endsWith("\r\n\r\n" + doc);
  }

  @Test
  void answersWithABodyOfAGivenLengthOrChunkedKeepTheConnection() throws Exception {
    RawReceiver r = closing(new RawReceiver());
    r.answer =
        i ->
            switch (i % 4) {
              case 0 -> "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
              case 1 ->
                  "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                      + "2;x=y\r\nok\r\n3\r\n!!!\r\n0\r\nTrailer: t\r\n\r\n";
              case 2 ->
                  "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n";
              default -> "HTTP/1.1 204 No Content\r\n\r\n";
            };
    QuerySinks q = query("q", r, QUICK);
    offer(q, 12);
    Await.until("delivered", () -> q.stats().get(0).delivered() == 12);
    assertThat(r.requests).hasSize(12);
    assertThat(q.stats().get(0).retried()).isZero();
    assertThat(r.connections.get()).as("one connection, kept alive").isEqualTo(1);
  }

  @Test
  void aReceiverThatClosesAfterEachAnswerGetsEveryDocument() throws Exception {
    RawReceiver r = closing(new RawReceiver());
    r.answer =
        i ->
            i % 2 == 0
                ? "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
                : "HTTP/1.0 200 OK\r\n\r\nbody until the connection closes";
    r.closeAfter = true;
    QuerySinks q = query("q", r, QUICK);
    offer(q, 6);
    Await.until("delivered", () -> q.stats().get(0).delivered() == 6);
    assertThat(r.requests).hasSize(6);
    assertThat(r.connections.get()).isEqualTo(6);
  }

  @Test
  void statusesAreReadAsTheJdkClientReadsThem() throws Exception {
    RawReceiver r = closing(new RawReceiver());
    r.answer =
        i ->
            switch (i) {
              case 0 -> "HTTP/1.1 503 Busy\r\nRetry-After: 0\r\nContent-Length: 4\r\n\r\nbusy";
              case 1 -> "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
              default -> "HTTP/1.1 400 Bad\r\nContent-Length: 0\r\n\r\n";
            };
    QuerySinks q = query("q", r, QUICK);
    offer(q, 2);
    Await.until("both tried", () -> q.stats().get(0).pending() == 0);
    SinkStats s = q.stats().get(0);
    assertThat(s.retried()).isEqualTo(1);
    assertThat(s.delivered()).isEqualTo(1);
    assertThat(s.dropped()).isEqualTo(1);
    assertThat(s.lastError()).contains("answered 400");
  }

  @Test
  void aReceiverThatNeverAnswersIsTimedOutOnTheSinksClockAndTriedAgain() throws Exception {
    RawReceiver r = closing(new RawReceiver());
    r.answer = i -> i == 0 ? null : "HTTP/1.1 204 No Content\r\n\r\n";
    AtomicLong nanos = new AtomicLong();
    Sinks sinks =
        closing(
            new Sinks(QUICK, SinkPolicy.unrestricted(), new SpyglassClock(() -> 0L, nanos::get)));
    QuerySinks q = sinks.forQuery("q", List.of(SinkSpec.webhook(r.url())));
    offer(q, 1);
    Await.until("the first request", () -> r.requests.size() == 1);
    // its 10 s are up on the sinks' clock, not on the wall: it times out now
    nanos.addAndGet(TimeUnit.SECONDS.toNanos(11));
    Await.until("delivered", () -> q.stats().get(0).delivered() == 1);
    SinkStats s = q.stats().get(0);
    assertThat(s.retried()).isEqualTo(1);
    assertThat(s.lastError()).contains("timed out");
    assertThat(r.requests).hasSize(2);
  }

  @Test
  void anIdleConnectionTheReceiverClosedIsNotUsedAgain() throws Exception {
    RawReceiver r = closing(new RawReceiver());
    QuerySinks q = query("q", r, QUICK);
    q.offer(Results.window("q", 1, false));
    Await.until("the first delivered", () -> q.stats().get(0).delivered() == 1);
    for (Socket s : r.sockets) { // the receiver closes its idle connection
      s.close();
    }
    q.offer(Results.window("q", 2, true));
    Await.until("the second delivered", () -> q.stats().get(0).delivered() == 2);
    assertThat(r.connections.get()).isEqualTo(2);
  }

  @Test
  void aHeaderValueWithALineBreakIsRefused() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () ->
                Http1Client.head(
                    java.net.URI.create("http://h/x"), List.of("Idempotency-Key", "a\r\nb"), 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Idempotency-Key");
  }
}
