package io.spyglass.service.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.spyglass.engine.EngineConfig;
import io.spyglass.service.ServiceConfig;
import io.spyglass.service.SpyglassService;
import io.spyglass.service.runtime.EmbeddedRuntime;
import io.spyglass.sources.GeneratorSource;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reverse-proxy recipe of docs/operations.md, run: a real nginx (Debian's {@code nginx-light})
 * with the documented configuration terminates TLS in front of a service on loopback, and the API,
 * a Server-Sent Events stream (each event as it comes, not buffered) and a WebSocket work through
 * it. Skipped, saying why, where nginx is not installed.
 */
class NginxProxyTest {
  private static final String TOKEN = "alice-0123456789abcdef";
  static final Path DOC = Path.of("..", "docs", "operations.md");

  @TempDir Path dir;

  static Path nginx() {
    for (String p : new String[] {"/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx"}) {
      if (Files.isExecutable(Path.of(p))) {
        return Path.of(p);
      }
    }
    return null;
  }

  /** The nginx block of docs/operations.md, between its markers. */
  static String recipe() throws IOException {
    String doc = Files.readString(DOC);
    Matcher m =
        Pattern.compile(
                "<!-- nginx recipe: run by NginxProxyTest -->\n```nginx\n(.*?)```\n"
                    + "<!-- end of nginx recipe -->",
                Pattern.DOTALL)
            .matcher(doc);
    assertThat(m.find()).as("docs/operations.md has the nginx recipe between its markers").isTrue();
    return m.group(1);
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  @Test
  void theDocumentedNginxRecipeCarriesTheApiServerSentEventsAndWebSockets() throws Exception {
    Path nginx = nginx();
    Assumptions.assumeTrue(
        nginx != null,
        "nginx is not installed (apt-get install nginx-light): the reverse-proxy recipe of"
            + " docs/operations.md is not tried here");
    TlsTest.Pem pem = TlsTest.selfSigned(dir, "proxy", "EC", false);
    Path tokens = dir.resolve("tokens.txt");
    Files.writeString(tokens, TOKEN + " alice\n");
    EmbeddedRuntime runtime =
        EmbeddedRuntime.start(
            new GeneratorSource(
                GeneratorSource.Options.DEFAULTS.withRate(2_000).withRecordBytes(300)),
            EngineConfig.defaults().withWorkers(1).withTickMs(20));
    ServiceConfig config =
        ServiceConfig.defaults()
            .with(
                b -> {
                  b.port = 0;
                  b.dataDir = dir.resolve("data");
                  b.tokensFile = tokens;
                  b.guards = b.guards.withTrustedProxies(List.of("127.0.0.1"));
                  b.edge =
                      b.edge.withAllowed(List.of("spyglass.example.com"), b.edge.allowedOrigins());
                });
    try (SpyglassService s =
        SpyglassService.start(config, SpyglassService.bind(config), runtime, null)) {
      int port = freePort();
      String site =
          recipe()
              .replace("listen 443 ssl;", "listen 127.0.0.1:" + port + " ssl;")
              .replace(
                  "/etc/letsencrypt/live/spyglass.example.com/fullchain.pem",
                  pem.cert().toAbsolutePath().toString())
              .replace(
                  "/etc/letsencrypt/live/spyglass.example.com/privkey.pem",
                  pem.key().toAbsolutePath().toString())
              .replace("http://127.0.0.1:8080", "http://127.0.0.1:" + s.port());
      assertThat(site).contains("127.0.0.1:" + s.port()).contains(pem.cert().toString());
      Path prefix = dir.resolve("nginx");
      Files.createDirectories(prefix.resolve("logs"));
      String conf =
          (System.getProperty("user.name").equals("root") ? "user root;\n" : "")
              + "daemon off;\nworker_processes 1;\npid "
              + prefix.resolve("nginx.pid")
              + ";\nerror_log stderr warn;\nevents { worker_connections 256; }\nhttp {\n"
              + "access_log off;\n"
              + "client_body_temp_path "
              + prefix.resolve("body")
              + ";\nproxy_temp_path "
              + prefix.resolve("proxy")
              + ";\nfastcgi_temp_path "
              + prefix.resolve("fastcgi")
              + ";\nuwsgi_temp_path "
              + prefix.resolve("uwsgi")
              + ";\nscgi_temp_path "
              + prefix.resolve("scgi")
              + ";\n"
              + site
              + "}\n";
      Path confFile = prefix.resolve("nginx.conf");
      Files.writeString(confFile, conf);
      Process proxy =
          new ProcessBuilder(
                  nginx.toString(),
                  "-p",
                  prefix.toString(),
                  "-c",
                  confFile.toString(),
                  "-e",
                  "stderr")
              .redirectErrorStream(true)
              .redirectOutput(prefix.resolve("logs/out.txt").toFile())
              .start();
      try {
        awaitListening(port, proxy, prefix.resolve("logs/out.txt"));
        through(port, pem);
      } finally {
        proxy.destroy(); // SIGTERM: nginx's fast shutdown
        if (!proxy.waitFor(10, TimeUnit.SECONDS)) {
          proxy.destroyForcibly();
        }
      }
    }
  }

  private static void awaitListening(int port, Process proxy, Path log) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      assertThat(proxy.isAlive()).as("nginx runs: %s", readOr(log)).isTrue();
      try (Socket probe = new Socket("127.0.0.1", port)) {
        assertThat(probe.isConnected()).isTrue();
        return;
      } catch (IOException e) {
        assertThat(System.nanoTime() - deadline).as("nginx listens: %s", readOr(log)).isNegative();
        Thread.sleep(50);
      }
    }
  }

  private static String readOr(Path log) {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return e.toString();
    }
  }

  private static void through(int port, TlsTest.Pem pem) throws Exception {
    HttpClient http = TlsTest.trusting(pem.certificate());
    String base = "https://127.0.0.1:" + port;
    HttpResponse<String> health =
        http.send(
            HttpRequest.newBuilder(URI.create(base + "/api/health"))
                .header("Authorization", "Bearer " + TOKEN)
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
    assertThat(LiveService.JSON.readTree(health.body()).get("status").asText()).isEqualTo("UP");

    // a stream through the proxy gets each event as it comes: the first while the query runs on
    HttpResponse<String> submitted =
        http.send(
            HttpRequest.newBuilder(URI.create(base + "/api/queries"))
                .header("Authorization", "Bearer " + TOKEN)
                .header("Content-Type", "text/plain")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "SELECT COUNT(*) AS n FROM STREAM(FOREVER) WINDOWING TUMBLING(200, TIME)"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(submitted.statusCode()).as(submitted.body()).isEqualTo(201);
    String id = LiveService.JSON.readTree(submitted.body()).get("id").asText();
    HttpResponse<InputStream> stream =
        http.send(
            HttpRequest.newBuilder(URI.create(base + "/api/queries/" + id + "/results"))
                .header("Authorization", "Bearer " + TOKEN)
                .header("Accept", "text/event-stream")
                .build(),
            HttpResponse.BodyHandlers.ofInputStream());
    assertThat(stream.statusCode()).isEqualTo(200);
    try (BufferedReader r =
        new BufferedReader(new InputStreamReader(stream.body(), StandardCharsets.UTF_8))) {
      JsonNode first = nextResult(r);
      assertThat(first.get("meta").get("final").asBoolean()).isFalse();
      HttpResponse<String> state =
          http.send(
              HttpRequest.newBuilder(URI.create(base + "/api/queries/" + id))
                  .header("Authorization", "Bearer " + TOKEN)
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(LiveService.JSON.readTree(state.body()).get("state").asText())
          .as("the first event came through while the query still runs: nothing buffered it")
          .isEqualTo("running");
      http.send(
          HttpRequest.newBuilder(URI.create(base + "/api/queries/" + id))
              .header("Authorization", "Bearer " + TOKEN)
              .DELETE()
              .build(),
          HttpResponse.BodyHandlers.discarding());
      JsonNode last = first;
      for (JsonNode next = nextResult(r); next != null; next = nextResult(r)) {
        last = next;
      }
      assertThat(last.get("meta").get("final").asBoolean()).isTrue();
    }

    // a WebSocket through the proxy
    BlockingQueue<String> messages = new LinkedBlockingQueue<>();
    WebSocket ws =
        http.newWebSocketBuilder()
            .header("Authorization", "Bearer " + TOKEN)
            .buildAsync(
                URI.create("wss://127.0.0.1:" + port + "/api/ws"),
                new WebSocket.Listener() {
                  private final StringBuilder text = new StringBuilder();

                  @Override
                  public CompletionStage<?> onText(WebSocket w, CharSequence data, boolean last) {
                    text.append(data);
                    if (last) {
                      messages.add(text.toString());
                      text.setLength(0);
                    }
                    w.request(1);
                    return null;
                  }
                })
            .get(30, TimeUnit.SECONDS);
    ws.sendText(
        "{\"type\": \"submit\", \"query\": \"SELECT COUNT(*) AS n FROM STREAM(400, TIME)"
            + " WINDOWING TUMBLING(100, TIME)\"}",
        true);
    assertThat(messages.poll(30, TimeUnit.SECONDS)).contains("\"accepted\"");
    int results = 0;
    String m;
    while ((m = messages.poll(30, TimeUnit.SECONDS)) != null && !m.contains("\"type\":\"end\"")) {
      if (m.contains("\"type\":\"result\"")) {
        results++;
      }
    }
    assertThat(m).as("the WebSocket delivers the query's end").isNotNull();
    assertThat(results).isGreaterThanOrEqualTo(2);
    ws.sendClose(WebSocket.NORMAL_CLOSURE, "").get(10, TimeUnit.SECONDS);
  }

  /** The next result event's JSON, or null at the end of the stream. */
  private static JsonNode nextResult(BufferedReader r) throws IOException {
    String line;
    while ((line = r.readLine()) != null) {
      if (line.startsWith("data: ")) {
        return LiveService.JSON.readTree(line.substring(6));
      }
    }
    return null;
  }
}
