package io.spyglass.scenarios;

import java.util.ArrayList;
import java.util.List;

/**
 * JStorm's tests: throughput of the simplest pipeline (read, parse, one counting query) as fast as
 * it goes, against the number of workers (past the cores, as JStorm varied tasks per worker) and
 * against message size. Both sources: records replayed from memory (the engine alone) and the
 * generator (which also pays for making records on the reader thread).
 */
final class PipelineScenario implements Scenario {
  private static final String COUNT = "SELECT COUNT(*) AS n FROM STREAM(%d, TIME)";

  @Override
  public String name() {
    return "pipeline";
  }

  @Override
  public String description() {
    return "JStorm tests: unpaced throughput against workers and against message size";
  }

  @Override
  public void run(Settings s, Report report) throws Exception {
    Harness h = new Harness(report);
    long ms = s.quick() ? s.probeMs() : 3_000;
    int cores = Machine.cores();
    List<Integer> workerCounts =
        s.workers().isEmpty()
            ? (s.quick() ? List.of(1, cores) : List.of(1, 2, 4, 8, 16))
            : s.workers();
    List<Integer> sizes =
        s.sizesOr(
            s.quick()
                ? List.of(64, 1843)
                : s.full()
                    ? List.of(64, 128, 256, 512, 1024, 1843, 4096, 8192)
                    : List.of(64, 256, 1024, 1843, 4096, 8192));
    int smallest = 64;

    Table tw =
        new Table(
            "pipeline-workers",
            "Unpaced throughput against workers (" + smallest + " B messages, one COUNT query)",
            "source",
            "workers",
            "records/s",
            "MB/s",
            "CPU (cores)",
            "reader / workers / combiner (cores)");
    Report.Chart cw =
        report.chart("pipeline-workers", "Throughput against workers", "workers", "records/s");
    for (Probe.SourceKind kind : Probe.SourceKind.values()) {
      List<Integer> xs = new ArrayList<>();
      List<Double> ys = new ArrayList<>();
      for (int w : workerCounts) {
        report.progress(String.format("%s, %d workers", kind.label(), w));
        ProbeResult r = h.run(probe(s, kind, w, smallest, ms));
        check(report, r);
        row(tw, kind, w, r);
        xs.add(w);
        ys.add(r.recordsPerSec());
      }
      cw.series(kind.label(), xs, ys);
    }
    report.table(tw);
    cw.save();

    Table ts =
        new Table(
            "pipeline-size",
            "Unpaced throughput against message size (" + cores + " workers, one COUNT query)",
            "source",
            "record bytes",
            "records/s",
            "MB/s",
            "CPU (cores)",
            "reader / workers / combiner (cores)");
    Report.Chart cr =
        report.chart(
            "pipeline-size", "Throughput against message size", "record bytes", "records/s");
    Report.Chart cm =
        report.chart("pipeline-size-mbps", "MB/s against message size", "record bytes", "MB/s");
    for (Probe.SourceKind kind : Probe.SourceKind.values()) {
      List<Integer> xs = new ArrayList<>();
      List<Double> rs = new ArrayList<>();
      List<Double> mb = new ArrayList<>();
      for (int size : sizes) {
        report.progress(String.format("%s, %d B", kind.label(), size));
        ProbeResult r = h.run(probe(s, kind, cores, size, ms));
        check(report, r);
        row(ts, kind, size, r);
        xs.add(size);
        rs.add(r.recordsPerSec());
        mb.add(r.mbPerSec());
      }
      cr.series(kind.label(), xs, rs);
      cm.series(kind.label(), xs, mb);
    }
    report.table(ts);
    cr.logX().save();
    cm.logX().save();
  }

  private static Probe probe(Settings s, Probe.SourceKind kind, int workers, int size, long ms) {
    return Probe.of(s)
        .withSource(kind)
        .withWorkers(workers)
        .withRecordBytes(size)
        .withQueries(List.of(COUNT))
        .withDurationMs(ms);
  }

  private static void row(Table t, Probe.SourceKind kind, int x, ProbeResult r) {
    t.row(
        kind.label(),
        x,
        Table.count(r.recordsPerSec()),
        Table.num(r.mbPerSec(), 1),
        Table.num(r.cpu().processCores(), 2),
        r.cpu().roles());
  }

  /** The counting query saw records: its count is positive. */
  private static void check(Report report, ProbeResult r) {
    if (r.otherResults().isEmpty()
        || r.otherResults().get(0) == null
        || r.otherResults().get(0).records().isEmpty()
        || !(r.otherResults().get(0).records().get(0).get("n") instanceof Number n)
        || n.longValue() <= 0) {
      report.problem("the COUNT query gave " + r.otherResults());
    }
  }
}
