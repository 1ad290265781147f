package io.spyglass.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code spyglass serve} as a process: the URL it prints, and a clean stop on SIGTERM. */
class ServeIT {
  @TempDir Path data;

  @Test
  void servesUntilSigtermThenEndsEveryQueryWithItsFinalResultAndExitsZero() throws Exception {
    try (Spyglass.Running serve =
        Spyglass.start(
            "serve",
            "--source",
            "gen?rate=1000&size=300",
            "--port",
            "0",
            "--data",
            data.toString())) {
      String line = serve.awaitLine("the URL", l -> l.startsWith("Spyglass is serving "));
      String url = line.substring("Spyglass is serving ".length()).strip();
      assertThat(url).matches("http://127\\.0\\.0\\.1:\\d+/");
      serve.awaitLine("the loopback note", l -> l.contains("loopback only"));
      HttpClient http = HttpClient.newHttpClient();
      HttpResponse<String> submitted =
          http.send(
              HttpRequest.newBuilder(URI.create(url + "api/queries"))
                  .header("Content-Type", "text/plain")
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          "SELECT COUNT(*) AS n FROM STREAM(MAX, TIME)"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(submitted.statusCode()).isEqualTo(201);
      String id = Spyglass.parse(submitted.body()).get("id").asText();
      HttpResponse<InputStream> stream =
          http.send(
              HttpRequest.newBuilder(URI.create(url + "api/queries/" + id + "/results")).build(),
              HttpResponse.BodyHandlers.ofInputStream());
      assertThat(stream.statusCode()).isEqualTo(200);
      CompletableFuture<List<String>> data =
          CompletableFuture.supplyAsync(
              () -> {
                List<String> out = new ArrayList<>();
                try (BufferedReader r =
                    new BufferedReader(
                        new InputStreamReader(stream.body(), StandardCharsets.UTF_8))) {
                  String l;
                  while ((l = r.readLine()) != null) {
                    if (l.startsWith("data: ")) {
                      out.add(l.substring(6));
                    }
                  }
                } catch (java.io.IOException e) {
                  throw new java.io.UncheckedIOException(e);
                }
                return out;
              });
      // a windowed query run to its end by POST /api/query, in flight at the signal
      CompletableFuture<HttpResponse<String>> run =
          http.sendAsync(
              HttpRequest.newBuilder(URI.create(url + "api/query"))
                  .header("Content-Type", "text/plain")
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          "SELECT COUNT(*) AS n FROM STREAM(MAX, TIME) WINDOWING TUMBLING(200,"
                              + " TIME)"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      Thread.sleep(1_000);
      serve.terminate();
      assertThat(serve.awaitExit()).as(serve.toString()).isZero();
      List<String> results = data.get(10, TimeUnit.SECONDS);
      assertThat(results).hasSize(1);
      JsonNode last = Spyglass.parse(results.get(0));
      assertThat(last.at("/meta/final").asBoolean()).isTrue();
      assertThat(last.at("/records/0/n").asLong()).isPositive();
      HttpResponse<String> ran = run.get(10, TimeUnit.SECONDS);
      assertThat(ran.statusCode()).as(ran.body()).isEqualTo(200);
      JsonNode all = Spyglass.parse(ran.body());
      assertThat(all.size()).isGreaterThan(1);
      for (int i = 0; i < all.size(); i++) {
        assertThat(all.get(i).at("/meta/final").asBoolean()).isEqualTo(i == all.size() - 1);
      }
      assertThat(serve.toString()).contains("Spyglass stopped.");
    }
  }

  @Test
  void theDemoGeneratorIsPacedAndAPortInUseStopsServeBeforeItStartsAnything() throws Exception {
    // the README's first command: gen by default, paced so that an idle demo server idles
    try (Spyglass.Running serve =
        Spyglass.start("serve", "--port", "0", "--data", data.toString())) {
      String url =
          serve
              .awaitLine("the URL", l -> l.startsWith("Spyglass is serving "))
              .substring("Spyglass is serving ".length())
              .strip();
      assertThat(serve.awaitLine("the runtime", l -> l.contains("runtime: embedded engine")))
          .contains("gen?")
          .contains("rate=10000");
      // the effective configuration came first, each value with where it came from
      assertThat(serve.awaitLine("the configuration", l -> l.startsWith("Configuration (")))
          .contains("SPYGLASS_*");
      assertThat(serve.awaitLine("the port's origin", l -> l.startsWith("  port: 0 ")))
          .endsWith("# --port");
      int port = URI.create(url).getPort();
      // another serve on the same port, with ingestion and standing queries: one clear line,
      // nothing started, no noise in the log
      Spyglass.Run taken =
          Spyglass.run(
              "serve",
              "--source",
              "http",
              "--port",
              Integer.toString(port),
              "--data",
              data.resolve("other").toString());
      assertThat(taken.exitCode()).as(taken.toString()).isEqualTo(1);
      assertThat(taken.stderr())
          .contains("spyglass: cannot serve: port " + port)
          .contains("in use")
          .contains("--port")
          .doesNotContain("Javalin")
          .doesNotContain("checkpoint")
          .doesNotContain("WARN")
          .doesNotContain("ERROR");
      assertThat(taken.stderr().strip().lines().count()).as(taken.stderr()).isEqualTo(1);
      assertThat(taken.stdout()).as(taken.toString()).isBlank();
      serve.terminate();
      assertThat(serve.awaitExit()).as(serve.toString()).isZero();
    }
  }

  @Test
  void aConfigurationFileAndVariablesConfigureServeAndItSaysWhereEachValueCameFrom()
      throws Exception {
    Path file = data.resolve("spyglass.yaml");
    java.nio.file.Files.writeString(
        file,
        "# serve's configuration\n"
            + "port: 0\n"
            + "data: "
            + data.resolve("folder")
            + "\n"
            + "source: [\"gen?rate=200&size=300\"]\n"
            + "max-queries: 3\n"
            + "database: jdbc:postgresql://db/spyglass?user=spy&password=hunter2\n");
    try (Spyglass.Running serve =
        Spyglass.start(
            java.util.Map.of("SPYGLASS_MAX_QUERIES_PER_USER", "2", "SPYGLASS_MAX_QUERIES", ""),
            "serve",
            "--config",
            file.toString())) {
      String url =
          serve
              .awaitLine("the URL", l -> l.startsWith("Spyglass is serving "))
              .substring("Spyglass is serving ".length())
              .strip();
      HttpResponse<String> r =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create(url + "api/queries")).build(),
                  HttpResponse.BodyHandlers.ofString());
      JsonNode quota = Spyglass.JSON.readTree(r.body()).get("quota");
      assertThat(quota.get("maxQueries").asInt()).isEqualTo(3);
      assertThat(quota.get("maxQueriesPerUser").asInt()).isEqualTo(2);
      String out = serve.toString();
      assertThat(out)
          .containsPattern("max-queries: 3 +# .*spyglass.yaml line 5")
          .containsPattern("max-queries-per-user: 2 +# SPYGLASS_MAX_QUERIES_PER_USER")
          .contains("password=*****")
          .doesNotContain("hunter2");
      assertThat(data.resolve("folder").resolve("audit.log")).exists();
      serve.terminate();
      assertThat(serve.awaitExit()).as(serve.toString()).isZero();
    }
    java.nio.file.Files.writeString(file, "port: 0\nmax-querys: 3\n");
    Spyglass.Run bad = Spyglass.run("serve", "--config", file.toString());
    assertThat(bad.exitCode()).as(bad.toString()).isEqualTo(1);
    assertThat(bad.stderr().strip())
        .isEqualTo(
            "spyglass: " + file + " line 2: unknown key 'max-querys': did you mean 'max-queries'?");
    assertThat(bad.stdout()).isBlank();
  }

  @Test
  void refusesToServeBeyondLoopbackWithoutTokens() throws Exception {
    Spyglass.Run r =
        Spyglass.run(
            "serve",
            "--source",
            "gen?rate=10",
            "--bind",
            "0.0.0.0",
            "--port",
            "0",
            "--data",
            data.toString());
    assertThat(r.exitCode()).as(r.toString()).isEqualTo(1);
    assertThat(r.stderr()).contains("--tokens").contains("--insecure").contains("loopback");
  }
}
