package io.spyglass.scenarios;

import com.sun.net.httpserver.HttpServer;
import io.spyglass.engine.EngineConfig;
import io.spyglass.service.ServiceConfig;
import io.spyglass.service.SpyglassService;
import io.spyglass.service.runtime.EmbeddedRuntime;
import io.spyglass.sinks.DeliverySettings;
import io.spyglass.sinks.SinkPolicy;
import io.spyglass.sinks.SinkSettings;
import io.spyglass.sinks.SinkSpec;
import io.spyglass.sinks.Sinks;
import io.spyglass.sources.GeneratorSource;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * {@code spyglass bench service}, part 6: many windowed queries, each with a webhook sink, against
 * the same queries without sinks, alternated in rounds on one machine: the engine's record rate
 * with sinks over without, and the delay from a window's end (its {@code meta.window.emitTime}) to
 * its document at the receiver, a real HTTP server in this process on a loopback port.
 */
final class SinksPart {
  private final Settings s;
  private final Report report;
  private final HttpClient http;
  private final int queries;
  private final long windowMs;

  SinksPart(Settings s, Report report, HttpClient http) {
    this.s = s;
    this.report = report;
    this.http = http;
    this.queries = s.queriesOr(List.of(s.quick() ? 500 : 10_000)).get(0);
    this.windowMs = s.quick() ? 2_000 : 10_000;
  }

  /** The webhook receiver: counts documents and times each from its window's end. */
  private static final class Receiver implements AutoCloseable {
    final HttpServer server;
    final ExecutorService threads = Executors.newFixedThreadPool(4);
    final AtomicLong received = new AtomicLong();
    final Delays delays = new Delays();
    volatile long measureFromMs = Long.MAX_VALUE;

    Receiver() throws IOException {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1024);
      server.setExecutor(threads);
      server.createContext(
          "/",
          ex -> {
            byte[] body;
            try (InputStream in = ex.getRequestBody()) {
              body = in.readAllBytes();
            }
            long now = System.currentTimeMillis();
            long emit = emitTime(new String(body, StandardCharsets.UTF_8));
            if (emit > 0 && emit >= measureFromMs) {
              received.incrementAndGet();
              synchronized (delays) {
                delays.record(now - emit);
              }
            }
            ex.sendResponseHeaders(204, -1);
            ex.close();
          });
      server.start();
    }

    /** {@code meta.window.emitTime} of a document, found in its text; 0 when it has none. */
    static long emitTime(String doc) {
      int at = doc.indexOf("\"emitTime\":");
      if (at < 0) {
        return 0;
      }
      int from = at + "\"emitTime\":".length();
      int to = from;
      while (to < doc.length() && Character.isDigit(doc.charAt(to))) {
        to++;
      }
      return to > from ? Long.parseLong(doc.substring(from, to)) : 0;
    }

    String hostPort() {
      return "127.0.0.1:" + server.getAddress().getPort();
    }

    @Override
    public void close() {
      server.stop(0);
      threads.shutdownNow();
    }
  }

  /** One measured run: the engine's rate, and for the run with sinks what its receiver saw. */
  private record Run(
      double recordsPerSecond, long documents, double p50, double p99, double max, long dropped) {}

  void run() throws Exception {
    report.heading(
        "6. " + Table.count(queries) + " windowed queries, each with a webhook sink, and without");
    int rounds = s.quick() ? 1 : 2;
    List<Object[]> rows = new ArrayList<>();
    double without = 0;
    double with = 0;
    Run last = null;
    try (Receiver receiver = new Receiver()) {
      for (int round = 1; round <= rounds; round++) {
        // the order alternates: the first run of a JVM pays for its compilation
        Run a;
        Run b;
        if (round % 2 == 1) {
          a = measure(null);
          b = measure(receiver);
        } else {
          b = measure(receiver);
          a = measure(null);
        }
        without += a.recordsPerSecond();
        with += b.recordsPerSecond();
        last = b;
        rows.add(
            new Object[] {
              round,
              Table.count(a.recordsPerSecond()),
              Table.count(b.recordsPerSecond()),
              Table.num(b.recordsPerSecond() / a.recordsPerSecond(), 2),
              Table.count(b.documents()),
              Table.num(b.p50(), 0),
              Table.num(b.p99(), 0),
              Table.num(b.max(), 0),
              Table.count(b.dropped())
            });
        report.progress(
            String.format(
                "round %d: %,.0f records/s without sinks, %,.0f with; delivery p99 %.0f ms",
                round, a.recordsPerSecond(), b.recordsPerSecond(), b.p99()));
      }
    }
    Table t =
        new Table(
            "service-sinks",
            Table.count(queries)
                + " queries SELECT COUNT(*) ... WHERE duration = i WINDOWING TUMBLING("
                + windowMs
                + ", TIME), submitted over one window, generator unpaced ("
                + s.recordBytes()
                + " B records); with sinks each POSTs each window to a receiver in this process"
                + " on loopback. Rounds alternate which runs first; compare within a round",
            "round",
            "records/s without sinks",
            "with sinks",
            "ratio",
            "documents received",
            "window end -> received, p50 (ms)",
            "p99 (ms)",
            "max (ms)",
            "dropped");
    for (Object[] r : rows) {
      t.row(r);
    }
    t.row(
        "mean",
        Table.count(without / rounds),
        Table.count(with / rounds),
        Table.num(with / without, 2),
        "",
        "",
        "",
        "",
        "");
    t.row(
        "machine load (1 min) at the end",
        Table.num(Machine.loadAverage(), 1),
        "",
        "",
        "",
        "",
        "",
        "",
        "");
    report.table(t);
    if (last != null && last.dropped() > 0) {
      report.problem(last.dropped() + " documents were dropped by the sinks in the last round");
    }
  }

  /** A service with {@link #queries} windowed queries, with a sink to {@code receiver} or none. */
  private Run measure(Receiver receiver) throws Exception {
    GeneratorSource source =
        new GeneratorSource(GeneratorSource.Options.DEFAULTS.withRecordBytes(s.recordBytes()));
    EmbeddedRuntime runtime =
        EmbeddedRuntime.start(
            source, EngineConfig.defaults().withMaxQueries(queries + 16).withResultQueue(8_192));
    Path data = Files.createTempDirectory("spyglass-bench-sinks");
    SinkSettings sinks =
        receiver == null
            ? SinkSettings.DEFAULTS
            : new SinkSettings(
                SinkPolicy.of(List.of(receiver.hostPort()), null, List.of()),
                DeliverySettings.DEFAULTS);
    SpyglassService service =
        SpyglassService.start(
            ServiceConfig.defaults()
                .with(
                    b -> {
                      b.port = 0;
                      b.dataDir = data;
                      b.maxQueries = queries + 16;
                      b.maxQueriesPerUser = queries + 16;
                      b.sinks = sinks;
                    }),
            runtime);
    try {
      String base = "http://127.0.0.1:" + service.port();
      String hook =
          receiver == null
              ? null
              : "[{\"type\": \"webhook\", \"url\": \"http://" + receiver.hostPort() + "/hook\"}]";
      // spread over one window: the windows of the queries end spread over it too
      long t0 = System.nanoTime();
      for (int i = 0; i < queries; i++) {
        submit(base, i, hook);
        long due = t0 + (long) ((i + 1) * (windowMs * 1e6 / queries));
        long wait = due - System.nanoTime();
        if (wait > 1_000_000) {
          Thread.sleep(wait / 1_000_000);
        }
      }
      Thread.sleep(windowMs + s.warmupMs());
      long measureFrom = System.currentTimeMillis();
      if (receiver != null) {
        receiver.received.set(0);
        synchronized (receiver.delays) {
          receiver.delays.clear();
        }
        receiver.measureFromMs = measureFrom;
      }
      long n0 = runtime.engine().metrics().recordsProcessed();
      long start = System.nanoTime();
      Thread.sleep(Math.max(s.probeMs(), 3 * windowMs));
      double rate =
          (runtime.engine().metrics().recordsProcessed() - n0)
              / ((System.nanoTime() - start) / 1e9);
      if (receiver == null) {
        return new Run(rate, 0, 0, 0, 0, 0);
      }
      receiver.measureFromMs = Long.MAX_VALUE;
      Sinks hub = service.sinks();
      long dropped = hub.count(SinkSpec.Type.WEBHOOK, Sinks.Count.DROPPED);
      synchronized (receiver.delays) {
        return new Run(
            rate,
            receiver.received.get(),
            receiver.delays.percentile(50),
            receiver.delays.percentile(99),
            receiver.delays.max(),
            dropped);
      }
    } finally {
      service.close();
      try (Stream<Path> files = Files.walk(data)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  private void submit(String base, int i, String sinks) throws IOException, InterruptedException {
    String bql =
        "SELECT COUNT(*) AS n FROM STREAM(MAX, TIME) WHERE duration = "
            + i
            + " WINDOWING TUMBLING("
            + windowMs
            + ", TIME)";
    String body =
        "{\"query\": \""
            + bql
            + "\", \"detached\": true"
            + (sinks == null ? "" : ", \"sinks\": " + sinks)
            + "}";
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(base + "/api/queries"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 201) {
      throw new IllegalStateException("submit answered " + r.statusCode() + ": " + r.body());
    }
  }
}
