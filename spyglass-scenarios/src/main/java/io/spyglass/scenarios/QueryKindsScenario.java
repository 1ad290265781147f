package io.spyglass.scenarios;

import io.spyglass.core.result.Result;
import java.util.ArrayList;
import java.util.List;

/**
 * Bullet's query-scaling test with other kinds of queries: GROUP BY, COUNT DISTINCT, QUANTILE and
 * TOP K (each seeing every record), and a realistic mix (mostly needle lookups, a few aggregations
 * filtered by country: {@link QueryMix}). The most simultaneous queries of each kind sustained at a
 * fixed rate.
 */
final class QueryKindsScenario implements Scenario {
  enum Kind {
    RAW("RAW needle (WHERE id = .. LIMIT 10)", null),
    GROUP_BY(
        "GROUP BY",
        "SELECT demographics.country AS country, device, COUNT(*) AS n, AVG(duration) AS"
            + " avgDuration FROM STREAM(%d, TIME) GROUP BY demographics.country, device"),
    COUNT_DISTINCT(
        "COUNT DISTINCT", "SELECT COUNT(DISTINCT ip_address) AS ips FROM STREAM(%d, TIME)"),
    QUANTILE("QUANTILE", "SELECT QUANTILE(duration, LINEAR, 11) FROM STREAM(%d, TIME)"),
    TOP_K("TOP K", "SELECT TOP(10, browser_name) AS n FROM STREAM(%d, TIME)"),
    MIX("mix: 60% RAW, 10% each aggregation by country", null);

    final String label;
    final String template;

    Kind(String label, String template) {
      this.label = label;
      this.template = template;
    }
  }

  @Override
  public String name() {
    return "query-kinds";
  }

  @Override
  public String description() {
    return "most simultaneous GROUP BY, COUNT DISTINCT, QUANTILE, TOP K and mixed queries at a"
        + " fixed rate";
  }

  @Override
  public void run(Settings s, Report report) throws Exception {
    long rate = s.rateOr(Settings.BULLET_RATE);
    int w = Machine.cores();
    Harness h = new Harness(report);
    Table t =
        new Table(
            "query-kinds",
            String.format(
                "Most simultaneous queries by kind, generator at %,d records/s of %d B, %d"
                    + " workers, mean latency < %d ms",
                rate, s.recordBytes(), w, s.latencyBoundMs()),
            "kind",
            "max queries",
            "CPU (cores) at max",
            "latency mean (ms) at max",
            "latency p99 (ms) at max",
            "first failing",
            "failure");
    List<String> labels = new ArrayList<>();
    List<Integer> maxima = new ArrayList<>();
    long probeMs = s.quick() ? s.probeMs() : 3_000;
    int max = s.quick() ? 8 : 20_000;
    for (Kind kind : Kind.values()) {
      report.progress("kind: " + kind.label);
      Harness.Search search =
          h.searchCount(
              n -> probe(s, kind, rate, w, n).withDurationMs(probeMs),
              s.quick() ? 2 : (kind == Kind.RAW || kind == Kind.MIX ? 500 : s.full() ? 4 : 8),
              max,
              s.latencyBoundMs(),
              s.steps(2, 3));
      ProbeResult atMax = null;
      ProbeResult firstFail = null;
      for (ProbeResult r : search.runs()) {
        if (total(r) == search.best()) {
          atMax = r;
        }
        if (!r.sustained(s.latencyBoundMs())
            && (firstFail == null || total(r) < total(firstFail))) {
          firstFail = r;
        }
        check(report, kind, r);
      }
      t.row(
          kind.label,
          Table.count(search.best()) + (search.best() >= max ? " (bound)" : ""),
          atMax == null ? "n/a" : Table.num(atMax.cpu().processCores(), 2),
          atMax == null ? "n/a" : Table.num(atMax.meanLatencyMs(), 1),
          atMax == null ? "n/a" : Table.num(atMax.p99LatencyMs(), 0),
          firstFail == null ? "none" : Table.count(total(firstFail)),
          firstFail == null ? "" : firstFail.verdict(s.latencyBoundMs()));
      labels.add(kind.label);
      maxima.add(search.best());
    }
    report.table(t);
    List<Integer> idx = new ArrayList<>();
    for (int i = 0; i < labels.size(); i++) {
      idx.add(i + 1);
    }
    report
        .chart(
            "query-kinds",
            "Most simultaneous queries by kind (1 RAW, 2 GROUP BY, 3 COUNT DISTINCT, 4 QUANTILE,"
                + " 5 TOP K, 6 mix)",
            "kind",
            "max queries")
        .logY()
        .series("max queries", idx, maxima)
        .save();
  }

  private static int total(ProbeResult r) {
    return r.probe().needleQueries() + r.probe().queries().size();
  }

  /** Aggregations must produce a final result with records; anything else is wrong. */
  private static void check(Report report, Kind kind, ProbeResult r) {
    for (Result res : r.otherResults()) {
      if (res == null) {
        report.problem(kind.label + ": a query gave no result");
        return;
      }
      if (!res.meta().errors().isEmpty() && res.meta().errors().stream().anyMatch(e -> e.fatal())) {
        report.problem(kind.label + ": " + res.meta().errors());
        return;
      }
    }
  }

  static Probe probe(Settings s, Kind kind, long rate, int workers, int n) {
    Probe p = Probe.of(s).withRate(rate).withWorkers(workers);
    if (kind == Kind.RAW) {
      return p.withNeedleQueries(n);
    }
    List<String> queries = new ArrayList<>();
    if (kind == Kind.MIX) {
      return p.withNeedleQueries(QueryMix.needles(n)).withQueries(QueryMix.aggregations(n));
    }
    for (int i = 0; i < n; i++) {
      queries.add(kind.template);
    }
    return p.withQueries(queries);
  }
}
