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
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code spyglass serve --runtime flink --source http --data DIR}: the standing queries run on the
 * Flink job in the service's process, over the ingest log. The same documents give the same final
 * windows as on the embedded runtime; the service killed with SIGKILL and started again on the same
 * folder keeps every final window once, and counts a late document once.
 */
class MeteringFlinkIT {
  static final String QUERY =
      "SELECT org, COUNT(*) AS docs, SUM(quantity) AS total FROM STREAM(FOREVER) GROUP BY org"
          + " WINDOWING TUMBLING(1h, EVENT_TIME(time), LATENESS 1m)";
  static final long BASE = 1_767_225_600_000L;
  static final long HOUR = 3_600_000L;

  @TempDir Path flinkData;
  @TempDir Path embeddedData;
  final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  static Spyglass.Running serve(Path data, String runtime) throws Exception {
    return Spyglass.start(
        "serve",
        "--runtime",
        runtime,
        "--source",
        "http",
        "--port",
        "0",
        "--data",
        data.toString(),
        "--checkpoint-every",
        "200ms");
  }

  /** Documents of three hours, 100 an hour, then one that makes them final. */
  static String first() {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < 300; i++) {
      doc(b, "a" + i, "o" + i % 3, i % 5 + 1, BASE + (i / 100) * HOUR + i);
    }
    doc(b, "close-a", "x", 0, BASE + 10 * HOUR);
    return b.toString();
  }

  /** A late document for the first hour, an hour of 30, then one that makes it final. */
  static String second() {
    StringBuilder b = new StringBuilder();
    doc(b, "late", "o0", 5, BASE + 5);
    for (int i = 0; i < 30; i++) {
      doc(b, "b" + i, "o" + i % 3, 1, BASE + 11 * HOUR + i);
    }
    doc(b, "close-b", "x", 0, BASE + 20 * HOUR);
    return b.toString();
  }

  static void doc(StringBuilder b, String id, String org, int quantity, long time) {
    b.append("{\"id\":\"")
        .append(id)
        .append("\",\"org\":\"")
        .append(org)
        .append("\",\"quantity\":")
        .append(quantity)
        .append(",\"time\":")
        .append(time)
        .append("}\n");
  }

  void define(String url) throws Exception {
    HttpResponse<String> created =
        http.send(
            HttpRequest.newBuilder(URI.create(url + "api/standing-queries"))
                .header("Content-Type", "application/json")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        Spyglass.JSON
                            .createObjectNode()
                            .put("name", "usage")
                            .put("query", QUERY)
                            .toString()))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
  }

  void post(String url, String body) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(url + "api/ingest"))
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
  }

  /** The final windows by start: their records and late count, as text; each start once. */
  Map<Long, String> finals(String url) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(url + "api/standing-queries/usage/results")).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    Map<Long, String> out = new TreeMap<>();
    for (JsonNode w : Spyglass.parse(r.body())) {
      if (!w.path("window").path("final").asBoolean()) {
        continue;
      }
      List<String> records = new ArrayList<>();
      w.get("records").forEach(rec -> records.add(rec.toString()));
      records.sort(null);
      String was =
          out.put(
              w.path("window").path("start").asLong(),
              records + " late " + w.path("meta").path("late").asLong());
      assertThat(was).as("window %s twice", w.path("window")).isNull();
    }
    return out;
  }

  /** The final windows once there are {@code count} and the first has {@code late} late. */
  Map<Long, String> awaitFinals(String url, int count, long late) throws Exception {
    Map<Long, String> f = Map.of();
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < until) {
      f = finals(url);
      if (f.size() >= count && f.get(BASE).endsWith("late " + late)) {
        return f;
      }
      Thread.sleep(100);
    }
    return f;
  }

  @Test
  void finalWindowsAsOnTheEmbeddedRuntimeOnceEachAcrossAKill() throws Exception {
    Map<Long, String> embeddedFirst;
    Map<Long, String> embeddedAll;
    try (Spyglass.Running s = serve(embeddedData, "embedded")) {
      String url = MeteringIT.url(s);
      define(url);
      post(url, first());
      embeddedFirst = awaitFinals(url, 3, 0);
      post(url, second());
      embeddedAll = awaitFinals(url, 5, 1);
      s.terminate();
      assertThat(s.awaitExit()).as(s.toString()).isZero();
    }
    assertThat(embeddedFirst).hasSize(3);
    assertThat(embeddedAll).hasSize(5);

    try (Spyglass.Running s = serve(flinkData, "flink")) {
      String url = MeteringIT.url(s);
      assertThat(s.awaitLine("the runtime", l -> l.contains("runtime:") && l.contains("Flink")))
          .contains("standing queries on the Flink job");
      define(url);
      post(url, first());
      assertThat(awaitFinals(url, 3, 0)).isEqualTo(embeddedFirst);
      // killed once the job has a checkpoint: the next start restores it and repeats what came
      // after it
      Path position = flinkData.resolve("flink").resolve("ingest-position");
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!java.nio.file.Files.exists(position) && System.nanoTime() < until) {
        Thread.sleep(50);
      }
      assertThat(position).exists();
      s.kill9();
    }
    try (Spyglass.Running s = serve(flinkData, "flink")) {
      String url = MeteringIT.url(s);
      assertThat(awaitFinals(url, 3, 0)).isEqualTo(embeddedFirst);
      post(url, second());
      assertThat(awaitFinals(url, 5, 1)).isEqualTo(embeddedAll);
      Thread.sleep(1_000); // a window or late document written twice would show by now
      assertThat(finals(url)).isEqualTo(embeddedAll);

      // deleted and defined again under the same name: a new query, counting from then on
      HttpResponse<String> deleted =
          http.send(
              HttpRequest.newBuilder(URI.create(url + "api/standing-queries/usage"))
                  .DELETE()
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(deleted.statusCode()).as(deleted.body()).isEqualTo(204);
      define(url);
      StringBuilder third = new StringBuilder();
      doc(third, "c0", "o1", 4, BASE + 21 * HOUR);
      doc(third, "close-c", "x", 0, BASE + 30 * HOUR);
      post(url, third.toString());
      Map<Long, String> again = Map.of();
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (again.isEmpty() && System.nanoTime() < until) {
        again = finals(url);
        Thread.sleep(100);
      }
      assertThat(again)
          .containsExactly(
              Map.entry(BASE + 21 * HOUR, "[{\"org\":\"o1\",\"docs\":1,\"total\":4.0}] late 0"));
      s.terminate();
      assertThat(s.awaitExit()).as(s.toString()).isZero();
    }
  }
}
