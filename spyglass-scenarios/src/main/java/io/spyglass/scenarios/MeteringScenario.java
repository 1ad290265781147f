package io.spyglass.scenarios;

import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.result.Result;
import io.spyglass.engine.Engine;
import io.spyglass.engine.EngineConfig;
import io.spyglass.engine.QueryHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Cloud Foundry Abacus's performance test: {@code orgs x instances x docs} usage documents fed
 * through the engine while queries count and sum usage per org and resource; the totals are checked
 * exactly against what was generated, and documents per second measured from the start of the feed
 * to the last final result.
 */
final class MeteringScenario implements Scenario {
  private final UsageIngestion ingestion;

  MeteringScenario() {
    this(UsageIngestion.SOURCE);
  }

  MeteringScenario(UsageIngestion ingestion) {
    this.ingestion = ingestion;
  }

  @Override
  public String name() {
    return "metering";
  }

  @Override
  public String description() {
    return "Abacus test: orgs x instances x docs usage documents, exact totals per org and"
        + " resource, documents/s";
  }

  @Override
  public void run(Settings s, Report report) throws Exception {
    List<int[]> shapes =
        s.quick()
            ? List.of(new int[] {50, 4, 10}, new int[] {200, 1, 1})
            : List.of(
                new int[] {500, 4, 10},
                new int[] {2_000, 2, 5},
                new int[] {20_000, 1, 1},
                new int[] {500, 40, 100},
                new int[] {20_000, 10, 10});
    List<Integer> workers = s.quick() ? List.of(Machine.cores()) : s.workersOrAll();
    if (ingestion == UsageIngestion.HTTP) {
      // every request waits for a sync of the disk: the larger in-process shapes would take long
      List<int[]> overHttp =
          s.quick()
              ? shapes
              : List.of(
                  new int[] {500, 4, 10},
                  new int[] {2_000, 2, 5},
                  new int[] {20_000, 1, 1},
                  new int[] {500, 20, 20},
                  new int[] {20_000, 5, 5});
      runHttp(s, report, overHttp, List.of(workers.get(workers.size() - 1)));
      return;
    }
    Table t =
        new Table(
            "metering",
            "Usage documents through the engine (" + ingestion.name().toLowerCase() + " ingestion)",
            "orgs",
            "instances",
            "docs",
            "documents",
            "workers",
            "time (ms)",
            "doc/s",
            "CPU (cores)",
            "doc/s per core",
            "totals");
    for (int[] shape : shapes) {
      for (int w : workers) {
        report.progress(String.format("%d x %d x %d, %d workers", shape[0], shape[1], shape[2], w));
        run(report, t, shape[0], shape[1], shape[2], w);
      }
    }
    report.table(t);
  }

  /** Abacus's test over HTTP: a real server, many clients, and the most it takes without a 429. */
  private void runHttp(Settings s, Report report, List<int[]> shapes, List<Integer> workers)
      throws Exception {
    int clients = s.quick() ? 8 : 64;
    Table t =
        new Table(
            "metering-http",
            "Usage documents POSTed to /api/ingest in batches of 10 by "
                + clients
                + " concurrent clients, counted by a standing query (Abacus: 200 to 300 doc/s)",
            "orgs",
            "instances",
            "docs",
            "documents",
            "workers",
            "time (ms)",
            "doc/s",
            "requests",
            "429s",
            "CPU (cores)",
            "totals");
    for (int[] shape : shapes) {
      for (int w : workers) {
        report.progress(
            String.format("HTTP: %d x %d x %d, %d workers", shape[0], shape[1], shape[2], w));
        UsageDocuments documents = new UsageDocuments(shape[0], shape[1], shape[2]);
        HttpMetering.Outcome o = new HttpMetering(w).run(report, documents, clients);
        t.row(
            Table.count(shape[0]),
            shape[1],
            shape[2],
            Table.count(documents.total()),
            w,
            Table.count(o.ms()),
            Table.count(documents.total() * 1000.0 / Math.max(1, o.ms())),
            Table.count(o.requests()),
            Table.count(o.refused()),
            Table.num(o.cpuCores(), 2),
            o.wrong() == 0 ? "exact" : o.wrong() + " wrong");
      }
    }
    report.table(t);
    int w = workers.get(workers.size() - 1);
    double[] rates =
        s.quick()
            ? new double[] {1_000, 4_000}
            : new double[] {1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000};
    double[] best = new HttpMetering(w).sustained(report, clients, rates, s.quick() ? 2 : 10);
    Table sustained =
        new Table(
            "metering-http-sustained",
            "The most documents/s sustained without a 429 (paced clients, rising rates)",
            "clients",
            "workers",
            "target doc/s",
            "achieved doc/s");
    sustained.row(clients, w, Table.count(best[0]), Table.count(best[1]));
    report.table(sustained);
  }

  private void run(Report report, Table t, int orgs, int instances, int docs, int workers)
      throws InterruptedException {
    UsageDocuments documents = new UsageDocuments(orgs, instances, docs);
    int groups = orgs * UsageDocuments.RESOURCES.length;
    QueryLimits limits = limits(groups);
    EngineConfig config =
        EngineConfig.defaults()
            .withWorkers(workers)
            .withLimits(limits)
            .withStopWhenSourceEnds(true);
    int sampleOrgs = Math.min(orgs, 10);
    long t0;
    long t1;
    Cpu.Usage cpu;
    Result byOrg;
    Result byResource;
    List<Result> perOrg = new ArrayList<>();
    try (Engine engine = Engine.startPaused(ingestion.open(documents), config)) {
      QueryHandle all =
          engine.submit(
              "SELECT org, resource, COUNT(*) AS docs, SUM(quantity) AS total FROM STREAM(MAX,"
                  + " TIME) GROUP BY org, resource LIMIT "
                  + groups);
      QueryHandle resources =
          engine.submit(
              "SELECT resource, COUNT(*) AS docs, SUM(quantity) AS total FROM STREAM(MAX, TIME)"
                  + " GROUP BY resource");
      List<QueryHandle> orgQueries = new ArrayList<>();
      for (int o = 0; o < sampleOrgs; o++) {
        orgQueries.add(
            engine.submit(
                "SELECT resource, SUM(quantity) AS total FROM STREAM(MAX, TIME) WHERE org = '"
                    + UsageDocuments.org(o)
                    + "' GROUP BY resource"));
      }
      all.awaitRunning(30, TimeUnit.SECONDS);
      resources.awaitRunning(30, TimeUnit.SECONDS);
      for (QueryHandle h : orgQueries) {
        h.awaitRunning(30, TimeUnit.SECONDS);
      }
      Cpu c0 = Cpu.now();
      t0 = System.currentTimeMillis();
      engine.resume();
      byOrg = last(all);
      byResource = last(resources);
      for (QueryHandle h : orgQueries) {
        perOrg.add(last(h));
      }
      t1 = System.currentTimeMillis();
      cpu = Cpu.now().since(c0);
      engine.awaitStopped(10, TimeUnit.SECONDS);
    }
    int wrong = check(report, documents, byOrg, byResource, perOrg);
    long ms = Math.max(1, t1 - t0);
    double rate = documents.total() * 1000.0 / ms;
    t.row(
        Table.count(orgs),
        instances,
        docs,
        Table.count(documents.total()),
        workers,
        Table.count(ms),
        Table.count(rate),
        Table.num(cpu.processCores(), 2),
        Table.count(rate / Math.max(0.01, cpu.processCores())),
        wrong == 0 ? "exact" : wrong + " wrong");
  }

  /** The default limits, with room for {@code groups} exact groups. */
  static QueryLimits limits(int groups) {
    QueryLimits l = QueryLimits.DEFAULTS;
    return new QueryLimits(
        l.defaultDurationMs(),
        l.maxDurationMs(),
        l.defaultRawLimit(),
        l.maxRawLimit(),
        Math.max(l.maxGroups(), groups),
        l.maxExactGroups(),
        l.countDistinctEntries(),
        l.distributionEntries(),
        l.maxDistributionPoints(),
        l.topKEntries(),
        l.maxTopK(),
        l.minWindowEmitMs(),
        l.maxQueryLength(),
        l.maxEmitsPerSecond());
  }

  private static Result last(QueryHandle h) throws InterruptedException {
    Result last = null;
    while (true) {
      Result r = h.poll(600, TimeUnit.SECONDS);
      if (r == null) {
        return last;
      }
      last = r;
      if (r.meta().isFinal()) {
        return last;
      }
    }
  }

  /** Compares every answer with the generated totals; returns the number of wrong values. */
  private static int check(
      Report report, UsageDocuments d, Result byOrg, Result byResource, List<Result> perOrg) {
    int wrong = 0;
    int n = UsageDocuments.RESOURCES.length;
    long[] seen = new long[d.orgs * n];
    if (byOrg == null) {
      report.problem("metering: no result for the per-org query");
      return 1;
    }
    for (Map<String, Object> rec : byOrg.records()) {
      int o = Integer.parseInt(((String) rec.get("org")).substring(4));
      int r = resource((String) rec.get("resource"));
      seen[o * n + r]++;
      if (asLong(rec.get("docs")) != d.expectedCount(o, r)
          || asLong(rec.get("total")) != d.expectedSum(o, r)) {
        wrong++;
        if (wrong <= 3) {
          report.problem(
              String.format(
                  "metering: org %d %s: %s docs / %s total, expected %d / %d",
                  o,
                  rec.get("resource"),
                  rec.get("docs"),
                  rec.get("total"),
                  d.expectedCount(o, r),
                  d.expectedSum(o, r)));
        }
      }
    }
    for (int o = 0; o < d.orgs; o++) {
      for (int r = 0; r < n; r++) {
        if (d.expectedCount(o, r) > 0 && seen[o * n + r] != 1) {
          wrong++;
          if (wrong <= 3) {
            report.problem("metering: org " + o + " " + UsageDocuments.RESOURCES[r] + " missing");
          }
        }
      }
    }
    long[] resCount = new long[n];
    long[] resSum = new long[n];
    for (int o = 0; o < d.orgs; o++) {
      for (int r = 0; r < n; r++) {
        resCount[r] += d.expectedCount(o, r);
        resSum[r] += d.expectedSum(o, r);
      }
    }
    for (Map<String, Object> rec :
        byResource == null ? List.<Map<String, Object>>of() : byResource.records()) {
      int r = resource((String) rec.get("resource"));
      if (asLong(rec.get("docs")) != resCount[r] || asLong(rec.get("total")) != resSum[r]) {
        wrong++;
        report.problem(
            "metering: resource " + rec + " expected " + resCount[r] + " / " + resSum[r]);
      }
    }
    for (int o = 0; o < perOrg.size(); o++) {
      Result res = perOrg.get(o);
      if (res == null) {
        wrong++;
        report.problem("metering: no result for org " + o);
        continue;
      }
      for (Map<String, Object> rec : res.records()) {
        int r = resource((String) rec.get("resource"));
        if (asLong(rec.get("total")) != d.expectedSum(o, r)) {
          wrong++;
          report.problem("metering: org " + o + " " + rec + " expected " + d.expectedSum(o, r));
        }
      }
    }
    return wrong;
  }

  private static int resource(String name) {
    for (int i = 0; i < UsageDocuments.RESOURCES.length; i++) {
      if (UsageDocuments.RESOURCES[i].equals(name)) {
        return i;
      }
    }
    throw new IllegalStateException("unknown resource " + name);
  }

  private static long asLong(Object v) {
    if (v instanceof Number n) {
      double d = n.doubleValue();
      if (d != Math.rint(d)) {
        return Long.MIN_VALUE;
      }
      return n.longValue();
    }
    return Long.MIN_VALUE;
  }
}
