package io.spyglass.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Metering as its users run it and its clients call it: {@code spyglass serve --source http} on a
 * free loopback port and a data folder (run as the real command, {@link Spyglass}), and the HTTP
 * API a metering client uses on any service's URL: define a standing query, ingest documents, read
 * what the standing queries counted. Every wait is bounded.
 */
final class MeteringServe {
  /** The prefix of the line {@code serve} prints when it listens, before its URL. */
  static final String SERVING = "Spyglass is serving ";

  /** One client for every request of the tests, HTTP/1.1 as metering clients speak it. */
  static final HttpClient HTTP =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  private MeteringServe() {}

  // ---- the process

  /**
   * The arguments of {@code spyglass serve --source http --port 0 --data DATA}, then {@code more}
   * (a later option overrides an earlier one).
   */
  static String[] args(Path data, String... more) {
    List<String> a =
        new ArrayList<>(
            List.of("serve", "--source", "http", "--port", "0", "--data", data.toString()));
    a.addAll(List.of(more));
    return a.toArray(String[]::new);
  }

  /** Starts {@code spyglass serve --source http} on {@code data} with {@code more} options. */
  static Spyglass.Running serve(Path data, String... more) throws IOException {
    return Spyglass.start(args(data, more));
  }

  /** The URL {@code s} serves on (ending in {@code /}), once it says it is serving. */
  static String url(Spyglass.Running s) throws InterruptedException {
    return url(s, Spyglass.TIMEOUT_S);
  }

  /** As {@link #url(Spyglass.Running)}, waiting at most {@code timeoutS} (a slow start). */
  static String url(Spyglass.Running s, long timeoutS) throws InterruptedException {
    String line = s.awaitLine("the URL", l -> l.startsWith(SERVING), timeoutS);
    String url = line.substring(SERVING.length()).strip();
    return url.endsWith("/") ? url : url + "/";
  }

  /** Stops {@code s} with SIGTERM, as a service manager does; it must exit 0. */
  static void stop(Spyglass.Running s) throws Exception {
    s.terminate();
    assertThat(s.awaitExit()).as(s.toString()).isZero();
  }

  /** Waits (a minute at most) until {@code s} has written {@code text} to its stderr. */
  static void awaitStderr(Spyglass.Running s, String text) throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!s.stderr().contains(text) && System.nanoTime() < until) {
      Thread.sleep(50);
    }
    assertThat(s.stderr()).contains(text);
  }

  // ---- the API

  /** Sends {@code r} with a time limit of 30 s; the answer as text. */
  static HttpResponse<String> send(HttpRequest.Builder r) throws IOException, InterruptedException {
    return HTTP.send(
        r.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
  }

  /** GET {@code url + path}. */
  static HttpResponse<String> get(String url, String path)
      throws IOException, InterruptedException {
    return send(HttpRequest.newBuilder(URI.create(url + path)));
  }

  /** Defines the standing query {@code name}; it must be created (201). */
  static void define(String url, String name, String query) throws Exception {
    define(url, name, query, false);
  }

  /**
   * Defines the standing query {@code name}; {@code fileSink}: its results also written to the file
   * {@code NAME.ndjson} of the sink folder. It must be created (201).
   */
  static void define(String url, String name, String query, boolean fileSink) throws Exception {
    ObjectNode body = Spyglass.JSON.createObjectNode().put("name", name).put("query", query);
    if (fileSink) {
      body.putArray("sinks").addObject().put("type", "file").put("path", name + ".ndjson");
    }
    HttpResponse<String> created =
        send(
            HttpRequest.newBuilder(URI.create(url + "api/standing-queries"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())));
    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
  }

  /** POST /api/ingest of {@code ndjson}; the answer, whatever it is. */
  static HttpResponse<String> ingest(String url, String ndjson)
      throws IOException, InterruptedException {
    return send(
        HttpRequest.newBuilder(URI.create(url + "api/ingest"))
            .POST(HttpRequest.BodyPublishers.ofString(ndjson)));
  }

  /** POST /api/ingest of {@code ndjson}; it must be acknowledged (202). */
  static void ingestAccepted(String url, String ndjson) throws Exception {
    HttpResponse<String> r = ingest(url, ndjson);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
  }

  /** The windows of standing query {@code name} (GET its results; 200). */
  static JsonNode results(String url, String name) throws Exception {
    HttpResponse<String> r = get(url, "api/standing-queries/" + name + "/results");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return Spyglass.parse(r.body());
  }

  /**
   * Σ of the fields {@code docs} and {@code total} over every record of every window of {@code
   * name}, open windows included: what it has counted so far.
   */
  static long[] counted(String url, String name) throws Exception {
    long[] t = {0, 0};
    for (JsonNode w : results(url, name)) {
      for (JsonNode rec : w.get("records")) {
        t[0] += rec.path("docs").asLong();
        t[1] += rec.path("total").asLong();
      }
    }
    return t;
  }

  /**
   * What {@code name} has counted ({@link #counted}) once its documents reach {@code docs}, or
   * after a minute.
   */
  static long[] awaitCounted(String url, String name, long docs) throws Exception {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    long[] t = counted(url, name);
    while (t[0] < docs && System.nanoTime() < until) {
      Thread.sleep(50);
      t = counted(url, name);
    }
    return t;
  }

  /** The standing query {@code name} as GET /api/standing-queries lists it. */
  static JsonNode listed(String url, String name) throws Exception {
    HttpResponse<String> r = get(url, "api/standing-queries");
    for (JsonNode q : Spyglass.parse(r.body()).get("standingQueries")) {
      if (q.get("name").asText().equals(name)) {
        return q;
      }
    }
    throw new AssertionError("no standing query " + name + ": " + r.body());
  }

  /** The age of the standing queries' last checkpoint, as /api/health says (none: max). */
  static long checkpointAgeMs(String url) throws Exception {
    return Spyglass.JSON
        .readTree(get(url, "api/health").body())
        .path("checkpointAgeMs")
        .asLong(Long.MAX_VALUE);
  }
}
