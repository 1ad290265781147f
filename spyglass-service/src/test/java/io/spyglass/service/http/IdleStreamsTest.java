package io.spyglass.service.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.jetty.io.ArrayByteBufferPool;
import org.eclipse.jetty.io.ByteBufferPool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A result stream that waits for its query's next result holds no buffer: ten thousand idle streams
 * (each having had a result) held 40 KiB each, 400 MiB of the service's memory for nothing: the
 * buffer the connection read the request into (8 KiB, kept by Jetty for the response's life) and an
 * output buffer (32 KiB, kept by the servlet's buffered writes). Nor does it hold its request's
 * objects (about 7 KiB more each): once its head is answered, its connection is the stream's.
 */
class IdleStreamsTest {
  @TempDir Path data;

  private static long inUse(ByteBufferPool pool) {
    ArrayByteBufferPool p = (ArrayByteBufferPool) pool;
    return p.getDirectMemory()
        - p.getAvailableDirectMemory()
        + p.getHeapMemory()
        - p.getAvailableHeapMemory();
  }

  private static long directMemory() {
    long used = 0;
    for (java.lang.management.BufferPoolMXBean b :
        java.lang.management.ManagementFactory.getPlatformMXBeans(
            java.lang.management.BufferPoolMXBean.class)) {
      if (b.getName().equals("direct")) {
        used += b.getMemoryUsed();
      }
    }
    return used;
  }

  @Test
  void anIdleResultStreamHoldsNoBuffer() throws Exception {
    try (LiveService s = new LiveService(data)) {
      assertThat(s.server().bufferPool()).isInstanceOf(ArrayByteBufferPool.class);
      String base = "http://127.0.0.1:" + s.service.port();
      HttpResponse<String> submitted =
          s.http.send(
              HttpRequest.newBuilder(URI.create(base + "/api/queries?detached=true"))
                  .header("Content-Type", "text/plain")
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          "SELECT COUNT(*) AS n FROM STREAM(FOREVER) WINDOWING TUMBLING(1000, TIME)"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      String id = LiveService.JSON.readTree(submitted.body()).get("id").asText();
      long before = inUse(s.server().bufferPool());
      long directBefore = directMemory();
      int n = 50;
      List<HttpResponse<InputStream>> streams = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        HttpResponse<InputStream> r =
            s.http.send(
                HttpRequest.newBuilder(URI.create(base + "/api/queries/" + id + "/results"))
                    .header("Accept", "text/event-stream")
                    .build(),
                HttpResponse.BodyHandlers.ofInputStream());
        assertThat(r.statusCode()).isEqualTo(200);
        streams.add(r);
      }
      LiveService.await("every stream to be a client", () -> s.query(id).clients() == n);
      for (HttpResponse<InputStream> r : streams) { // each got a result: what it holds after one
        java.io.BufferedReader in =
            new java.io.BufferedReader(
                new java.io.InputStreamReader(r.body(), java.nio.charset.StandardCharsets.UTF_8));
        String line;
        do {
          line = in.readLine();
        } while (line != null && !line.startsWith("data: "));
        assertThat(line).isNotNull();
      }
      long held = inUse(s.server().bufferPool()) - before;
      assertThat(held)
          .as("bytes of pooled buffers held by %d idle result streams", n)
          .isLessThan(n * 1024L);
      assertThat(directMemory() - directBefore)
          .as("direct memory taken while %d idle result streams are open", n)
          .isLessThan(n * 8192L);
      for (HttpResponse<InputStream> r : streams) {
        r.body().close();
      }
    }
  }

  private static String submit(LiveService s, String bql) throws Exception {
    HttpResponse<String> submitted =
        s.http.send(
            HttpRequest.newBuilder(
                    URI.create(
                        "http://127.0.0.1:" + s.service.port() + "/api/queries?detached=true"))
                .header("Content-Type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofString(bql))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(submitted.statusCode()).isEqualTo(201);
    return LiveService.JSON.readTree(submitted.body()).get("id").asText();
  }

  /** Opens a result stream on a plain socket; returns it once the answer's head was read. */
  private static Socket openStream(LiveService s, String id) throws Exception {
    Socket socket = new Socket();
    socket.connect(new InetSocketAddress("127.0.0.1", s.service.port()), 10_000);
    socket.setSoTimeout(20_000);
    OutputStream out = socket.getOutputStream();
    out.write(
        ("GET /api/queries/"
                + id
                + "/results HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII));
    out.flush();
    InputStream in = socket.getInputStream();
    String head = head(in);
    String h = head.toLowerCase(java.util.Locale.ROOT);
    assertThat(h).startsWith("http/1.1 200").contains("content-type: text/event-stream");
    // the body is the events until the connection's end: no length, no chunks
    assertThat(h).doesNotContain("content-length").doesNotContain("transfer-encoding");
    return socket;
  }

  @Test
  void anOpenResultStreamHoldsNoneOfItsRequest() throws Exception {
    try (LiveService s = new LiveService(data)) {
      String id =
          submit(s, "SELECT COUNT(*) AS n FROM STREAM(FOREVER) WINDOWING TUMBLING(500, TIME)");
      int n = 20;
      List<Socket> sockets = new ArrayList<>();
      try {
        for (int i = 0; i < n; i++) {
          sockets.add(openStream(s, id));
        }
        LiveService.await("every stream to be a client", () -> s.query(id).clients() == n);
        LiveService.await(
            "every stream's connection to be served by the stream, its request let go",
            () ->
                s.server().connections().stream().filter(c -> c instanceof SseStream).count() == n);
        for (Socket socket : sockets) { // and each gets its results
          java.io.BufferedReader in =
              new java.io.BufferedReader(
                  new java.io.InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
          String line;
          do {
            line = in.readLine();
          } while (line != null && !line.startsWith("data: "));
          assertThat(line).isNotNull();
          assertThat(LiveService.JSON.readTree(line.substring(6)).path("records").isArray())
              .isTrue();
        }
      } finally {
        for (Socket socket : sockets) {
          socket.close();
        }
      }
    }
  }

  /**
   * A keep-alive connection between requests holds no cache of its own header fields: Jetty's
   * (1,024 entries) is a 96 KiB table made at a connection's second request and kept while it stays
   * open, about 100 MB for a thousand idle clients that keep their connections.
   */
  @Test
  void anIdleKeepAliveConnectionHoldsNoHeaderCache() throws Exception {
    try (LiveService s = new LiveService(data)) {
      int n = 10;
      List<Socket> sockets = new ArrayList<>();
      try {
        for (int i = 0; i < n; i++) {
          Socket socket = new Socket();
          socket.connect(new InetSocketAddress("127.0.0.1", s.service.port()), 10_000);
          socket.setSoTimeout(20_000);
          for (int r = 0; r < 3; r++) {
            assertThat(health(socket)).contains("\"status\"");
          }
          sockets.add(socket);
        }
        List<org.eclipse.jetty.server.internal.HttpConnection> open =
            s.server().connections().stream()
                .filter(c -> c instanceof org.eclipse.jetty.server.internal.HttpConnection)
                .map(c -> (org.eclipse.jetty.server.internal.HttpConnection) c)
                .toList();
        assertThat(open).as("the idle keep-alive connections").hasSizeGreaterThanOrEqualTo(n);
        // Jetty's shared empty table where there is none; the cache, when there is one, holds
        // the fields of the requests after the first
        assertThat(open)
            .allSatisfy(
                c -> {
                  org.eclipse.jetty.util.Index<?> cache = c.getParser().getFieldCache();
                  assertThat(cache == null || cache.isEmpty())
                      .as("no header cache: %s", cache)
                      .isTrue();
                });
      } finally {
        for (Socket socket : sockets) {
          socket.close();
        }
      }
    }
  }

  /** An answer's head, up to its blank line, read from {@code in}. */
  private static String head(InputStream in) throws Exception {
    StringBuilder head = new StringBuilder();
    while (!head.toString().endsWith("\r\n\r\n")) {
      int b = in.read();
      assertThat(b).as("the answer's head, so far: %s", head).isNotNegative();
      head.append((char) b);
    }
    return head.toString();
  }

  /** One {@code GET /api/health} on a kept-alive {@code socket}: the answer's body. */
  private static String health(Socket socket) throws Exception {
    OutputStream out = socket.getOutputStream();
    out.write(
        ("GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n"
                + "User-Agent: keep-alive-probe\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII));
    out.flush();
    InputStream in = socket.getInputStream();
    String head = head(in);
    java.util.regex.Matcher length =
        java.util.regex.Pattern.compile("(?i)content-length: *(\\d+)").matcher(head);
    assertThat(length.find()).as("a length in %s", head).isTrue();
    byte[] body = in.readNBytes(Integer.parseInt(length.group(1)));
    return new String(body, StandardCharsets.UTF_8);
  }

  @Test
  void aClientThatClosesItsStreamIsNoLongerAClientAtOnce() throws Exception {
    // no heartbeat for ten minutes: only the connection's end can tell that the client left
    try (LiveService s =
        new LiveService(data, b -> b.streams = new StreamSettings(1_000, 600_000, 600_000))) {
      String id = submit(s, "SELECT COUNT(*) AS n FROM STREAM(FOREVER) WHERE id = 'none such'");
      Socket socket = openStream(s, id);
      LiveService.await("the stream to be a client", () -> s.query(id).clients() == 1);
      assertThat(s.server().openStreams()).isEqualTo(1);
      socket.close();
      LiveService.await("the stream to have left", () -> s.query(id).clients() == 0);
      LiveService.await("no stream to be open", () -> s.server().openStreams() == 0);
    }
  }
}
