package io.spyglass.service.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.spyglass.engine.EngineConfig;
import io.spyglass.engine.source.GeneratorSource;
import io.spyglass.service.ServiceConfig;
import io.spyglass.service.SpyglassService;
import io.spyglass.service.runtime.EmbeddedRuntime;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
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
  static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path data;
  SpyglassService service;
  final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  @BeforeEach
  void start() throws Exception {
    EmbeddedRuntime runtime =
        EmbeddedRuntime.start(
            new GeneratorSource(
                GeneratorSource.Options.DEFAULTS.withRate(2_000).withRecordBytes(300)),
            EngineConfig.defaults().withWorkers(1).withTickMs(20));
    service =
        SpyglassService.start(
            ServiceConfig.defaults()
                .with(
                    b -> {
                      b.port = 0;
                      b.dataDir = data;
                    }),
            runtime);
  }

  @AfterEach
  void stop() {
    service.close();
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
        http.sendAsync(
            HttpRequest.newBuilder(URI.create(service.url() + "api/query"))
                .header("Content-Type", "text/plain")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "SELECT COUNT(*) AS n FROM STREAM(MAX, TIME) WINDOWING TUMBLING(100,"
                            + " TIME)"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    await("a window's result", () -> service.queries().memory().used() > 0 && running() == 1);

    assertThat(service.shutdown(10_000)).isTrue();

    HttpResponse<String> ran = run.get(10, TimeUnit.SECONDS);
    assertThat(ran.statusCode()).as(ran.body()).isEqualTo(200);
    JsonNode all = JSON.readTree(ran.body());
    assertThat(all.size()).isGreaterThanOrEqualTo(1);
    JsonNode last = all.get(all.size() - 1);
    assertThat(last.at("/meta/final").asBoolean()).isTrue();
    assertThat(last.at("/meta/errors/0/message").asText()).startsWith("The service stopped");
  }

  @Test
  void aWebSocketGetsItsQuerysLastResultAndEndBeforeTheStopClosesIt() throws Exception {
    service.server().webSockets().beforeEnd = untilTheStopBegins();
    BlockingQueue<JsonNode> got = new LinkedBlockingQueue<>();
    WebSocket ws =
        http.newWebSocketBuilder()
            .buildAsync(
                URI.create("ws://127.0.0.1:" + service.port() + "/api/ws"),
                new WebSocket.Listener() {
                  final StringBuilder part = new StringBuilder();

                  @Override
                  public CompletionStage<?> onText(WebSocket w, CharSequence text, boolean last) {
                    part.append(text);
                    if (last) {
                      try {
                        got.add(JSON.readTree(part.toString()));
                      } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                      }
                      part.setLength(0);
                    }
                    w.request(1);
                    return null;
                  }
                })
            .get(10, TimeUnit.SECONDS);
    ws.sendText(
            "{\"type\":\"submit\",\"query\":\"SELECT COUNT(*) AS n FROM STREAM(MAX, TIME)\"}", true)
        .join();
    JsonNode accepted = got.poll(10, TimeUnit.SECONDS);
    assertThat(accepted).isNotNull();
    assertThat(accepted.get("type").asText()).as(accepted.toString()).isEqualTo("accepted");
    String id = accepted.get("id").asText();

    // a socket open at the stop is not an answer in flight: the stop does not wait for it to close
    assertThat(service.shutdown(10_000)).isTrue();

    List<JsonNode> after = new ArrayList<>();
    JsonNode m;
    while ((m = got.poll(10, TimeUnit.SECONDS)) != null) {
      after.add(m);
      if (m.get("type").asText().equals("end")) {
        break;
      }
    }
    assertThat(after).as("what came after the stop began").isNotEmpty();
    JsonNode end = after.get(after.size() - 1);
    assertThat(end.get("type").asText()).as(after.toString()).isEqualTo("end");
    assertThat(end.get("id").asText()).isEqualTo(id);
    JsonNode last = after.get(after.size() - 2);
    assertThat(last.get("type").asText()).isEqualTo("result");
    assertThat(last.at("/result/meta/final").asBoolean()).isTrue();
  }

  private int running() {
    return service.queries().running();
  }

  private static void await(String what, BooleanSupplier done) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!done.getAsBoolean()) {
      assertThat(System.nanoTime() - deadline).as("waiting for " + what).isNegative();
      Thread.sleep(10);
    }
  }
}
