package io.spyglass.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spyglass.service.http.EdgeGuards;
import io.spyglass.service.http.EdgeSettings;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The web server's pool of threads is bounded by {@code --max-threads}: a burst of result streams
 * opened at once (each a request in flight until its head is answered) waits in the pool's queue
 * instead of growing the pool, whose threads stayed resident until they ended; every stream is
 * answered all the same. A real server on a loopback port, raw sockets.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class WebServerThreadsTest {
  static final int STREAMS = 300;
  static final int MAX_THREADS = EdgeGuards.MIN_THREADS;

  @TempDir Path data;

  @Test
  void aBurstOfStreamsIsAnsweredWithinTheBoundedPool() throws Exception {
    try (ServiceFixture f =
        ServiceFixture.start(
            data,
            b -> {
              b.edge =
                  EdgeSettings.DEFAULTS
                      .withMaxConnectionsPerAddress(STREAMS + 64)
                      .withMaxStreamsPerUser(STREAMS + 64);
              b.guards = EdgeGuards.DEFAULTS.withMaxThreads(MAX_THREADS);
            })) {
      String id = f.submit("SELECT COUNT(*) AS n FROM STREAM(FOREVER) WHERE id = 'none'");
      AtomicBoolean sampling = new AtomicBoolean(true);
      AtomicInteger peak = new AtomicInteger();
      Thread sampler =
          new Thread(
              () -> {
                while (sampling.get()) {
                  peak.accumulateAndGet(poolThreads(), Math::max);
                  LockSupport.parkNanos(2_000_000); // a sample every 2 ms
                }
              });
      sampler.start();
      List<Socket> sockets = new ArrayList<>();
      try {
        String head =
            "GET /api/queries/"
                + id
                + "/results HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n";
        for (int i = 0; i < STREAMS; i++) {
          Socket s = RawHttp.connect("127.0.0.1", f.service.port());
          sockets.add(s);
          RawHttp.send(s, head);
        }
        int answered = 0;
        for (Socket s : sockets) {
          if (statusLine(s).startsWith("HTTP/1.1 200")) {
            answered++;
          }
        }
        sampling.set(false);
        sampler.join();
        assertThat(answered).isEqualTo(STREAMS);
        assertThat(peak.get()).isBetween(1, MAX_THREADS);
        assertThat(f.get("/api/health").statusCode()).isEqualTo(200);
      } finally {
        sampling.set(false);
        for (Socket s : sockets) {
          s.close();
        }
      }
    }
  }

  @Test
  void tooFewThreadsAreRefusedWithWhatToGive() {
    assertThatThrownBy(() -> EdgeGuards.DEFAULTS.withMaxThreads(EdgeGuards.MIN_THREADS - 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--max-threads must be at least " + EdgeGuards.MIN_THREADS);
    assertThat(EdgeGuards.DEFAULTS.maxThreads())
        .isEqualTo(Math.max(64, 8 * Runtime.getRuntime().availableProcessors()));
  }

  /** The live threads of the web server's pool. */
  static int poolThreads() {
    int n = 0;
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().startsWith("JettyServerThreadPool")) {
        n++;
      }
    }
    return n;
  }

  /** The first line of the answer on {@code s}. */
  static String statusLine(Socket s) throws Exception {
    InputStream in = s.getInputStream();
    StringBuilder line = new StringBuilder();
    int c;
    while ((c = in.read()) >= 0 && c != '\n') {
      line.append((char) c);
    }
    return new String(line.toString().getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8)
        .strip();
  }
}
