package io.spyglass.service.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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
 * output buffer (32 KiB, kept by the servlet's buffered writes).
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
}
