package io.spyglass.flink.bench;

import io.spyglass.scenarios.CompilerQuiet;
import io.spyglass.scenarios.Delays;
import io.spyglass.scenarios.Report;
import io.spyglass.scenarios.Scenario;
import io.spyglass.scenarios.Settings;
import io.spyglass.scenarios.Table;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code spyglass bench bullet-kafka}: Bullet's tests 1 to 6 (its "Tuning and Performance" page,
 * {@link BulletStudy}) as Bullet ran them, reading records from Kafka, on the embedded engine and
 * on the Flink job (a mini cluster in this process), beside the published figures.
 *
 * <ul>
 *   <li>Tests 3 to 6 ran N copies of one RAW query ({@code id == ...}, LIMIT 10) over a stream of R
 *       records/s on C cores. Here each runtime reads a backlog of the test's records (1.8 KiB, or
 *       4.1 KiB from test 5), produced into a topic of the bench's broker first, with the test's N
 *       queries running and 10 records of their id planted; every query must return all 10. The
 *       records it reads per CPU-second of this process (the median of three reads per runtime,
 *       alternated) give the cores for R as docs/scaling.md plans them (70% load), beside Bullet's
 *       C. Each runtime is a new one for each read: a backlog read in under a second weighs the
 *       first seconds of a new runtime (its JIT's compilations, its first fetches) with its
 *       records. {@code -Dspyglass.bench.warm-share=1} has each runtime first read as many records
 *       again, unmeasured, with the queries in place ({@link Runner#warmUp}), as a runtime that has
 *       run for a while. Before the tests, each runtime reads a short backlog unmeasured, once, or
 *       {@code -Dspyglass.bench.warm-runs=N} times, alternated: the JIT compiles code that runs
 *       once per batch, per query or per job only after several runtimes have run in the process (a
 *       job that runs for days has it compiled). Before each measured read the runner waits for the
 *       JIT compiler to work off what the runtime's start queued ({@link CompilerQuiet}). Then a
 *       probe every 20 ms amid a paced stream gives the p99 from a record's send to Kafka to its
 *       result.
 *   <li>Tests 1 and 2 ran 100 queries one at a time over the live stream: {@link LiveTests}.
 * </ul>
 *
 * <p>The Kafka broker runs in a process of its own (its CPU counted apart), as does the feeder of
 * the live tests' stream.
 */
public final class BulletKafkaScenario implements Scenario {
  private static final String EMBEDDED = "embedded";
  private static final String FLINK = "Flink job";

  /** The system property of {@link Plan#warmShare}. */
  static final String WARM_SHARE = "spyglass.bench.warm-share";

  /** The system property of {@link Plan#warmRuns}. */
  static final String WARM_RUNS = "spyglass.bench.warm-runs";

  @Override
  public String name() {
    return "bullet-kafka";
  }

  @Override
  public String description() {
    return "Bullet tests 1-6 with the records produced into Kafka first, on the embedded engine"
        + " and on the Flink job, beside the published figures: latency, time to find a record,"
        + " cores for each test's records/s with its RAW queries (records per CPU-second), p99";
  }

  /** What a run measures, from its settings. */
  static final class Plan {
    final boolean quick;
    final int slots;
    final int partitions;
    final long backlogBytes;
    final int reads;
    final int queryDivisor;
    final long probeMs;
    final long probeRate;
    final int liveQueries;
    final long liveWarmupMs;
    final long liveRate;

    /** Records each runtime reads before each measured backlog, per record of it. */
    final double warmShare;

    /** Unmeasured runs of each runtime before the tests (0 with --quick). */
    final int warmRuns;

    Plan(Settings s) {
      quick = s.quick();
      slots =
          s.workers().isEmpty() ? Runtime.getRuntime().availableProcessors() : s.workers().get(0);
      partitions = Math.max(2, slots);
      backlogBytes = quick ? 4L << 20 : 192L << 20;
      reads = quick ? 1 : 3;
      queryDivisor = quick ? 10 : 1;
      probeMs = s.probeMs();
      probeRate = quick ? 500 : 2_000;
      liveQueries = quick ? 5 : BulletStudy.LIVE_QUERIES;
      liveWarmupMs = quick ? 0 : 5_000;
      liveRate = s.rate();
      warmShare = quick ? 0 : Double.parseDouble(System.getProperty(WARM_SHARE, "0"));
      warmRuns = quick ? 0 : warmRuns(System.getProperty(WARM_RUNS, "1"));
    }

    /** {@code -Dspyglass.bench.warm-runs}: a count of runs per runtime, 0 for none. */
    static int warmRuns(String v) {
      try {
        int n = Integer.parseInt(v.trim());
        if (n >= 0) {
          return n;
        }
      } catch (NumberFormatException e) {
        // below
      }
      throw new IllegalArgumentException(
          "-D" + WARM_RUNS + " is a number of warm-up runs per runtime (0: none), not " + v);
    }

    int records(int bytes) {
      return (int) Math.max(1_000, backlogBytes / bytes);
    }

    int queries(BulletStudy.Throughput t) {
      return Math.max(2, t.queries() / queryDivisor);
    }

    Runner.Spec spec(BulletStudy.Throughput t) {
      return new Runner.Spec(
          String.format("test %d: %,d RAW queries", t.test(), queries(t)),
          slots,
          partitions,
          t.recordBytes(),
          records(t.recordBytes()),
          queries(t),
          List.of(),
          probeMs,
          probeRate,
          0,
          10,
          true);
    }

    /**
     * The live tests' stream: {@code --rate}, else Bullet's 76,000 records/s or half what the
     * slower runtime read per wall second in test 3 (the same records), whichever is less, so that
     * the feeder and the broker, on the same cores, leave the runtime room.
     */
    long liveRate(Runner.Outcome[] test3) {
      if (liveRate > 0) {
        return liveRate;
      }
      if (quick) {
        return 500;
      }
      double slower = Double.MAX_VALUE;
      for (Runner.Outcome o : test3) {
        slower = Math.min(slower, o.recordsPerSecond());
      }
      return Math.max(1_000, Math.min(BulletStudy.LIVE_RATE, Math.round(slower / 2 / 100) * 100));
    }

    String describe() {
      return String.format(
          "Tests 3-6: backlogs of about %,d MB (%,d records of 1.8 KiB, %,d of 4.1 KiB) produced"
              + " into Kafka first, read by each runtime with the test's RAW queries%s%s; %d"
              + " slots, %d partitions; then the p99 of a probe every 20 ms amid %,d records/s for %,d ms."
              + " Tests 1-2: %d queries each, one at a time, over a live stream of 1.8 KiB records.",
          backlogBytes >> 20,
          records(BulletStudy.SMALL_BYTES),
          records(BulletStudy.LARGE_BYTES),
          queryDivisor == 1 ? " (as published)" : " (a tenth of the published counts)",
          warmShare > 0
              ? String.format(
                  Locale.ROOT,
                  ", after %.1f times as many records read unmeasured by the same runtime (-D%s)",
                  warmShare,
                  WARM_SHARE)
              : ", each by a new runtime",
          slots,
          partitions,
          probeRate,
          probeMs,
          liveQueries);
    }
  }

  @Override
  public void run(Settings s, Report report) throws Exception {
    Plan plan = new Plan(s);
    report.note(plan.describe());
    try (KafkaBroker broker =
            s.kafka() != null
                ? KafkaBroker.existing(s.kafka())
                : KafkaBroker.start(report::progress);
        Topics topics = new Topics(broker.bootstrap());
        FlinkScenario.Cluster cluster = FlinkScenario.Cluster.start(Math.max(2, plan.slots))) {
      report.note(
          "Kafka: "
              + broker.bootstrap()
              + (broker.started()
                  ? " (a broker started for this run, in its own process)"
                  : " (given with --kafka: its CPU time is not counted)"));
      Runner runner = new Runner(topics, broker, report);
      if (plan.warmRuns > 0) {
        report.progress("warming up (not measured)");
        Runner.Spec t3 = plan.spec(BulletStudy.THROUGHPUT.get(0));
        Runner.Spec warm =
            new Runner.Spec(
                "warm-up",
                t3.slots(),
                t3.partitions(),
                t3.recordBytes(),
                t3.records() / 4,
                t3.needles(),
                List.of(),
                0,
                0,
                0,
                t3.copies(),
                true);
        for (int i = 0; i < plan.warmRuns; i++) {
          runner.run(warm, FlinkScenario.embedded(topics, warm));
          runner.run(warm, FlinkScenario.flink(cluster, topics, warm));
        }
      }
      runner.warmUp(plan.warmShare);
      Map<BulletStudy.Throughput, Runner.Outcome[]> throughput = new LinkedHashMap<>();
      int point = 0;
      for (BulletStudy.Throughput t : BulletStudy.THROUGHPUT) {
        Runner.Spec spec = plan.spec(t);
        List<Runner.Outcome> es = new ArrayList<>();
        List<Runner.Outcome> fs = new ArrayList<>();
        for (int k = 0; k < 2 * plan.reads; k++) {
          boolean embeddedNow = (k % 2 == 0) == (point % 2 == 0);
          report.progress(spec.workload() + ": " + (embeddedNow ? EMBEDDED : FLINK));
          long t0 = System.nanoTime();
          Runner.Outcome o =
              embeddedNow
                  ? runner.run(spec, FlinkScenario.embedded(topics, spec))
                  : runner.run(spec, FlinkScenario.flink(cluster, topics, spec));
          (embeddedNow ? es : fs).add(o);
          report.progress(
              String.format(
                  "  %,.0f records/s, %,.0f records per CPU-second, p99 %s ms (the run: %.0f s)",
                  o.recordsPerSecond(),
                  o.recordsPerCpuSecond(),
                  ms(o.p99LatencyMs()),
                  (System.nanoTime() - t0) / 1e9));
        }
        Runner.Outcome e = median(es);
        Runner.Outcome f = median(fs);
        point++;
        throughput.put(t, new Runner.Outcome[] {e, f});
      }
      long rate = plan.liveRate(throughput.get(BulletStudy.THROUGHPUT.get(0)));
      report.note(
          String.format(
              "Tests 1-2: a stream of %,d records/s of 1.8 KiB (Bullet's test 2 read 76,000)",
              rate));
      LiveTests live = new LiveTests(topics, broker, report);
      Map<LiveTests.Test, LiveTests.Outcome[]> latency = new LinkedHashMap<>();
      for (LiveTests.Test test : LiveTests.Test.values()) {
        LiveTests.Outcome e = null;
        LiveTests.Outcome f = null;
        for (int k = 0; k < 2; k++) {
          boolean embeddedNow = (k == 0) == (point % 2 == 0);
          report.progress(
              String.format("test %d: %s", test.ordinal() + 1, embeddedNow ? EMBEDDED : FLINK));
          Runner.Spec spec = liveSpec(plan);
          long t0 = System.nanoTime();
          if (embeddedNow) {
            e =
                live.run(
                    test,
                    FlinkScenario.embedded(topics, spec),
                    plan.partitions,
                    rate,
                    plan.liveQueries,
                    plan.liveWarmupMs);
          } else {
            f =
                live.run(
                    test,
                    FlinkScenario.flink(cluster, topics, spec),
                    plan.partitions,
                    rate,
                    plan.liveQueries,
                    plan.liveWarmupMs);
          }
          LiveTests.Outcome o = embeddedNow ? e : f;
          report.progress(
              String.format(
                  "  mean %s ms, p99 %s ms (%s), %,.0f records per CPU-second (the run: %.0f s)",
                  Table.num(o.headline().mean(), 2),
                  Table.num(o.headline().percentile(99), 0),
                  test.headline(),
                  o.recordsPerCpuSecond(),
                  (System.nanoTime() - t0) / 1e9));
        }
        point++;
        latency.put(test, new LiveTests.Outcome[] {e, f});
      }
      report.table(summary(plan, latency, throughput));
      for (Map.Entry<LiveTests.Test, LiveTests.Outcome[]> t : latency.entrySet()) {
        report.table(delays(t.getKey(), t.getValue()));
      }
      report.table(throughputTable(plan, throughput));
      report.table(test6(throughput.get(BulletStudy.THROUGHPUT.get(3))));
    }
  }

  /** The live tests' runtimes: the plan's slots, a few queries at a time. */
  private static Runner.Spec liveSpec(Plan plan) {
    return new Runner.Spec(
        "live", plan.slots, plan.partitions, BulletStudy.SMALL_BYTES, 0, 0, List.of(), 0, 0, 0);
  }

  /** Cores for {@code rate} records/s at the plan's load, from records per CPU-second. */
  static double cores(double rate, double recordsPerCpuSecond) {
    return Math.ceil(rate / (ScalingPlan.LOAD * recordsPerCpuSecond));
  }

  private static Table summary(
      Plan plan,
      Map<LiveTests.Test, LiveTests.Outcome[]> latency,
      Map<BulletStudy.Throughput, Runner.Outcome[]> throughput) {
    Table t =
        new Table(
            "bullet-kafka",
            "Bullet's tests 1-6 from Kafka: the published figure, this run's, and what differs",
            "test",
            "as published",
            "published",
            "runtime",
            "this run",
            "this run / published",
            "records per CPU-second",
            "p99 latency (ms)",
            "here");
    for (Map.Entry<LiveTests.Test, LiveTests.Outcome[]> e : latency.entrySet()) {
      boolean first = e.getKey() == LiveTests.Test.LATENCY;
      double published = first ? BulletStudy.T1_FINISHED_MS : BulletStudy.T2_READ_TO_FINISHED_MS;
      for (LiveTests.Outcome o : e.getValue()) {
        Delays d = o.headline();
        t.row(
            first ? "1: latency of the simplest query" : "2: time to find a record",
            first
                ? "100 RAW queries without a filter (LIMIT 1), one at a time"
                : "100 queries for one record each, sent once the query runs; 76,000 records/s",
            first
                ? Table.num(published, 2) + " ms received -> finished (mean)"
                : Table.num(published, 1) + " ms record read -> query finished (mean)",
            o.side(),
            Table.num(d.mean(), 2) + " ms",
            Table.num(d.mean() / published, 2),
            Table.count(o.recordsPerCpuSecond()),
            Table.num(d.percentile(99), 0),
            String.format(
                "%d queries over a stream of %,d records/s of 1.8 KiB (a feeder process)%s;"
                    + " p99 of the same delay",
                o.asked(), o.rate(), o.keptUp() ? "" : ", read more than 1 s behind it"));
      }
    }
    for (Map.Entry<BulletStudy.Throughput, Runner.Outcome[]> e : throughput.entrySet()) {
      BulletStudy.Throughput b = e.getKey();
      for (Runner.Outcome o : e.getValue()) {
        double c = cores(b.rate(), o.recordsPerCpuSecond());
        t.row(
            b.test() + ": " + b.title(),
            String.format(
                "%,d copies of one RAW query (id = .., LIMIT 10), %,d records/s of %s",
                b.queries(),
                b.rate(),
                b.recordBytes() == BulletStudy.SMALL_BYTES ? "1.8 KiB" : "4.1 KiB"),
            Table.num(b.cores(), 1) + " cores",
            o.side(),
            Table.count(c) + " cores",
            Table.num(c / b.cores(), 3),
            Table.count(o.recordsPerCpuSecond()),
            ms(o.p99LatencyMs()),
            String.format(
                "%,d queries over a backlog of %,d records read at full speed, %d slots, the"
                    + " median of %d reads; cores = %,d / (%.1f x records per CPU-second); p99"
                    + " from a probe's send to its result at %,d records/s",
                o.spec().needles(),
                o.spec().records(),
                o.spec().slots(),
                plan.reads,
                b.rate(),
                ScalingPlan.LOAD,
                plan.probeRate));
      }
    }
    return t;
  }

  private static Table delays(LiveTests.Test test, LiveTests.Outcome[] runs) {
    boolean first = test == LiveTests.Test.LATENCY;
    List<String> columns = new ArrayList<>(List.of("timestamp", "Bullet (mean)"));
    for (LiveTests.Outcome o : runs) {
      columns.add(o.side() + " mean");
      columns.add(o.side() + " p99");
    }
    Table t =
        new Table(
            first ? "bullet-kafka-test1" : "bullet-kafka-test2",
            String.format(
                "Test %d: delays relative to the query received (ms), over %d queries one at a"
                    + " time, a stream of %,d records/s",
                test.ordinal() + 1, runs[0].asked(), runs[0].rate()),
            columns.toArray(String[]::new));
    Map<String, String> published = new LinkedHashMap<>();
    if (first) {
      published.put(LiveTests.SENT, Table.num(BulletStudy.T1_KAFKA_RECEIVED_MS, 2) + " (Kafka)");
      published.put(LiveTests.READ, Table.num(BulletStudy.T1_FILTERED_MS, 2) + " (filtered)");
      published.put(LiveTests.FINISHED, Table.num(BulletStudy.T1_FINISHED_MS, 2));
    } else {
      published.put(LiveTests.NEEDLE_SENT, Table.num(BulletStudy.T2_KAFKA_RECEIVED_MS, 1));
      published.put(
          LiveTests.NEEDLE_READ, Table.num(BulletStudy.T2_BULLET_RECEIVED_MS, 1) + " (spout)");
      published.put(LiveTests.FINISHED, Table.num(BulletStudy.T2_FINISHED_MS, 1));
      published.put(LiveTests.READ_TO_FINISHED, Table.num(BulletStudy.T2_READ_TO_FINISHED_MS, 1));
    }
    published.put(LiveTests.RECEIVED, "0");
    for (String row : test.rows) {
      List<Object> cells = new ArrayList<>(List.of(row, published.getOrDefault(row, "n/a")));
      for (LiveTests.Outcome o : runs) {
        Delays d = o.delays().get(row);
        cells.add(Table.num(d.mean(), 2));
        cells.add(Table.num(d.percentile(99), 0));
      }
      t.row(cells.toArray());
    }
    return t;
  }

  private static Table throughputTable(
      Plan plan, Map<BulletStudy.Throughput, Runner.Outcome[]> throughput) {
    Table t =
        new Table(
            "bullet-kafka-throughput",
            "Tests 3-6: each runtime reads a backlog produced into Kafka first, with the test's RAW"
                + " queries (10 records each to find); cores for the published rate at "
                + Math.round(ScalingPlan.LOAD * 100)
                + "% load",
            "test",
            "runtime",
            "RAW queries",
            "record bytes",
            "records",
            "records/s",
            "records per CPU-second",
            "CPU (cores)",
            "broker CPU (cores)",
            "average result size",
            "p99 latency (ms)",
            "records/s published",
            "cores",
            "Bullet's cores");
    for (Map.Entry<BulletStudy.Throughput, Runner.Outcome[]> e : throughput.entrySet()) {
      BulletStudy.Throughput b = e.getKey();
      for (Runner.Outcome o : e.getValue()) {
        t.row(
            b.test(),
            o.side(),
            Table.count(o.spec().needles()),
            o.spec().recordBytes(),
            Table.count(o.records()),
            Table.count(o.recordsPerSecond()),
            Table.count(o.recordsPerCpuSecond()),
            Table.num(o.cpuCores(), 2),
            Table.num(o.brokerCpuSeconds() / o.seconds(), 2),
            Table.num(o.meanResultSize(), 2),
            ms(o.p99LatencyMs()),
            Table.count(b.rate()),
            Table.count(cores(b.rate(), o.recordsPerCpuSecond())),
            Table.num(b.cores(), 1));
      }
    }
    return t;
  }

  /** Test 6's data volumes, each sized from this run's test 6 (4.1 KiB, 400 RAW queries). */
  static Table test6(Runner.Outcome[] runs) {
    List<String> columns = new ArrayList<>(List.of("records/s", "MiB/s", "Bullet: cores"));
    for (Runner.Outcome o : runs) {
      columns.add(o.side() + ": cores");
    }
    for (Runner.Outcome o : runs) {
      columns.add(o.side() + " / Bullet");
    }
    Table t =
        new Table(
            "bullet-kafka-test6",
            String.format(
                "Bullet's test 6 sized from this run: cores for each data volume at %d%% load,"
                    + " from the records per CPU-second each runtime read from Kafka with %,d RAW"
                    + " queries over records of %,d B",
                Math.round(ScalingPlan.LOAD * 100),
                runs[0].spec().needles(),
                runs[0].spec().recordBytes()),
            columns.toArray(String[]::new));
    for (BulletStudy.Volume v : BulletStudy.TEST_6) {
      List<Object> cells =
          new ArrayList<>(
              List.of(
                  Table.count(v.recordsPerSecond()),
                  Table.count(v.mibPerSecond()),
                  Table.num(v.cores(), 1)));
      for (Runner.Outcome o : runs) {
        cells.add(Table.count(cores(v.recordsPerSecond(), o.recordsPerCpuSecond())));
      }
      for (Runner.Outcome o : runs) {
        cells.add(Table.num(cores(v.recordsPerSecond(), o.recordsPerCpuSecond()) / v.cores(), 3));
      }
      t.row(cells.toArray());
    }
    return t;
  }

  private static String ms(double v) {
    return Double.isNaN(v) ? "n/a" : Table.count(v);
  }

  /**
   * The read whose records per CPU-second is the median of a runtime's reads of one test: a backlog
   * read in about a second swings with the JIT's and the fetches' warm-up, so one read is not a
   * measurement.
   */
  static Runner.Outcome median(List<Runner.Outcome> reads) {
    List<Runner.Outcome> sorted = new ArrayList<>(reads);
    sorted.sort(java.util.Comparator.comparingDouble(Runner.Outcome::recordsPerCpuSecond));
    return sorted.get(sorted.size() / 2);
  }
}
