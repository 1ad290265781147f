package io.spyglass.scenarios;

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
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * {@code spyglass bench service}, part 6: many windowed queries, each with a webhook sink, against
 * the same queries without sinks, alternated in rounds on one machine: the engine's record rate
 * with sinks over without, by the wall clock and per CPU-second of the service's process, and the
 * delay from a window's end (its {@code meta.window.emitTime}) to its document at the receiver.
 *
 * <p>The receiver is a real HTTP server on a loopback port in a process of its own ({@link
 * SinkReceiver}), as a deployment's receiver runs elsewhere: its CPU is counted apart from the
 * service's. The service runs in this process, whose other threads (the bench's client) are idle
 * while the rate is measured. The queries are submitted spread over one window (as users come and
 * go), so that their windows end spread over it; {@code -Dspyglass.bench.sinks.spreadMs=0} submits
 * them as fast as one client can instead (their windows then end in a burst).
 */
final class SinksPart {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private final Settings s;
  private final Report report;
  private final HttpClient http;
  private final int queries;
  private final long windowMs;
  private final long spreadMs;
  private final int rounds;
  private final String only;

  SinksPart(Settings s, Report report, HttpClient http) {
    this.s = s;
    this.report = report;
    this.http = http;
    // quick: enough queries that their windows end spread over each window, few to submit
    this.queries = s.queriesOr(List.of(s.quick() ? 100 : 10_000)).get(0);
    this.windowMs = s.quick() ? 1_000 : 10_000;
    // -Dspyglass.bench.sinks.spreadMs=0: every query submitted at once (their windows end together)
    this.spreadMs = Long.getLong("spyglass.bench.sinks.spreadMs", windowMs);
    this.rounds = Integer.getInteger("spyglass.bench.sinks.rounds", s.quick() ? 1 : 2);
    // -Dspyglass.bench.sinks.only=with (or without): one variant, to profile it
    this.only = System.getProperty("spyglass.bench.sinks.only", "");
  }

  /**
   * One measured run.
   *
   * @param recordsPerSecond the engine's records per wall second
   * @param serviceCores the service's process: CPU seconds per wall second
   * @param deliveryCores of which the threads that deliver (the sinks' and the HTTP client's)
   * @param receiverCores the receiver's process, CPU seconds per wall second
   * @param documents documents of the windows that ended in the measured time, received
   * @param p50 window end to its document at the receiver, ms
   * @param load the machine's load average (1 min) when the measured time began
   */
  private record Run(
      double recordsPerSecond,
      double serviceCores,
      double deliveryCores,
      double receiverCores,
      long documents,
      double p50,
      double p99,
      double max,
      long dropped,
      double load) {
    double perCpuSecond() {
      return recordsPerSecond / serviceCores;
    }
  }

  private static final Run NONE =
      new Run(Double.NaN, Double.NaN, Double.NaN, Double.NaN, 0, 0, 0, 0, 0, Double.NaN);

  void run() throws Exception {
    report.heading(
        "6. "
            + Table.count(queries)
            + " windowed queries, each with a webhook sink, and without"
            + (spreadMs < windowMs ? " (submitted over " + spreadMs + " ms: a burst)" : ""));
    List<Object[]> rows = new ArrayList<>();
    double without = 0;
    double with = 0;
    double withoutPerCpu = 0;
    double withPerCpu = 0;
    Run last = null;
    try (SinkReceiver.Process receiver = SinkReceiver.Process.start()) {
      for (int round = 1; round <= rounds; round++) {
        // the order alternates: the first run of a JVM pays for its compilation
        boolean withoutFirst = round % 2 == 1;
        Run a = NONE;
        Run b = NONE;
        if (withoutFirst && !only.equals("with")) {
          a = measure(null);
        }
        if (!only.equals("without")) {
          b = measure(receiver);
        }
        if (!withoutFirst && !only.equals("with")) {
          a = measure(null);
        }
        without += a.recordsPerSecond();
        with += b.recordsPerSecond();
        withoutPerCpu += a.perCpuSecond();
        withPerCpu += b.perCpuSecond();
        last = b;
        rows.add(
            new Object[] {
              round + (withoutFirst ? " (without first)" : " (with first)"),
              Table.count(a.recordsPerSecond()),
              Table.count(b.recordsPerSecond()),
              Table.num(b.recordsPerSecond() / a.recordsPerSecond(), 2),
              Table.num(a.serviceCores(), 2),
              Table.num(b.serviceCores(), 2),
              Table.num(b.perCpuSecond() / a.perCpuSecond(), 2),
              Table.num(b.deliveryCores(), 2),
              Table.num(b.receiverCores(), 2),
              Table.count(b.documents()),
              Table.num(b.p50(), 0),
              Table.num(b.p99(), 0),
              Table.num(b.max(), 0),
              Table.count(b.dropped()),
              Table.num(a.load(), 1) + ", " + Table.num(b.load(), 1)
            });
        report.progress(
            String.format(
                "round %d: %,.0f records/s without sinks (%.2f cores), %,.0f with (%.2f cores);"
                    + " per CPU-second %.2f of without; delivery p50 %.0f ms, p99 %.0f ms",
                round,
                a.recordsPerSecond(),
                a.serviceCores(),
                b.recordsPerSecond(),
                b.serviceCores(),
                b.perCpuSecond() / a.perCpuSecond(),
                b.p50(),
                b.p99()));
      }
    }
    Table t =
        new Table(
            spreadMs < windowMs ? "service-sinks-burst" : "service-sinks",
            Table.count(queries)
                + " queries SELECT COUNT(*) ... WHERE duration = i WINDOWING TUMBLING("
                + windowMs
                + ", TIME), submitted over "
                + spreadMs
                + " ms, generator unpaced ("
                + s.recordBytes()
                + " B records); with sinks each POSTs each window to a receiver in a process of its"
                + " own on loopback. The rate over "
                + measureMs() / 1000
                + " s; CPU in cores (CPU seconds per second) of the service's process and of the"
                + " receiver's. Rounds alternate which runs first; compare within a round",
            "round",
            "records/s without sinks",
            "with sinks",
            "ratio",
            "service CPU without (cores)",
            "with",
            "ratio per CPU-second",
            "of which delivery threads (cores)",
            "receiver CPU (cores)",
            "documents received",
            "window end -> received, p50 (ms)",
            "p99 (ms)",
            "max (ms)",
            "dropped",
            "load (1 min) at start, without, with");
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
        Table.num(withPerCpu / withoutPerCpu, 2),
        "",
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

  /** How long the rate is measured: three windows. */
  private long measureMs() {
    return Math.max(s.probeMs(), 3 * windowMs);
  }

  /** A service with {@link #queries} windowed queries, with a sink to {@code receiver} or none. */
  private Run measure(SinkReceiver.Process receiver) throws Exception {
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
        long due = t0 + (long) ((i + 1) * (spreadMs * 1e6 / queries));
        long wait = due - System.nanoTime();
        if (wait > 1_000_000) {
          Thread.sleep(wait / 1_000_000);
        }
      }
      Thread.sleep(windowMs + s.warmupMs());
      long measureMs = measureMs();
      long from = System.currentTimeMillis();
      double load = Machine.loadAverage();
      SinkReceiver.Stats r0 = null;
      if (receiver != null) {
        receiver.measure(from, from + measureMs);
        r0 = receiver.stats();
      }
      long n0 = runtime.engine().metrics().recordsProcessed();
      Cpu c0 = Cpu.now();
      Map<Long, Long> d0 = deliveryCpuNanos();
      long start = System.nanoTime();
      Thread.sleep(measureMs);
      long n1 = runtime.engine().metrics().recordsProcessed();
      Cpu c1 = Cpu.now();
      Map<Long, Long> d1 = deliveryCpuNanos();
      long delivery = since(d0, d1);
      double seconds = (System.nanoTime() - start) / 1e9;
      double rate = (n1 - n0) / seconds;
      double cores = c1.since(c0).processCores();
      if (receiver == null) {
        return new Run(rate, cores, delivery / 1e9 / seconds, 0, 0, 0, 0, 0, 0, load);
      }
      SinkReceiver.Stats r1 = receiver.stats();
      // the documents of the last windows measured are still on their way: a while for them
      Thread.sleep(s.quick() ? 1_000 : 5_000);
      SinkReceiver.Stats r2 = receiver.stats();
      Sinks hub = service.sinks();
      long dropped = hub.count(SinkSpec.Type.WEBHOOK, Sinks.Count.DROPPED);
      return new Run(
          rate,
          cores,
          delivery / 1e9 / seconds,
          (r1.cpuNanos() - r0.cpuNanos()) / 1e9 / seconds,
          r2.received(),
          r2.p50(),
          r2.p99(),
          r2.max(),
          dropped,
          load);
    } finally {
      service.close();
      try (Stream<Path> files = Files.walk(data)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  /**
   * CPU time of the threads that deliver (the sinks' and their HTTP clients'), by thread, in ns.
   */
  private static Map<Long, Long> deliveryCpuNanos() {
    Map<Long, Long> out = new HashMap<>();
    for (ThreadInfo info : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
      if (info == null) {
        continue;
      }
      String name = info.getThreadName();
      if (name.startsWith("spyglass-sink") || name.startsWith("HttpClient-")) {
        long t = THREADS.getThreadCpuTime(info.getThreadId());
        if (t > 0) {
          out.put(info.getThreadId(), t);
        }
      }
    }
    return out;
  }

  /**
   * The CPU time the threads of {@code after} used since {@code before}: a thread that ended
   * meanwhile (a former service's) counts nothing, one that started counts all its time.
   */
  private static long since(Map<Long, Long> before, Map<Long, Long> after) {
    long sum = 0;
    for (Map.Entry<Long, Long> e : after.entrySet()) {
      sum += e.getValue() - before.getOrDefault(e.getKey(), 0L);
    }
    return sum;
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
