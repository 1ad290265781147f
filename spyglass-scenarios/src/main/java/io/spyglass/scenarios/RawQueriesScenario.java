package io.spyglass.scenarios;

import java.util.ArrayList;
import java.util.List;

/**
 * Bullet's tests 3 and 4: N simultaneous queries {@code WHERE id = '<value>' LIMIT 10} over 30 s at
 * a fixed rate, each sent its 10 needle records during the run. A run passes when every query
 * returns all 10 and the engine keeps up with the source (the way Bullet's runs failed: its filters
 * fell behind the spouts). The largest passing N is searched by doubling, then bisection.
 */
final class RawQueriesScenario implements Scenario {
  @Override
  public String name() {
    return "raw-queries";
  }

  @Override
  public String description() {
    return "Bullet tests 3-4: most simultaneous RAW needle queries (LIMIT 10) at a fixed rate";
  }

  /**
   * The simultaneous queries of Bullet's tables: test 3 ran 0, 100, 200, 300 and 400, test 4 0,
   * 300, 500, 600, 700, 735 and 800 ("Tuning and Performance of Bullet in Storm").
   */
  static final List<Integer> SEED_COUNTS = List.of(0, 100, 200, 300, 400, 500, 600, 700, 735, 800);

  @Override
  public void run(Settings s, Report report) throws Exception {
    long rate = s.rateOr(Settings.BULLET_TESTS_3_4_RATE);
    // Bullet's queries ran for 30 s at most (or until their 10 records came); the default runs
    // them for 10 s, the needles spread over the first 8
    long duration = s.quick() ? 1_500 : s.full() ? 30_000 : 10_000;
    List<Integer> counts = s.queriesOr(s.quick() ? List.of(0, 10, 20) : SEED_COUNTS);
    int max = s.quick() ? 40 : 64_000;
    int workers = Machine.cores();
    report.note(
        String.format(
            "generator at %,d records/s of %d B, %d workers, queries run %d s; a run passes when"
                + " every query finds its 10 records and the engine keeps within 5%% of the rate;"
                + " Bullet's counts first, then doubling past them until a run fails",
            rate, s.recordBytes(), workers, duration / 1000));
    Harness h = new Harness(report);
    Probe base = Probe.of(s).withRate(rate).withWorkers(workers).withDurationMs(duration);
    List<ProbeResult> all = new ArrayList<>();
    for (int n : counts) {
      report.progress(String.format("%,d queries", n));
      all.add(h.run(base.withNeedleQueries(n)));
    }
    int last = counts.get(counts.size() - 1);
    if (all.stream().allMatch(r -> r.keptUp() && r.allFound()) && last * 2 <= max) {
      Harness.Search search =
          h.searchCount(
              n -> base.withNeedleQueries(n), last * 2, max, Long.MAX_VALUE, s.steps(1, 4));
      all.addAll(search.runs());
    }
    all.sort((a, b) -> Integer.compare(a.probe().needleQueries(), b.probe().needleQueries()));
    int best = 0;
    for (ProbeResult r : all) {
      if (!(r.keptUp() && r.allFound())) {
        break;
      }
      best = r.probe().needleQueries();
    }

    Table t =
        new Table(
            "raw-queries",
            String.format(
                "Simultaneous RAW queries at %,d records/s (%d workers): most passing = %,d",
                rate, workers, best),
            "simultaneous queries",
            "CPU (cores)",
            "CPU (ms/min)",
            "average result size",
            "records/s read",
            "needle read -> result p99 (ms)",
            "pass");
    List<Integer> xs = new ArrayList<>();
    List<Double> cpu = new ArrayList<>();
    List<Double> size = new ArrayList<>();
    for (ProbeResult r : all) {
      int n = r.probe().needleQueries();
      boolean pass = r.keptUp() && r.allFound();
      t.row(
          Table.count(n),
          Table.num(r.cpu().processCores(), 2),
          Table.count(r.cpu().processCores() * 60_000),
          n == 0 ? "N/A" : Table.num(r.avgResultSize(), 2),
          Table.count(r.recordsPerSec()),
          r.needleLatencyMs().getTotalCount() == 0
              ? "n/a"
              : Table.count(r.needleLatencyMs().getValueAtPercentile(99)),
          pass ? "OK" : r.verdict(Long.MAX_VALUE));
      if (n > 0) {
        xs.add(n);
        cpu.add(r.cpu().processCores());
        size.add(r.avgResultSize());
      }
    }
    report.table(t);
    report
        .chart("raw-queries-cpu", "CPU against simultaneous RAW queries", "queries", "CPU (cores)")
        .logX()
        .series("CPU (cores)", xs, cpu)
        .save();
    report
        .chart(
            "raw-queries-result-size",
            "Average result size (10 expected)",
            "queries",
            "records per result")
        .logX()
        .series("average result size", xs, size)
        .save();
    if (!all.isEmpty() && all.size() > 1) {
      ProbeResult smallest = all.get(1);
      if (smallest.keptUp() && !smallest.allFound()) {
        report.problem(
            "at "
                + smallest.probe().needleQueries()
                + " queries the engine kept up but found "
                + smallest.needlesFound()
                + " of "
                + smallest.needlesExpected()
                + " needles");
      }
    }
  }
}
