package io.spyglass.scenarios;

import java.util.ArrayList;
import java.util.List;

/**
 * Bullet's tests 5 and 6 (and JStorm's message-size test): the highest rate sustained, in records/s
 * and MB/s, against workers and record size, with 0 and 400 RAW needle queries, under Bullet's
 * condition: the engine keeps up with the paced source and the average read-to-result latency stays
 * under 200 ms. Records are replayed from memory so that the engine's own rate is measured; one row
 * per worker count with the generator (which runs on the reader thread) shows what generating
 * costs.
 */
final class DataScalingScenario implements Scenario {
  @Override
  public String name() {
    return "data-scaling";
  }

  @Override
  public String description() {
    return "Bullet tests 5-6: highest sustained records/s and MB/s against workers and record size,"
        + " with 0 and 400 RAW queries";
  }

  /** The size of the records of Bullet's tests 5 and 6: 3,080 MB/s over 756,000 records/s. */
  static final int BULLET_TEST_5_BYTES = 4_200;

  /** Test 6's queries; test 5 ran 680. */
  static final int BULLET_TEST_6_QUERIES = 400;

  static final int BULLET_TEST_5_QUERIES = 680;

  @Override
  public void run(Settings s, Report report) throws Exception {
    List<Integer> sizes =
        s.sizesOr(
            s.quick() ? List.of(500, 1843) : List.of(100, 500, 1843, BULLET_TEST_5_BYTES, 8192));
    List<Integer> workers = s.quick() ? List.of(Machine.cores()) : s.workersOrAll();
    int most = workers.get(workers.size() - 1);
    List<Integer> queries =
        s.queriesOr(s.quick() ? List.of(0, 40) : List.of(0, BULLET_TEST_6_QUERIES));
    long probeMs = s.quick() ? s.probeMs() : 3_000;
    int steps = s.steps(2, 4);
    Harness h = new Harness(report);
    Table t =
        new Table(
            "data-scaling",
            "Highest sustained rate (mean read-to-result latency < "
                + s.latencyBoundMs()
                + " ms, within 5% of the paced rate, every needle found)",
            "source",
            "workers",
            "record bytes",
            "RAW queries",
            "records/s",
            "MB/s",
            "CPU (cores)",
            "records/s per core",
            "MB/s per core",
            "latency mean (ms)",
            "latency p99 (ms)",
            "verdict");
    Report.Chart mbChart =
        report.chart(
            "data-scaling-mbps", "Sustained MB/s against record size", "record bytes", "MB/s");
    Report.Chart rpsChart =
        report.chart(
            "data-scaling-records",
            "Sustained records/s against workers (" + s.recordBytes() + " B records)",
            "workers",
            "records/s");
    for (int q : queries) {
      List<Integer> ws = new ArrayList<>();
      List<Double> rpsByWorkers = new ArrayList<>();
      List<Double> genByWorkers = new ArrayList<>();
      for (int w : workers) {
        // every size with the most workers (and with each count under --full); fewer workers
        // at the default size only, for the records/s against workers
        List<Integer> sizesHere =
            s.full() || w == most || !sizes.contains(s.recordBytes())
                ? sizes
                : List.of(s.recordBytes());
        List<Integer> xs = new ArrayList<>();
        List<Double> ys = new ArrayList<>();
        for (int size : sizesHere) {
          report.progress(String.format("replay, %d workers, %d B, %d queries", w, size, q));
          ProbeResult r =
              h.searchRate(
                  rate -> probe(s, Probe.SourceKind.REPLAY, rate, w, size, q, probeMs),
                  s.latencyBoundMs(),
                  steps);
          row(t, r, s);
          if (r.sustained(s.latencyBoundMs())) {
            xs.add(size);
            ys.add(r.mbPerSec());
          }
          if (size == s.recordBytes()) {
            ws.add(w);
            rpsByWorkers.add(r.sustained(s.latencyBoundMs()) ? r.recordsPerSec() : 0);
          }
        }
        if (sizesHere.size() > 1) {
          mbChart.series(String.format("%d workers, %d queries", w, q), xs, ys);
        }
        if (s.full() || w == most) {
          report.progress(
              String.format("generator, %d workers, %d B, %d queries", w, s.recordBytes(), q));
          ProbeResult g =
              h.searchRate(
                  rate -> probe(s, Probe.SourceKind.GEN, rate, w, s.recordBytes(), q, probeMs),
                  s.latencyBoundMs(),
                  steps);
          row(t, g, s);
          if (ws.size() > genByWorkers.size()) {
            genByWorkers.add(g.sustained(s.latencyBoundMs()) ? g.recordsPerSec() : 0);
          }
        }
      }
      rpsChart.series("replay, " + q + " queries", ws, rpsByWorkers);
      if (genByWorkers.size() == ws.size()) {
        rpsChart.series("generator, " + q + " queries", ws, genByWorkers);
      }
    }
    if (!s.quick() && s.queries().isEmpty() && sizes.contains(BULLET_TEST_5_BYTES)) {
      // test 5: 680 queries over its records of about 4.1 KiB
      report.progress(
          String.format(
              "replay, %d workers, %d B, %d queries (Bullet's test 5)",
              most, BULLET_TEST_5_BYTES, BULLET_TEST_5_QUERIES));
      row(
          t,
          h.searchRate(
              rate ->
                  probe(
                      s,
                      Probe.SourceKind.REPLAY,
                      rate,
                      most,
                      BULLET_TEST_5_BYTES,
                      BULLET_TEST_5_QUERIES,
                      probeMs),
              s.latencyBoundMs(),
              steps),
          s);
    }
    report.table(t);
    mbChart.logX().save();
    rpsChart.save();
  }

  private static Probe probe(
      Settings s, Probe.SourceKind source, long rate, int workers, int size, int queries, long ms) {
    return Probe.of(s)
        .withSource(source)
        .withRate(rate)
        .withWorkers(workers)
        .withRecordBytes(size)
        .withNeedleQueries(queries)
        .withDurationMs(ms);
  }

  static void row(Table t, ProbeResult r, Settings s) {
    Probe p = r.probe();
    double cores = Math.max(0.01, r.cpu().processCores());
    t.row(
        p.source().label(),
        p.workers(),
        p.recordBytes(),
        Table.count(p.needleQueries()),
        Table.count(r.recordsPerSec()),
        Table.num(r.mbPerSec(), 1),
        Table.num(r.cpu().processCores(), 2),
        Table.count(r.recordsPerSec() / cores),
        Table.num(r.mbPerSec() / cores, 1),
        Table.num(r.meanLatencyMs(), 1),
        Table.num(r.p99LatencyMs(), 0),
        r.verdict(s.latencyBoundMs()));
  }
}
