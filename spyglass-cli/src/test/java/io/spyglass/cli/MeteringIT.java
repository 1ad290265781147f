package io.spyglass.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code spyglass serve --source http} killed with SIGKILL in the middle of ingestion, then started
 * again on the same data folder: the standing query comes back with its state, every document
 * acknowledged with 202 is counted exactly once, and re-sending the unacknowledged ones counts none
 * twice.
 */
class MeteringIT {
  static final String COUNT =
      "SELECT COUNT(*) AS docs, SUM(quantity) AS total FROM STREAM(FOREVER)"
          + " WINDOWING TUMBLING(1h, EVENT_TIME(time), LATENESS 10m)";
  static final int REQUESTS = 400;
  static final int PER_REQUEST = 10;

  @TempDir Path data;
  final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  Spyglass.Running serve() throws Exception {
    return Spyglass.start(
        "serve",
        "--source",
        "http",
        "--port",
        "0",
        "--data",
        data.toString(),
        "--checkpoint-every",
        "200ms");
  }

  static String url(Spyglass.Running s) throws InterruptedException {
    String line = s.awaitLine("the URL", l -> l.startsWith("Spyglass is serving "));
    return line.substring("Spyglass is serving ".length()).strip();
  }

  static String body(int request) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < PER_REQUEST; i++) {
      b.append("{\"id\":\"u")
          .append(request)
          .append('-')
          .append(i)
          .append("\",\"org\":\"o")
          .append(request % 7)
          .append("\",\"quantity\":")
          .append(i + 1)
          .append(",\"time\":")
          .append(1_767_225_600_000L + i) // one window: none final, no document late
          .append("}\n");
    }
    return b.toString();
  }

  int post(String url, int request) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(url + "api/ingest"))
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(body(request)))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    return r.statusCode();
  }

  long[] totals(String url) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(url + "api/standing-queries/usage/results")).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    long[] t = {0, 0};
    for (JsonNode w : Spyglass.parse(r.body())) {
      for (JsonNode rec : w.get("records")) {
        t[0] += rec.path("docs").asLong();
        t[1] += rec.path("total").asLong();
      }
    }
    return t;
  }

  @Test
  void aKilledServerComesBackWithEveryAcknowledgedDocumentCountedOnce() throws Exception {
    ConcurrentLinkedQueue<Integer> unacknowledged = new ConcurrentLinkedQueue<>();
    AtomicLong acknowledged = new AtomicLong();
    try (Spyglass.Running s = serve()) {
      String url = url(s);
      HttpResponse<String> created =
          http.send(
              HttpRequest.newBuilder(URI.create(url + "api/standing-queries"))
                  .header("Content-Type", "application/json")
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          Spyglass.JSON
                              .createObjectNode()
                              .put("name", "usage")
                              .put("query", COUNT)
                              .toString()))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
      ExecutorService clients = Executors.newFixedThreadPool(6);
      AtomicBoolean killed = new AtomicBoolean();
      for (int q = 0; q < REQUESTS; q++) {
        int request = q;
        clients.submit(
            () -> {
              int status = -1;
              if (!killed.get()) {
                try {
                  status = post(url, request);
                } catch (Exception e) {
                  status = -1; // the server died under it
                }
              }
              if (status == 202) {
                acknowledged.incrementAndGet();
              } else {
                unacknowledged.add(request);
              }
              return null;
            });
      }
      // kill it in the middle: once about a third of the requests are acknowledged
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (acknowledged.get() < REQUESTS / 3 && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      s.kill9();
      killed.set(true);
      clients.shutdown();
      assertThat(clients.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(acknowledged.get()).isBetween((long) REQUESTS / 3, (long) REQUESTS - 1);
    assertThat(unacknowledged).hasSize(REQUESTS - (int) acknowledged.get());

    try (Spyglass.Running s = serve()) {
      String url = url(s);
      // re-send the unacknowledged requests, and a few acknowledged ones again
      List<Integer> again = new ArrayList<>(unacknowledged);
      again.addAll(List.of(0, 1, 2));
      for (int request : again) {
        assertThat(post(url, request)).isEqualTo(202);
      }
      long docs = (long) REQUESTS * PER_REQUEST;
      long quantity = (long) REQUESTS * PER_REQUEST * (PER_REQUEST + 1) / 2;
      long[] t = {0, 0};
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (System.nanoTime() < until) {
        t = totals(url);
        if (t[0] >= docs) {
          break;
        }
        Thread.sleep(100);
      }
      Thread.sleep(1_000); // a document counted twice would show by now
      assertThat(totals(url)).containsExactly(docs, quantity);
      s.terminate();
      assertThat(s.awaitExit()).as(s.toString()).isZero();
    }
  }
}
