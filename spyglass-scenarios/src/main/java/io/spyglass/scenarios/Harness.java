package io.spyglass.scenarios;

import io.spyglass.core.result.Meta;
import io.spyglass.core.result.Result;
import io.spyglass.engine.Engine;
import io.spyglass.engine.EngineConfig;
import io.spyglass.engine.EngineMetrics;
import io.spyglass.engine.QueryHandle;
import io.spyglass.sources.GeneratorSource;
import io.spyglass.sources.Source;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.function.LongFunction;
import org.HdrHistogram.Histogram;

/**
 * Runs {@link Probe}s against a fresh embedded engine each, as a user would: queries in BQL,
 * records from a source, results read from query handles. Correctness problems (a result holding
 * another query's needle) go to the report; missing needles are counted, not reported, because
 * losing them is how an overloaded run fails.
 */
final class Harness {
  private static final long SEED = 42;
  private static final long GRACE_MS = 3_000;
  private static final AtomicLong RUNS = new AtomicLong();

  private final Report report;
  private final Map<Integer, ReplaySource.Records> replays = new HashMap<>();

  Harness(Report report) {
    this.report = report;
  }

  /** The replayed records of a size, generated once per harness (about 64 MB). */
  ReplaySource.Records records(int recordBytes) {
    return replays.computeIfAbsent(recordBytes, b -> new ReplaySource.Records(SEED, b, 64L << 20));
  }

  ProbeResult run(Probe p) throws InterruptedException {
    long run = RUNS.incrementAndGet();
    Source source;
    Consumer<Map<String, Object>> inserter;
    if (p.source() == Probe.SourceKind.GEN) {
      GeneratorSource g =
          new GeneratorSource(
              GeneratorSource.Options.DEFAULTS
                  .withSeed(SEED + run)
                  .withRate(p.rate())
                  .withRecordBytes(p.recordBytes()));
      source = g;
      inserter = g::insertNeedle;
    } else {
      ReplaySource r = new ReplaySource(records(p.recordBytes()), p.rate(), SEED + run);
      source = r;
      inserter = r::insertNeedle;
    }
    long queryMs = p.warmupMs() + p.durationMs() + GRACE_MS;
    EngineConfig config =
        EngineConfig.defaults()
            .withWorkers(p.workers())
            .withResultQueue(4_096)
            .withMaxQueries(p.needleQueries() + p.queries().size() + 16);
    try (Engine engine = Engine.startPaused(source, config)) {
      String probeId = "probe-" + run;
      QueryHandle probe =
          engine.submit(
              "SELECT _read_ms FROM STREAM("
                  + queryMs
                  + ", TIME) WHERE id = '"
                  + probeId
                  + "' WINDOWING EVERY(1, RECORD, FIRST, 1, RECORD)");
      List<QueryHandle> needles = new ArrayList<>();
      for (int i = 0; i < p.needleQueries(); i++) {
        needles.add(
            engine.submit(
                "SELECT "
                    + p.needleSelect()
                    + " FROM STREAM("
                    + queryMs
                    + ", TIME) WHERE id = '"
                    + needleId(run, i)
                    + "' LIMIT "
                    + p.needlesPerQuery()));
      }
      List<QueryHandle> others = new ArrayList<>();
      for (String q : p.queries()) {
        others.add(engine.submit(String.format(q, queryMs)));
      }
      probe.awaitRunning(60, TimeUnit.SECONDS);
      for (QueryHandle h : needles) {
        h.awaitRunning(60, TimeUnit.SECONDS);
      }
      for (QueryHandle h : others) {
        h.awaitRunning(60, TimeUnit.SECONDS);
      }
      engine.resume();
      Thread.sleep(p.warmupMs());

      long t0 = System.currentTimeMillis();
      EngineMetrics m0 = engine.metrics();
      Cpu c0 = Cpu.now();
      Histogram latency = new Histogram(3_600_000L, 3);
      AtomicInteger maxQueued = new AtomicInteger();
      Thread probes = probeInserter(inserter, probeId, p.durationMs());
      Thread reader = probeReader(probe, t0, latency);
      Thread needleSender = needleInserter(inserter, run, p, maxQueued, engine);
      probes.start();
      reader.start();
      needleSender.start();
      probes.join();
      needleSender.join();
      Cpu.Usage cpu = Cpu.now().since(c0);
      EngineMetrics m1 = engine.metrics();
      double secs = Math.max(1, System.currentTimeMillis() - t0) / 1000.0;
      double rps = (m1.recordsRead() - m0.recordsRead()) / secs;
      double mbps = (m1.bytesRead() - m0.bytesRead()) / secs / 1e6;

      Histogram needleLatency = new Histogram(3_600_000L, 3);
      long found = collectNeedles(engine, run, p, needles, needleLatency);
      engine.finishAll();
      List<Result> otherResults = new ArrayList<>();
      for (QueryHandle h : others) {
        otherResults.add(lastResult(h));
      }
      probe.kill();
      reader.join(5_000);
      long expected = (long) p.needleQueries() * p.needlesPerQuery();
      double avgSize = p.needleQueries() == 0 ? Double.NaN : found / (double) p.needleQueries();
      return new ProbeResult(
          p,
          rps,
          mbps,
          cpu,
          latency,
          needleLatency,
          maxQueued.get(),
          expected,
          found,
          avgSize,
          otherResults);
    }
  }

  private static String needleId(long run, int i) {
    return "n" + run + "-" + i;
  }

  /** Inserts a probe record every 10 ms for the measured time. */
  private static Thread probeInserter(
      Consumer<Map<String, Object>> inserter, String probeId, long durationMs) {
    return new Thread(
        () -> {
          long end = System.nanoTime() + durationMs * 1_000_000;
          long seq = 0;
          try {
            while (System.nanoTime() < end) {
              inserter.accept(Map.of("id", probeId, "probe_seq", seq++));
              Thread.sleep(10);
            }
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        },
        "bench-probe-inserter");
  }

  /** Reads the probe query's results: one per probe record, latency = emitted - read. */
  private static Thread probeReader(QueryHandle probe, long t0, Histogram latency) {
    Thread t =
        new Thread(
            () -> {
              try {
                while (true) {
                  boolean done = probe.isDone(); // before the poll: nothing queued is missed
                  Result r = probe.poll(100, TimeUnit.MILLISECONDS);
                  if (r == null) {
                    if (done) {
                      return;
                    }
                    continue;
                  }
                  Long emit = r.meta().window().map(Meta.WindowMeta::emitTimeMs).orElse(null);
                  for (Map<String, Object> rec : r.records()) {
                    Object read = rec.get("_read_ms");
                    if (emit != null && read instanceof Number n && n.longValue() >= t0) {
                      latency.recordValue(Math.max(0, emit - n.longValue()));
                    }
                  }
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "bench-probe-reader");
    t.setDaemon(true);
    return t;
  }

  /**
   * Sends every needle query its needles, spread evenly over the first 80% of the measured time
   * (needle k goes to query k mod N), and samples the engine's queue meanwhile.
   */
  private static Thread needleInserter(
      Consumer<Map<String, Object>> inserter,
      long run,
      Probe p,
      AtomicInteger maxQueued,
      Engine engine) {
    return new Thread(
        () -> {
          long total = (long) p.needleQueries() * p.needlesPerQuery();
          long start = System.nanoTime();
          long spread = Math.max(1, p.durationMs() * 800_000L);
          long end = start + p.durationMs() * 1_000_000L;
          long sent = 0;
          long lastSample = 0;
          try {
            while (System.nanoTime() < end) {
              long now = System.nanoTime();
              long due = Math.min(total, (long) ((double) (now - start) / spread * total) + 1);
              for (; sent < due; sent++) {
                int q = (int) (sent % p.needleQueries());
                inserter.accept(Map.of("id", needleId(run, q), "needle", sent / p.needleQueries()));
              }
              if (now - lastSample > 100_000_000L) {
                lastSample = now;
                maxQueued.accumulateAndGet(engine.metrics().queuedBatches(), Math::max);
              }
              Thread.sleep(5);
            }
            for (; sent < total; sent++) {
              int q = (int) (sent % p.needleQueries());
              inserter.accept(Map.of("id", needleId(run, q), "needle", sent / p.needleQueries()));
            }
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        },
        "bench-needle-inserter");
  }

  /**
   * Waits for the needle queries (those still short of needles after a grace period are finished
   * early) and counts the distinct needles each found. A record of another query is a problem.
   */
  private long collectNeedles(
      Engine engine, long run, Probe p, List<QueryHandle> needles, Histogram latency)
      throws InterruptedException {
    long deadline = System.currentTimeMillis() + GRACE_MS;
    for (QueryHandle h : needles) {
      h.awaitDone(Math.max(0, deadline - System.currentTimeMillis()), TimeUnit.MILLISECONDS);
    }
    engine.finishAll();
    long found = 0;
    for (int i = 0; i < needles.size(); i++) {
      Result r = lastResult(needles.get(i));
      if (r == null) {
        continue;
      }
      Set<Object> seen = new HashSet<>();
      long lastRead = -1;
      for (Map<String, Object> rec : r.records()) {
        if (!needleId(run, i).equals(rec.get("id"))) {
          report.problem("query " + i + " returned a record of " + rec.get("id"));
          continue;
        }
        seen.add(rec.get("needle"));
        if (rec.get("_read_ms") instanceof Number n) {
          lastRead = Math.max(lastRead, n.longValue());
        }
      }
      found += seen.size();
      if (seen.size() == p.needlesPerQuery() && lastRead >= 0) {
        long finish = r.meta().finishTimeMs().orElse(lastRead);
        latency.recordValue(Math.max(0, finish - lastRead));
      }
    }
    return found;
  }

  /** The final result of a query (raw needle queries emit one), waiting up to 10 s. */
  private static Result lastResult(QueryHandle h) throws InterruptedException {
    Result last = null;
    long deadline = System.currentTimeMillis() + 10_000;
    while (System.currentTimeMillis() < deadline) {
      Result r = h.poll(Math.max(1, deadline - System.currentTimeMillis()), TimeUnit.MILLISECONDS);
      if (r == null) {
        break;
      }
      last = r;
      if (r.meta().isFinal()) {
        break;
      }
    }
    return last;
  }

  /**
   * The highest paced rate that is sustained: first an unpaced run gives the rate the engine reads
   * at, then paced runs step down from 95% of it until one is sustained, then bisect once above it.
   * Returns the best sustained result, or the last failure if none was.
   */
  ProbeResult searchRate(LongFunction<Probe> probe, long latencyBoundMs, int steps)
      throws InterruptedException {
    ProbeResult free = run(probe.apply(0));
    long top = Math.max(100, (long) free.recordsPerSec());
    report.progress(String.format("unpaced: %,.0f records/s", free.recordsPerSec()));
    ProbeResult best = null;
    ProbeResult last = null;
    long lo = 0;
    long hi = top;
    long rate = round(top * 0.95);
    for (int i = 0; i < steps && rate > 0; i++) {
      ProbeResult r = run(probe.apply(rate));
      last = r;
      report.progress(
          String.format(
              "rate %,d: read %,.0f/s, mean latency %.1f ms, %s",
              rate, r.recordsPerSec(), r.meanLatencyMs(), r.verdict(latencyBoundMs)));
      if (r.sustained(latencyBoundMs)) {
        best = r;
        lo = rate;
        if (best.probe().rate() >= round(top * 0.95) || (hi - lo) < hi / 20) {
          break;
        }
        rate = round((lo + hi) / 2);
      } else {
        hi = rate;
        rate = lo > 0 ? round((lo + hi) / 2) : round(rate * 0.7);
        if (lo > 0 && (hi - lo) < hi / 20) {
          break;
        }
      }
    }
    return best != null ? best : last;
  }

  /**
   * The most simultaneous queries that are sustained: doubling from {@code start} until a run fails
   * or {@code max} is reached, then bisecting. Returns the best sustained count (0 if none) with
   * every result seen, in the order run.
   */
  Search searchCount(IntFunction<Probe> probe, int start, int max, long latencyBoundMs, int steps)
      throws InterruptedException {
    List<ProbeResult> seen = new ArrayList<>();
    int lo = 0;
    int hi = -1;
    for (int n = start; ; n = Math.min(max, n * 2)) {
      ProbeResult r = run(probe.apply(n));
      seen.add(r);
      progressCount(n, r, latencyBoundMs);
      if (!r.sustained(latencyBoundMs)) {
        hi = n;
        break;
      }
      lo = n;
      if (n >= max) {
        break;
      }
    }
    for (int i = 0; i < steps && hi > 0 && hi - lo > Math.max(1, lo / 10); i++) {
      int n = (lo + hi) / 2;
      ProbeResult r = run(probe.apply(n));
      seen.add(r);
      progressCount(n, r, latencyBoundMs);
      if (r.sustained(latencyBoundMs)) {
        lo = n;
      } else {
        hi = n;
      }
    }
    return new Search(lo, seen);
  }

  private void progressCount(int n, ProbeResult r, long latencyBoundMs) {
    report.progress(
        String.format(
            "%,d queries: read %,.0f/s, mean latency %.1f ms, found %d/%d, %s",
            n,
            r.recordsPerSec(),
            r.meanLatencyMs(),
            r.needlesFound(),
            r.needlesExpected(),
            r.verdict(latencyBoundMs)));
  }

  record Search(int best, List<ProbeResult> runs) {}

  private static long round(double rate) {
    if (rate < 1_000) {
      return Math.max(1, Math.round(rate));
    }
    double unit = Math.pow(10, Math.floor(Math.log10(rate)) - 1);
    return (long) (Math.floor(rate / unit) * unit);
  }
}
