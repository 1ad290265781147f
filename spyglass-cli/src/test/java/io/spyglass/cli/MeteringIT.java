package io.spyglass.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code spyglass serve --source http}, on each runtime ({@code --runtime embedded}, and {@code
 * --runtime flink}: the standing queries on the Flink job in the service's process), killed with
 * SIGKILL and started again on the same data folder: the standing query comes back with its state,
 * every document acknowledged with 202 is counted exactly once (open windows included), and
 * re-sending the unacknowledged ones counts none twice; final windows are as the documents make
 * them, each once, a late document counted once, and a name deleted and defined again counts from
 * then on.
 */
class MeteringIT {
  static final String COUNT =
      "SELECT COUNT(*) AS docs, SUM(quantity) AS total FROM STREAM(FOREVER)"
          + " WINDOWING TUMBLING(1h, EVENT_TIME(time), LATENESS 10m)";
  static final int REQUESTS = 400;
  static final int PER_REQUEST = 10;

  @TempDir Path data;
  @TempDir Path sinks;

  Spyglass.Running serve(String runtime) throws Exception {
    return serve(data, runtime, "--sink-dir", sinks.toString());
  }

  /** {@code serve --source http} on {@code data} and {@code runtime}, checkpointing often. */
  static Spyglass.Running serve(Path data, String runtime, String... more) throws Exception {
    List<String> args =
        new ArrayList<>(List.of("--runtime", runtime, "--checkpoint-every", "200ms"));
    args.addAll(List.of(more));
    return MeteringServe.serve(data, args.toArray(String[]::new));
  }

  static String url(Spyglass.Running s) throws InterruptedException {
    // on --runtime flink the service starts a Flink mini cluster first: slow on a busy machine
    return MeteringServe.url(s, 120);
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

  static int post(String url, int request) throws Exception {
    return MeteringServe.ingest(url, body(request)).statusCode();
  }

  @ParameterizedTest(name = "--runtime {0}")
  @ValueSource(strings = {"embedded", "flink"})
  void aKilledServerComesBackWithEveryAcknowledgedDocumentCountedOnce(String runtime)
      throws Exception {
    ConcurrentLinkedQueue<Integer> unacknowledged = new ConcurrentLinkedQueue<>();
    AtomicLong acknowledged = new AtomicLong();
    try (Spyglass.Running s = serve(runtime)) {
      String url = url(s);
      if (runtime.equals("flink")) {
        assertThat(s.awaitLine("the runtime", l -> l.contains("runtime:") && l.contains("Flink")))
            .contains("standing queries on the Flink job");
      }
      MeteringServe.define(url, "usage", COUNT);
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

    try (Spyglass.Running s = serve(runtime)) {
      String url = url(s);
      // re-send the unacknowledged requests, and a few acknowledged ones again
      List<Integer> again = new ArrayList<>(unacknowledged);
      again.addAll(List.of(0, 1, 2));
      for (int request : again) {
        assertThat(post(url, request)).isEqualTo(202);
      }
      long docs = (long) REQUESTS * PER_REQUEST;
      long quantity = (long) REQUESTS * PER_REQUEST * (PER_REQUEST + 1) / 2;
      MeteringServe.awaitCounted(url, "usage", docs);
      Thread.sleep(1_000); // a document counted twice would show by now
      assertThat(MeteringServe.counted(url, "usage")).containsExactly(docs, quantity);
      MeteringServe.stop(s);
    }
  }

  // ---- final windows, a late document, a kill and a name defined again

  static final String BY_ORG =
      "SELECT org, COUNT(*) AS docs, SUM(quantity) AS total FROM STREAM(FOREVER) GROUP BY org"
          + " WINDOWING TUMBLING(1h, EVENT_TIME(time), LATENESS 1m)";
  static final long BASE = 1_767_225_600_000L;
  static final long HOUR = 3_600_000L;

  /** A document: id, org, quantity, time. */
  record Doc(String id, String org, int quantity, long time) {}

  /** Documents of three hours, 100 an hour, then one that makes them final. */
  static List<Doc> first() {
    List<Doc> d = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      d.add(new Doc("a" + i, "o" + i % 3, i % 5 + 1, BASE + (i / 100) * HOUR + i));
    }
    d.add(new Doc("close-a", "x", 0, BASE + 10 * HOUR));
    return d;
  }

  /** A late document for the first hour, an hour of 30, then one that makes it final. */
  static List<Doc> second() {
    List<Doc> d = new ArrayList<>();
    d.add(new Doc("late", "o0", 5, BASE + 5));
    for (int i = 0; i < 30; i++) {
      d.add(new Doc("b" + i, "o" + i % 3, 1, BASE + 11 * HOUR + i));
    }
    d.add(new Doc("close-b", "x", 0, BASE + 20 * HOUR));
    return d;
  }

  static String lines(List<Doc> docs) {
    StringBuilder b = new StringBuilder();
    for (Doc d : docs) {
      b.append(
          Spyglass.JSON
              .createObjectNode()
              .put("id", d.id())
              .put("org", d.org())
              .put("quantity", d.quantity())
              .put("time", d.time())
              .toString());
      b.append('\n');
    }
    return b.toString();
  }

  /**
   * The final windows {@code docs} make, by start: their records (sorted, as text) and late count,
   * as {@link #finals} shows them; {@code late} documents of the first hour came after it was
   * final.
   */
  static Map<Long, String> expected(List<Doc> docs, long untilMs, long late) {
    Map<Long, Map<String, long[]>> byWindow = new TreeMap<>();
    for (Doc d : docs) {
      long start = d.time() - Math.floorMod(d.time() - BASE, HOUR);
      if (start + HOUR <= untilMs) {
        long[] t =
            byWindow
                .computeIfAbsent(start, k -> new TreeMap<>())
                .computeIfAbsent(d.org(), k -> new long[2]);
        t[0]++;
        t[1] += d.quantity();
      }
    }
    Map<Long, String> out = new TreeMap<>();
    byWindow.forEach(
        (start, orgs) -> {
          List<String> records = new ArrayList<>();
          orgs.forEach(
              (org, t) ->
                  records.add(
                      Spyglass.JSON
                          .createObjectNode()
                          .put("org", org)
                          .put("docs", t[0])
                          .put("total", (double) t[1])
                          .toString()));
          records.sort(null);
          out.put(start, records + " late " + (start == BASE ? late : 0));
        });
    return out;
  }

  /** Defines a standing query, its results also written to the file {@code NAME.ndjson}. */
  void define(String url, String name, String query) throws Exception {
    define(url, name, query, true);
  }

  /**
   * Defines a standing query; {@code fileSink}: its results also written to {@code NAME.ndjson}.
   */
  void define(String url, String name, String query, boolean fileSink) throws Exception {
    MeteringServe.define(url, name, query, fileSink);
  }

  /** Ingests {@code body}; it must be acknowledged. */
  void post(String url, String body) throws Exception {
    MeteringServe.ingestAccepted(url, body);
  }

  /** The final windows of {@code name} by start: their records and late count; each start once. */
  Map<Long, String> finals(String url, String name) throws Exception {
    Map<Long, String> out = new TreeMap<>();
    for (JsonNode w : MeteringServe.results(url, name)) {
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

  /** The final windows of {@code name} once they are {@code expected} (or after a minute). */
  Map<Long, String> awaitFinals(String url, String name, Map<Long, String> expected)
      throws Exception {
    Map<Long, String> f = Map.of();
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < until) {
      f = finals(url, name);
      if (f.equals(expected)) {
        return f;
      }
      Thread.sleep(100);
    }
    return f;
  }

  @ParameterizedTest(name = "--runtime {0}")
  @ValueSource(strings = {"embedded", "flink"})
  void finalWindowsOnceEachAcrossAKillAndANameDefinedAgainCountsFromThen(String runtime)
      throws Exception {
    Map<Long, String> afterFirst = expected(first(), BASE + 10 * HOUR, 0);
    List<Doc> all = new ArrayList<>(first());
    all.addAll(second());
    all.removeIf(d -> d.id().equals("late")); // counted as late, not in the window's records
    Map<Long, String> afterSecond = expected(all, BASE + 20 * HOUR, 1);
    assertThat(afterFirst).hasSize(3);
    assertThat(afterSecond).hasSize(5);
    try (Spyglass.Running s = serve(runtime)) {
      String url = url(s);
      define(url, "usage", BY_ORG);
      post(url, lines(first()));
      assertThat(awaitFinals(url, "usage", afterFirst)).isEqualTo(afterFirst);
      // killed once a checkpoint holds the windows: the next start restores it and repeats what
      // came after it
      awaitCheckpoint(url, runtime);
      s.kill9();
    }
    try (Spyglass.Running s = serve(runtime)) {
      String url = url(s);
      assertThat(awaitFinals(url, "usage", afterFirst)).isEqualTo(afterFirst);
      post(url, lines(second()));
      assertThat(awaitFinals(url, "usage", afterSecond)).isEqualTo(afterSecond);
      Thread.sleep(1_000); // a window or late document written twice would show by now
      assertThat(finals(url, "usage")).isEqualTo(afterSecond);
      // its sink got every final window and the late update, at least once, each the same
      Map<String, String> delivered = awaitDelivered("usage", afterSecond.size() + 1);
      Map<String, String> expectedSunk = new TreeMap<>();
      afterSecond.forEach(
          (start, w) ->
              expectedSunk.put(
                  "standing-usage:" + start / HOUR, w.substring(0, w.lastIndexOf(" late "))));
      assertThat(delivered).containsKey("standing-usage:" + BASE / HOUR + ":late-1");
      delivered.remove("standing-usage:" + BASE / HOUR + ":late-1");
      assertThat(delivered).isEqualTo(expectedSunk);

      // deleted and defined again under the same name: a new query, counting from then on
      HttpResponse<String> deleted =
          MeteringServe.send(
              HttpRequest.newBuilder(URI.create(url + "api/standing-queries/usage")).DELETE());
      assertThat(deleted.statusCode()).as(deleted.body()).isEqualTo(204);
      define(url, "usage", BY_ORG);
      List<Doc> third =
          List.of(
              new Doc("c0", "o1", 4, BASE + 21 * HOUR),
              new Doc("close-c", "x", 0, BASE + 30 * HOUR));
      post(url, lines(third));
      Map<Long, String> again = expected(third, BASE + 30 * HOUR, 0);
      assertThat(awaitFinals(url, "usage", again)).isEqualTo(again);
      MeteringServe.stop(s);
    }
  }

  /**
   * The documents the file sink of {@code name} holds, once it holds {@code keys} keys (or after a
   * minute): each key once with its records (sorted, as text); a key delivered again (at least
   * once) must bring the same records.
   */
  Map<String, String> awaitDelivered(String name, int keys) throws Exception {
    Path file = sinks.resolve(name + ".ndjson");
    Map<String, String> out = new TreeMap<>();
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < until) {
      out.clear();
      if (java.nio.file.Files.exists(file)) {
        for (String line : java.nio.file.Files.readAllLines(file)) {
          if (line.isBlank()) {
            continue;
          }
          JsonNode d = Spyglass.JSON.readTree(line);
          List<String> records = new ArrayList<>();
          d.get("records").forEach(r -> records.add(r.toString()));
          records.sort(null);
          String was = out.put(d.get("key").asText(), records.toString());
          if (was != null) {
            assertThat(records.toString()).as("%s delivered again", d.get("key")).isEqualTo(was);
          }
        }
      }
      if (out.size() >= keys) {
        return out;
      }
      Thread.sleep(100);
    }
    return out;
  }

  /**
   * Waits for a checkpoint of the standing queries written after now (on flink: and one of the
   * job). A checkpoint is after now when its age, asked for after the time since now was read, is
   * less than that time (read after the answer, the time also counts the request, and a checkpoint
   * written just before now could pass).
   */
  void awaitCheckpoint(String url, String runtime) throws Exception {
    long since = System.nanoTime();
    long until = since + TimeUnit.SECONDS.toNanos(60);
    Path position = data.resolve("flink").resolve("ingest-position");
    while (true) {
      long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - since);
      boolean written = checkpointAgeMs(url) < elapsedMs;
      if (written && (!runtime.equals("flink") || java.nio.file.Files.exists(position))) {
        return;
      }
      assertThat(System.nanoTime()).as("a checkpoint within 60 s").isLessThan(until);
      Thread.sleep(50);
    }
  }

  static long checkpointAgeMs(String url) throws Exception {
    return MeteringServe.checkpointAgeMs(url);
  }
}
