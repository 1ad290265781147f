package io.spyglass.service.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.spyglass.engine.EngineConfig;
import io.spyglass.service.ServiceConfig;
import io.spyglass.service.SpyglassService;
import io.spyglass.service.auth.User;
import io.spyglass.service.query.ServiceQuery;
import io.spyglass.service.runtime.EmbeddedRuntime;
import io.spyglass.sources.GeneratorSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A real service on a loopback port over the generator, for tests that reach into the HTTP layer
 * (its package-private hooks), and WebSocket clients of it.
 */
final class LiveService implements AutoCloseable {
  static final ObjectMapper JSON = new ObjectMapper();
  static final User ROOT = new User("root", true);

  final SpyglassService service;
  final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  LiveService(Path data) throws IOException {
    this(data, b -> {});
  }

  /** As {@link #LiveService(Path)}, with settings of its own. */
  LiveService(Path data, java.util.function.Consumer<ServiceConfig.Builder> settings)
      throws IOException {
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
                      settings.accept(b);
                    }),
            runtime);
  }

  ApiServer server() {
    return service.server();
  }

  ServiceQuery query(String id) {
    return service.queries().find(ROOT, id).orElseThrow();
  }

  Socket socket() throws Exception {
    return new Socket();
  }

  static void await(String what, BooleanSupplier done) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!done.getAsBoolean()) {
      assertThat(System.nanoTime() - deadline).as("waiting for " + what).isNegative();
      Thread.sleep(10);
    }
  }

  @Override
  public void close() {
    service.close();
  }

  /** A WebSocket client of /api/ws: the messages it received, in order. */
  final class Socket implements AutoCloseable {
    final BlockingQueue<JsonNode> got = new LinkedBlockingQueue<>();
    private final Deque<JsonNode> skipped = new ArrayDeque<>();
    volatile boolean closedByServer;
    final WebSocket ws;

    Socket() throws Exception {
      ws =
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
                        } catch (IOException e) {
                          throw new UncheckedIOException(e);
                        }
                        part.setLength(0);
                      }
                      w.request(1);
                      return null;
                    }

                    @Override
                    public CompletionStage<?> onClose(WebSocket w, int status, String reason) {
                      closedByServer = true;
                      return null;
                    }
                  })
              .get(10, TimeUnit.SECONDS);
    }

    void send(String json) {
      ws.sendText(json, true).join();
    }

    /** Submits a query and returns its id (from the {@code accepted} message). */
    String submit(String bql) throws InterruptedException {
      send(JSON.createObjectNode().put("type", "submit").put("query", bql).toString());
      return next("accepted", null).get("id").asText();
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
      if (!closedByServer) {
        ws.sendClose(WebSocket.NORMAL_CLOSURE, "bye").orTimeout(5, TimeUnit.SECONDS).join();
      }
    }
  }
}
