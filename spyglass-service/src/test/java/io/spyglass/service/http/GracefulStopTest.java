package io.spyglass.service.http;

import static io.spyglass.service.http.LiveService.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.spyglass.service.SpyglassService;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A graceful stop writes every answer in flight before the server stops: the results of a {@code
 * POST /api/query} whose query the stop ended, and a WebSocket's last result and {@code end}. Each
 * test holds the answer back until the stop has begun (a hook), so that a stop that does not wait
 * for it cuts it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class GracefulStopTest {
  @TempDir Path data;
  LiveService live;
  SpyglassService service;

  @BeforeEach
  void start() throws Exception {
    live = new LiveService(data);
    service = live.service;
  }

  @AfterEach
  void stop() {
    live.close();
  }

  /** Holds the calling thread until the stop waits for answers (or, if it does not, has ended). */
  private Runnable untilTheStopBegins() {
    ApiServer server = service.server();
    return () -> CompletableFuture.anyOf(server.draining(), server.stopped()).join();
  }

  @Test
  void aPostQueryInFlightAtTheStopGetsItsResultsTheLastFinal() throws Exception {
    service.server().queriesApi().beforeAnswer = untilTheStopBegins();
    CompletableFuture<HttpResponse<String>> run =
        live.http.sendAsync(
            HttpRequest.newBuilder(URI.create(service.url() + "api/query"))
                .header("Content-Type", "text/plain")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "SELECT COUNT(*) AS n FROM STREAM(MAX, TIME) WINDOWING TUMBLING(100,"
                            + " TIME)"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    await(
        "a window's result",
        () -> service.queries().memory().used() > 0 && service.queries().running() == 1);

    assertThat(service.shutdown(10_000)).isTrue();

    HttpResponse<String> ran = run.get(10, TimeUnit.SECONDS);
    assertThat(ran.statusCode()).as(ran.body()).isEqualTo(200);
    JsonNode all = LiveService.JSON.readTree(ran.body());
    assertThat(all.size()).isGreaterThanOrEqualTo(1);
    JsonNode last = all.get(all.size() - 1);
    assertThat(last.at("/meta/final").asBoolean()).isTrue();
    assertThat(last.at("/meta/errors/0/message").asText()).startsWith("The service stopped");
  }

  @Test
  void aWebSocketGetsItsQuerysLastResultAndEndBeforeTheStopClosesIt() throws Exception {
    service.server().webSockets().beforeEnd = untilTheStopBegins();
    try (LiveService.Socket s = live.socket()) {
      String id = s.submit("SELECT COUNT(*) AS n FROM STREAM(MAX, TIME)");

      // a socket open at the stop is not an answer in flight: the stop does not wait for its close
      assertThat(service.shutdown(10_000)).isTrue();

      JsonNode last = s.next("result", id);
      while (!last.at("/result/meta/final").asBoolean()) {
        last = s.next("result", id);
      }
      assertThat(last.at("/result/meta/errors/0/message").asText())
          .startsWith("The service stopped");
      s.next("end", id);
    }
  }
}
