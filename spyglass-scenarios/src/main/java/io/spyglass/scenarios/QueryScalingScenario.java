package io.spyglass.scenarios;

import java.util.ArrayList;
import java.util.List;

/**
 * Bullet's test 7: at a fixed rate (Bullet's 68,400 records/s), the read-to-result latency against
 * simultaneous RAW needle queries, per worker count (Bullet's figure 16), the knee where the mean
 * passes 200 ms, and the most queries sustained per worker count (figure 15). Then the embedded
 * engine's acceptance: the highest rate sustained at 1, 100, 1,000 and 10,000 needle queries, from
 * the generator and from records replayed from memory, against Jackson merely scanning the same
 * bytes.
 */
final class QueryScalingScenario implements Scenario {
  @Override
  public String name() {
    return "query-scaling";
  }

  @Override
  public String description() {
    return "Bullet test 7: latency against simultaneous RAW queries at 68,400 records/s; max"
        + " queries per worker; highest rate at 1..10,000 needle queries against a Jackson scan";
  }

  /**
   * The most queries Bullet sustained under 200 ms in test 7, with 4, 8, ... 32 filter bolts (50,
   * 140, 240, 350, 500, 550, 600, 650), and the counts of its latency curve with 20 (350 to 650):
   * measured here too, beside 1 to 10,000.
   */
  static final List<Integer> SEED_COUNTS =
      List.of(1, 10, 50, 100, 140, 240, 350, 400, 450, 500, 550, 600, 650, 1_000, 10_000);

  @Override
  public void run(Settings s, Report report) throws Exception {
    long rate = s.rateOr(Settings.BULLET_RATE);
    List<Integer> counts = s.queriesOr(s.quick() ? List.of(1, 10, 100) : SEED_COUNTS);
    // the latency curve with every core (Bullet's figure 16 is one parallelism's); every worker
    // count with --full. The most queries are searched for every worker count.
    List<Integer> all = s.quick() ? List.of(Machine.cores()) : s.workersOrAll();
    List<Integer> workers = s.full() ? all : List.of(all.get(all.size() - 1));
    Harness h = new Harness(report);
    latencyAgainstQueries(s, report, h, rate, counts, workers);
    maxQueriesAgainstWorkers(s, report, h, rate, all);
    acceptance(s, report, h, rate);
  }

  private static Probe needles(Settings s, long rate, int workers, int queries) {
    return Probe.of(s).withRate(rate).withWorkers(workers).withNeedleQueries(queries);
  }

  private void latencyAgainstQueries(
      Settings s, Report report, Harness h, long rate, List<Integer> counts, List<Integer> workers)
      throws InterruptedException {
    Table t =
        new Table(
            "query-scaling-latency",
            String.format(
                "Read-to-result latency against simultaneous RAW queries, generator at %,d"
                    + " records/s of %d B",
                rate, s.recordBytes()),
            "workers",
            "queries",
            "records/s read",
            "CPU (cores)",
            "latency mean (ms)",
            "latency p99 (ms)",
            "needles found",
            "status");
    Report.Chart mean =
        report.chart(
            "query-scaling-latency",
            "Mean read-to-result latency against simultaneous queries",
            "simultaneous queries",
            "latency (ms)");
    Report.Chart p99 =
        report.chart(
            "query-scaling-latency-p99",
            "p99 read-to-result latency against simultaneous queries",
            "simultaneous queries",
            "latency (ms)");
    for (int w : workers) {
      List<Integer> xs = new ArrayList<>();
      List<Double> means = new ArrayList<>();
      List<Double> p99s = new ArrayList<>();
      Integer knee = null;
      for (int n : counts) {
        report.progress(String.format("%d workers, %,d queries", w, n));
        ProbeResult r = h.run(needles(s, rate, w, n));
        t.row(
            w,
            Table.count(n),
            Table.count(r.recordsPerSec()),
            Table.num(r.cpu().processCores(), 2),
            Table.num(r.meanLatencyMs(), 1),
            Table.num(r.p99LatencyMs(), 0),
            r.needlesFound() + "/" + r.needlesExpected(),
            r.verdict(s.latencyBoundMs()));
        xs.add(n);
        means.add(r.meanLatencyMs());
        p99s.add(r.p99LatencyMs());
        if (knee == null && !r.sustained(s.latencyBoundMs())) {
          knee = n;
        }
      }
      mean.series(w + " workers", xs, means);
      p99.series(w + " workers", xs, p99s);
      report.note(
          String.format(
              "%d workers: %s",
              w,
              knee == null
                  ? "no knee up to " + counts.get(counts.size() - 1) + " queries"
                  : "the mean passes "
                      + s.latencyBoundMs()
                      + " ms (or the engine falls behind) at "
                      + knee
                      + " queries"));
    }
    report.table(t);
    mean.logX().logY().save();
    p99.logX().logY().save();
  }

  private void maxQueriesAgainstWorkers(
      Settings s, Report report, Harness h, long rate, List<Integer> workers)
      throws InterruptedException {
    Table t =
        new Table(
            "query-scaling-max-queries",
            String.format(
                "Most simultaneous RAW queries with mean latency < %d ms at %,d records/s",
                s.latencyBoundMs(), rate),
            "workers",
            "max queries",
            "queries per worker",
            "CPU (cores) at max",
            "queries per CPU core");
    List<Integer> xs = new ArrayList<>();
    List<Integer> ys = new ArrayList<>();
    int start = s.quick() ? 10 : 1_000;
    int max = s.quick() ? 40 : 64_000;
    for (int w : workers) {
      report.progress(String.format("max queries, %d workers", w));
      Harness.Search search =
          h.searchCount(n -> needles(s, rate, w, n), start, max, s.latencyBoundMs(), s.steps(2, 3));
      double cores = Double.NaN;
      for (ProbeResult r : search.runs()) {
        if (r.probe().needleQueries() == search.best()) {
          cores = r.cpu().processCores();
        }
      }
      t.row(
          w,
          Table.count(search.best()) + (search.best() >= max ? " (bound)" : ""),
          Table.count(search.best() / (double) w),
          Table.num(cores, 2),
          Table.count(search.best() / cores));
      xs.add(w);
      ys.add(search.best());
    }
    report.table(t);
    report
        .chart(
            "query-scaling-max-queries",
            "Most simultaneous RAW queries (mean latency < " + s.latencyBoundMs() + " ms)",
            "workers",
            "queries")
        .series("max queries", xs, ys)
        .save();
  }

  private void acceptance(Settings s, Report report, Harness h, long rate)
      throws InterruptedException {
    int w = Machine.cores();
    List<Integer> counts = s.quick() ? List.of(1, 100) : List.of(1, 100, 1_000, 10_000);
    Table t =
        new Table(
            "query-scaling-highest-rate",
            String.format(
                "Highest sustained rate by needle queries (%d workers, %d B records, mean latency"
                    + " < %d ms, every needle found)",
                w, s.recordBytes(), s.latencyBoundMs()),
            "source",
            "needle queries",
            "records/s",
            "MB/s",
            "CPU (cores)",
            "reader / workers / combiner (cores)",
            "needles found",
            "latency p99 (ms)",
            "verdict");
    for (Probe.SourceKind kind : Probe.SourceKind.values()) {
      for (int n : counts) {
        report.progress(String.format("highest rate, %s, %,d queries", kind.label(), n));
        ProbeResult r =
            h.searchRate(
                rt -> needles(s, rt, w, n).withSource(kind), s.latencyBoundMs(), s.steps(1, 3));
        acceptanceRow(t, r, s);
      }
    }
    int target = s.quick() ? 100 : 10_000;
    for (Probe.SourceKind kind : Probe.SourceKind.values()) {
      report.progress(
          String.format("target: %s, %,d queries at %,d/s", kind.label(), target, rate));
      ProbeResult r =
          h.run(
              needles(s, rate, w, target)
                  .withSource(kind)
                  // Bullet's test: queries of 30 s, each finding its 10 records over the run
                  .withDurationMs(s.quick() ? 1_000 : 30_000));
      acceptanceRow(t, r, s);
      report.note(
          String.format(
              "target (%s): %,d needle queries at %,d records/s: read %,.0f/s, %d/%d needles,"
                  + " p99 %.0f ms -> %s",
              kind.label(),
              target,
              rate,
              r.recordsPerSec(),
              r.needlesFound(),
              r.needlesExpected(),
              r.p99LatencyMs(),
              r.keptUp() && r.allFound() && r.p99LatencyMs() < 50 ? "met" : "NOT met"));
    }
    report.table(t);

    readingAgainstScan(s, report, h, w);
  }

  /**
   * Reading plus routing against Jackson merely scanning the same bytes: the engine unpaced
   * (replayed records, one needle query) and the scan on as many threads, alternated so that each
   * pair sees the machine in the same state; the ratio of each pair, then their median.
   */
  private void readingAgainstScan(Settings s, Report report, Harness h, int w)
      throws InterruptedException {
    ReplaySource.Records records = h.records(s.recordBytes());
    long scanMs = s.quick() ? 500 : 3_000;
    int rounds = s.quick() ? 1 : 3;
    Table b =
        new Table(
            "query-scaling-scan-baseline",
            String.format(
                "Engine (replay, 1 needle query, unpaced, %d workers) against Jackson's streaming"
                    + " parser merely scanning the same records on %d threads, alternated",
                w, w),
            "round",
            "engine records/s",
            "engine MB/s",
            "scan records/s",
            "scan MB/s",
            "engine / scan");
    List<Double> ratios = new ArrayList<>();
    for (int round = 1; round <= rounds; round++) {
      report.progress(String.format("engine against a scan, round %d", round));
      ProbeResult e = h.run(needles(s, 0, w, 1).withSource(Probe.SourceKind.REPLAY));
      double[] scan = ScanBaseline.measure(records, w, scanMs);
      double ratio = e.mbPerSec() / scan[1];
      ratios.add(ratio);
      b.row(
          round,
          Table.count(e.recordsPerSec()),
          Table.num(e.mbPerSec(), 1),
          Table.count(scan[0]),
          Table.num(scan[1], 1),
          Table.num(100 * ratio, 0) + "%");
    }
    report.table(b);
    double[] one = ScanBaseline.measure(records, 1, scanMs);
    List<Double> sorted = ratios.stream().sorted().toList();
    report.note(
        String.format(
            "reading plus routing at %.0f%% of a %d-thread scan (median of %d rounds; target"
                + " 60%%); a one-thread scan reads %,.0f records/s (%.1f MB/s)",
            100 * sorted.get(sorted.size() / 2), w, rounds, one[0], one[1]));
  }

  private static void acceptanceRow(Table t, ProbeResult r, Settings s) {
    t.row(
        r.probe().source().label(),
        Table.count(r.probe().needleQueries()),
        Table.count(r.recordsPerSec()),
        Table.num(r.mbPerSec(), 1),
        Table.num(r.cpu().processCores(), 2),
        r.cpu().roles(),
        r.needlesFound() + "/" + r.needlesExpected(),
        Table.num(r.p99LatencyMs(), 0),
        r.probe().rate() == 0 ? "unpaced" : r.verdict(s.latencyBoundMs()));
  }
}
