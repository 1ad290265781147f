package io.spyglass.scenarios;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.spyglass.core.plan.QueryLimits;
import io.spyglass.engine.EngineConfig;
import io.spyglass.service.MeteringStart;
import io.spyglass.service.ServiceConfig;
import io.spyglass.service.SpyglassService;
import io.spyglass.service.metering.Metering;
import io.spyglass.sources.RawBatch;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * Abacus's test over HTTP: a real {@code spyglass serve --source http} on a loopback port (in this
 * process, its data in a temporary folder), standing queries that count and sum usage per org and
 * resource, and many concurrent clients posting the documents in batches of 10, honouring {@code
 * Retry-After} on a 429, until the standing queries' results show every total exactly.
 */
final class HttpMetering {
  static final ObjectMapper JSON = new ObjectMapper();
  static final int BATCH = 10;
  private static final String END = "";

  /** What one run measured. */
  record Outcome(long ms, long refused, long requests, double cpuCores, int wrong) {}

  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(10))
          .build();
  private final int workers;

  HttpMetering(int workers) {
    this.workers = workers;
  }

  /** A service with ingestion over a fresh data folder, GROUP BY limits fit for {@code groups}. */
  static SpyglassService serve(Path data, int workers, int groups)
      throws IOException, InterruptedException {
    QueryLimits limits = MeteringScenario.limits(groups);
    ServiceConfig config =
        ServiceConfig.defaults()
            .with(
                b -> {
                  b.port = 0;
                  b.dataDir = data;
                  b.queryLimits = limits;
                });
    return SpyglassService.startMetering(
        config,
        MeteringStart.of(Metering.Settings.DEFAULTS)
            .withEngine(EngineConfig.defaults().withWorkers(workers).withLimits(limits)));
  }

  Outcome run(Report report, UsageDocuments documents, int clients) throws Exception {
    int groups = documents.orgs * UsageDocuments.RESOURCES.length;
    Path data = Files.createTempDirectory("spyglass-bench-metering");
    try (SpyglassService service = serve(data, workers, groups)) {
      String base = "http://127.0.0.1:" + service.port();
      create(
          base,
          "all",
          "SELECT org, resource, COUNT(*) AS docs, SUM(quantity) AS total FROM STREAM(FOREVER)"
              + " GROUP BY org, resource WINDOWING TUMBLING(1h, EVENT_TIME(time), LATENESS 10m) LIMIT "
              + groups);
      BlockingQueue<String> bodies = new ArrayBlockingQueue<>(clients * 4);
      AtomicLong refused = new AtomicLong();
      AtomicLong requests = new AtomicLong();
      ExecutorService pool = Executors.newFixedThreadPool(clients + 1);
      Cpu c0 = Cpu.now();
      long t0 = System.currentTimeMillis();
      Future<?> producer = pool.submit(() -> produce(documents, bodies, clients));
      Future<?>[] senders = new Future<?>[clients];
      for (int i = 0; i < clients; i++) {
        senders[i] = pool.submit(() -> send(base, bodies, refused, requests));
      }
      producer.get();
      for (Future<?> f : senders) {
        f.get();
      }
      pool.shutdown();
      int wrong = -1;
      long deadline = System.currentTimeMillis() + 600_000;
      while (System.currentTimeMillis() < deadline) {
        wrong = check(report, base, documents, false);
        if (wrong == 0) {
          break;
        }
        Thread.sleep(50);
      }
      long t1 = System.currentTimeMillis();
      Cpu.Usage cpu = Cpu.now().since(c0);
      if (wrong != 0) {
        wrong = check(report, base, documents, true);
      }
      return new Outcome(t1 - t0, refused.get(), requests.get(), cpu.processCores(), wrong);
    } finally {
      delete(data);
    }
  }

  /**
   * The most documents/s clients sustain for {@code seconds} without a 429: paced at rising rates
   * until a 429 comes or the rate is not reached; returns {target, achieved} of the last clean
   * step.
   */
  double[] sustained(Report report, int clients, double[] rates, int seconds) throws Exception {
    Path data = Files.createTempDirectory("spyglass-bench-metering");
    double[] best = {0, 0};
    try (SpyglassService service = serve(data, workers, 4_000)) {
      String base = "http://127.0.0.1:" + service.port();
      create(
          base,
          "all",
          "SELECT org, resource, COUNT(*) AS docs, SUM(quantity) AS total FROM STREAM(FOREVER)"
              + " GROUP BY org, resource WINDOWING TUMBLING(1h, EVENT_TIME(time), LATENESS 10m) LIMIT 4000");
      UsageDocuments documents = new UsageDocuments(1_000, 1_000, 1_000);
      for (double rate : rates) {
        report.progress(String.format("paced at %,.0f documents/s for %d s", rate, seconds));
        BlockingQueue<String> bodies = new ArrayBlockingQueue<>(clients * 4);
        AtomicLong refused = new AtomicLong();
        AtomicLong requests = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(clients + 1);
        long batches = (long) (rate * seconds / BATCH);
        long t0 = System.nanoTime();
        Future<?> producer =
            pool.submit(
                () -> {
                  RawBatch b = new RawBatch();
                  for (long n = 0; n < batches; n++) {
                    long due = t0 + (long) (n * BATCH * 1e9 / rate);
                    long wait = due - System.nanoTime();
                    if (wait > 0) {
                      TimeUnit.NANOSECONDS.sleep(wait);
                    }
                    b.clear();
                    documents.poll(b, BATCH, 0);
                    bodies.put(body(b));
                  }
                  for (int i = 0; i < clients; i++) {
                    bodies.put(END);
                  }
                  return null;
                });
        Future<?>[] senders = new Future<?>[clients];
        for (int i = 0; i < clients; i++) {
          senders[i] = pool.submit(() -> send(base, bodies, refused, requests));
        }
        producer.get();
        for (Future<?> f : senders) {
          f.get();
        }
        pool.shutdown();
        double achieved = batches * BATCH / ((System.nanoTime() - t0) / 1e9);
        report.progress(
            String.format(
                "  %,.0f documents/s, %,d requests refused with 429", achieved, refused.get()));
        if (refused.get() > 0 || achieved < 0.9 * rate) {
          break;
        }
        best = new double[] {rate, achieved};
      }
    } finally {
      delete(data);
    }
    return best;
  }

  private void create(String base, String name, String query) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(base + "/api/standing-queries"))
                .header("Content-Type", "application/json")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        JSON.createObjectNode().put("name", name).put("query", query).toString()))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 201) {
      throw new IllegalStateException("cannot create the standing query: " + r.body());
    }
  }

  private static Void produce(UsageDocuments documents, BlockingQueue<String> bodies, int clients)
      throws InterruptedException {
    RawBatch b = new RawBatch();
    while (true) {
      b.clear();
      boolean more = documents.poll(b, BATCH, 0);
      if (b.size() > 0) {
        bodies.put(body(b));
      }
      if (!more) {
        break;
      }
    }
    for (int i = 0; i < clients; i++) {
      bodies.put(END);
    }
    return null;
  }

  private static String body(RawBatch b) {
    StringBuilder s = new StringBuilder(b.size() * 240);
    for (int i = 0; i < b.size(); i++) {
      s.append(new String(b.data(), b.start(i), b.length(i), StandardCharsets.UTF_8)).append('\n');
    }
    return s.toString();
  }

  /** A client: posts bodies until the end; on a 429 waits Retry-After seconds and posts again. */
  private Void send(
      String base, BlockingQueue<String> bodies, AtomicLong refused, AtomicLong requests)
      throws Exception {
    HttpRequest.Builder rb =
        HttpRequest.newBuilder(URI.create(base + "/api/ingest"))
            .header("Content-Type", "application/x-ndjson")
            .timeout(Duration.ofSeconds(60));
    while (true) {
      String body = bodies.take();
      if (body == END) {
        return null;
      }
      while (true) {
        requests.incrementAndGet();
        HttpResponse<String> r =
            http.send(
                rb.POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 202) {
          JsonNode o = JSON.readTree(r.body());
          if (!o.get("rejected").isEmpty()) {
            throw new IllegalStateException("documents refused: " + r.body());
          }
          break;
        }
        if (r.statusCode() == 429) {
          refused.incrementAndGet();
          long s = r.headers().firstValueAsLong("Retry-After").orElse(1);
          Thread.sleep(s * 1000);
          continue;
        }
        throw new IllegalStateException("POST /api/ingest: " + r.statusCode() + " " + r.body());
      }
    }
  }

  /** Compares the standing query's totals (summed over its windows) with the documents'. */
  private int check(Report report, String base, UsageDocuments d, boolean say) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(base + "/api/standing-queries/all/results")).build(),
            HttpResponse.BodyHandlers.ofString());
    int n = UsageDocuments.RESOURCES.length;
    long[] counts = new long[d.orgs * n];
    long[] sums = new long[d.orgs * n];
    for (JsonNode w : JSON.readTree(r.body())) {
      for (JsonNode rec : w.get("records")) {
        int o = Integer.parseInt(rec.get("org").asText().substring(4));
        int res = Arrays.asList(UsageDocuments.RESOURCES).indexOf(rec.get("resource").asText());
        counts[o * n + res] += rec.get("docs").asLong();
        sums[o * n + res] += rec.get("total").asLong();
      }
    }
    int wrong = 0;
    for (int o = 0; o < d.orgs; o++) {
      for (int res = 0; res < n; res++) {
        if (counts[o * n + res] != d.expectedCount(o, res)
            || sums[o * n + res] != d.expectedSum(o, res)) {
          wrong++;
          if (say && wrong <= 3) {
            report.problem(
                String.format(
                    "metering over HTTP: org %d %s: %d docs / %d total, expected %d / %d",
                    o,
                    UsageDocuments.RESOURCES[res],
                    counts[o * n + res],
                    sums[o * n + res],
                    d.expectedCount(o, res),
                    d.expectedSum(o, res)));
          }
        }
      }
    }
    return wrong;
  }

  private static void delete(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
