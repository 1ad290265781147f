package io.spyglass.flink.bench;

import io.spyglass.core.result.Result;
import io.spyglass.scenarios.QueryMix;
import io.spyglass.scenarios.Report;
import io.spyglass.scenarios.Scenario;
import io.spyglass.scenarios.Settings;
import io.spyglass.scenarios.Table;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;

/**
 * {@code spyglass bench flink}: the Spyglass job on Flink as it is deployed (records in from a
 * Kafka topic, queries on the query topic, results read back from the result topic by {@code
 * FlinkQueryClient}) beside the embedded engine reading the same records from Kafka with the same
 * queries, alternated run by run: records/s per slot and per CPU-second, and the p99 latency from a
 * record's send to Kafka to its result in the reader's hands; and the embedded engine reading the
 * same records from a file, the baseline of what reading Kafka costs. Then JStorm's tests (its
 * published study of JStorm against Storm) on the job: throughput against message size, against the
 * number of workers, and against the depth of the topology, beside the embedded engine where it has
 * the same.
 *
 * <p>Kafka is a broker this starts in a process of its own ({@code --kafka} to use another); the
 * job runs on a Flink mini cluster in this process, one job per run.
 */
public final class FlinkScenario implements Scenario {
  private static final String COUNT = "SELECT COUNT(*) AS n FROM STREAM(MAX, TIME)";

  /** The JStorm tests' small message, as {@code pipeline} uses. */
  private static final int SMALL_BYTES = 64;

  @Override
  public String name() {
    return "flink";
  }

  @Override
  public String description() {
    return "The Flink job as deployed (Kafka in, results out) beside the embedded engine on the"
        + " same records and queries: records/s per slot and per CPU-second, p99 result latency;"
        + " JStorm's tests (message size, workers, topology depth) on the job";
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
        Cluster cluster = Cluster.start(plan.maxSlots())) {
      report.note(
          "Kafka: "
              + broker.bootstrap()
              + (broker.started()
                  ? " (a broker started for this run, in its own process)"
                  : " (given with --kafka: its CPU time is not counted)"));
      Runner runner = new Runner(topics, broker, report);
      List<Runner.Outcome[]> pairs = compare(plan, runner, cluster, topics, report);
      Map<Integer, Runner.Outcome> sizes = jstorm(plan, runner, cluster, topics, report);
      report.table(ScalingPlan.table(pairs, sizes));
    }
  }

  /** What a run of the scenario measures, from its settings. */
  static final class Plan {
    final boolean quick;
    final List<Integer> slots;
    final int needles;
    final int mixed;
    final int records;
    final int recordBytes;
    final long latencyMs;
    final long latencyRate;
    final List<Integer> sizes;
    final List<Integer> workers;
    final List<Integer> hops;
    final long smallBytesBudget;

    Plan(Settings s) {
      quick = s.quick();
      int cores = Runtime.getRuntime().availableProcessors();
      // quick: a check of the tooling, one point each
      slots = quick && s.workers().isEmpty() ? List.of(cores) : s.workersOrAll();
      needles = s.queriesOr(List.of(quick ? 200 : 10_000)).get(0);
      mixed = quick ? 50 : 1_000;
      records = quick ? 4_000 : 1_000_000;
      recordBytes = s.recordBytes();
      // a p99 needs hundreds of probes: 10 s gives about 450 (a probe every 20 ms, the first
      // second left out); 3 s gave about 100, whose p99 is one slow probe
      latencyMs = quick ? s.probeMs() : Math.max(s.probeMs(), 10_000);
      latencyRate = s.rateOr(quick ? 500 : 2_000);
      sizes = s.sizesOr(quick ? List.of(SMALL_BYTES) : List.of(64, 256, 1024, 1843, 4096));
      workers = quick ? List.of(1) : List.of(1, 2, 4);
      hops = quick ? List.of(0, 1) : List.of(0, 1, 2, 3);
      smallBytesBudget = quick ? 256L << 10 : 256L << 20;
    }

    int maxSlots() {
      int most = 2;
      for (int n : slots) {
        most = Math.max(most, n);
      }
      for (int n : workers) {
        most = Math.max(most, n);
      }
      return most;
    }

    /** Records of a JStorm test's backlog of records of a size: about the same bytes each. */
    int jstormRecords(int bytes) {
      return (int) Math.max(1_000, Math.min(quick ? 3_000 : 1_500_000, smallBytesBudget / bytes));
    }

    String describe() {
      return String.format(
          "Backlogs of %,d records of about %d B (plus an end mark per partition) read by each"
              + " runtime from Kafka, and by the embedded engine from a file of the same records,"
              + " with %,d needle queries, or with a mix of %,d (%s); slots %s; then (from Kafka)"
              + " the latency of a probe every 20 ms amid %,d records/s for %,d ms",
          records,
          recordBytes,
          needles,
          mixed,
          "60% needles, the rest GROUP BY, COUNT DISTINCT, QUANTILE and TOP K by country, half in"
              + " 1 s windows",
          slots,
          latencyRate,
          latencyMs);
    }
  }

  /** The workloads of the comparison: 10,000 needles, and the mix. */
  private static Map<String, Runner.Spec> workloads(Plan plan, int slots) {
    int partitions = Math.max(2, slots);
    Map<String, Runner.Spec> w = new LinkedHashMap<>();
    w.put(
        "needles",
        new Runner.Spec(
            String.format("%,d needles", plan.needles),
            slots,
            partitions,
            plan.recordBytes,
            plan.records,
            plan.needles,
            List.of(),
            plan.latencyMs,
            plan.latencyRate,
            0));
    List<String> others = new ArrayList<>();
    List<String> aggregations = QueryMix.aggregations(plan.mixed);
    for (int i = 0; i < aggregations.size(); i++) {
      String q = aggregations.get(i).replace("%d", "MAX");
      others.add(i % 2 == 0 ? q : q + " WINDOWING TUMBLING(1000, TIME)");
    }
    w.put(
        "mixed",
        new Runner.Spec(
            String.format("%,d mixed", plan.mixed),
            slots,
            partitions,
            plan.recordBytes,
            plan.records,
            QueryMix.needles(plan.mixed),
            others,
            plan.latencyMs,
            plan.latencyRate,
            0));
    return w;
  }

  /**
   * Each workload and slot count on both runtimes, and on the embedded engine reading a file: the
   * runs of each point (embedded from Kafka, Flink, embedded from a file), in order.
   */
  private static List<Runner.Outcome[]> compare(
      Plan plan, Runner runner, Cluster cluster, Topics topics, Report report) throws Exception {
    List<Runner.Outcome[]> pairs = new ArrayList<>();
    if (!plan.quick) {
      // both runtimes share the core's code: compile it before anything is measured
      report.progress("warming up (not measured)");
      Runner.Spec warm = workloads(plan, 2).get("mixed");
      warm =
          new Runner.Spec(
              warm.workload(),
              warm.slots(),
              warm.partitions(),
              warm.recordBytes(),
              warm.records() / 4,
              warm.needles(),
              warm.others(),
              0,
              0,
              0);
      runner.runFromFile(warm);
      runner.run(warm, embedded(topics, warm));
      runner.run(warm, flink(cluster, topics, warm));
    }
    Table t =
        new Table(
            "flink-runtimes",
            "The Flink job and the embedded engine on the same backlog and queries, Kafka in and"
                + " results out; the embedded engine also reading the same records from a file",
            "queries",
            "runtime",
            "slots",
            "records/s",
            "records/s per slot",
            "CPU (cores)",
            "records per CPU-second",
            "broker CPU (cores)",
            "p99 latency (ms)",
            "probes answered",
            "needles found");
    Table r =
        new Table(
            "flink-ratios",
            "Flink job / embedded engine, each pair run one after the other; and the embedded"
                + " engine from Kafka / from a file, the same records and queries in the same run",
            "queries",
            "slots",
            "records/s",
            "records per CPU-second",
            "p99 latency (ms), embedded",
            "p99 latency (ms), Flink job",
            "records per CPU-second, embedded: from Kafka / from a file");
    int pair = 0;
    for (String name : List.of("needles", "mixed")) {
      for (int slots : plan.slots) {
        Runner.Spec spec = workloads(plan, slots).get(name);
        Runner.Outcome e = null;
        Runner.Outcome f = null;
        Runner.Outcome x = null;
        // alternate the order (file, embedded, Flink; then Flink, embedded, file), so that all see
        // the machine alike
        for (int k = 0; k < 3; k++) {
          int which = pair % 2 == 0 ? k : 2 - k;
          report.progress(
              String.format(
                  "%s, %d slots: %s",
                  spec.workload(),
                  slots,
                  switch (which) {
                    case 0 -> EmbeddedSide.FROM_FILE;
                    case 1 -> "embedded, from Kafka";
                    default -> "Flink";
                  }));
          switch (which) {
            case 0 -> x = runner.runFromFile(spec);
            case 1 -> e = runner.run(spec, embedded(topics, spec));
            default -> f = runner.run(spec, flink(cluster, topics, spec));
          }
        }
        pair++;
        pairs.add(new Runner.Outcome[] {e, f, x});
        for (Runner.Outcome o : List.of(x, e, f)) {
          report.progress(
              String.format(
                  "  %s: %,.0f records/s, %,.0f records per CPU-second, p99 %s ms",
                  o.side(), o.recordsPerSecond(), o.recordsPerCpuSecond(), ms(o.p99LatencyMs())));
          t.row(
              spec.workload(),
              o.side(),
              slots,
              Table.count(o.recordsPerSecond()),
              Table.count(o.recordsPerSecond() / slots),
              Table.num(o.cpuCores(), 2),
              Table.count(o.recordsPerCpuSecond()),
              Table.num(o.brokerCpuSeconds() / o.seconds(), 2),
              ms(o.p99LatencyMs()),
              o.probesSent() == 0 ? "n/a" : o.latencyMs().getTotalCount() + " / " + o.probesSent(),
              o.needlesFound() + " / " + spec.needles());
        }
        r.row(
            spec.workload(),
            slots,
            Table.num(f.recordsPerSecond() / e.recordsPerSecond(), 2),
            Table.num(f.recordsPerCpuSecond() / e.recordsPerCpuSecond(), 2),
            ms(e.p99LatencyMs()),
            ms(f.p99LatencyMs()),
            Table.num(e.recordsPerCpuSecond() / x.recordsPerCpuSecond(), 2));
      }
    }
    report.table(t);
    report.table(r);
    return pairs;
  }

  /** JStorm's three tests; returns the Flink job's run of each record size. */
  private static Map<Integer, Runner.Outcome> jstorm(
      Plan plan, Runner runner, Cluster cluster, Topics topics, Report report) throws Exception {
    Map<Integer, Runner.Outcome> flinkBySize = new LinkedHashMap<>();
    int cores = Runtime.getRuntime().availableProcessors();
    Table size =
        new Table(
            "flink-size",
            "JStorm's test: throughput against message size (one COUNT query, " + cores + " slots)",
            "record bytes",
            "runtime",
            "records",
            "records/s",
            "MB/s",
            "records per CPU-second",
            "CPU (cores)");
    int point = 0;
    for (int bytes : plan.sizes) {
      for (Runner.Outcome o :
          pair(plan, runner, cluster, topics, report, countSpec(plan, cores, bytes, 0), point++)) {
        if (!o.side().equals("embedded")) {
          flinkBySize.put(bytes, o);
        }
        size.row(
            bytes,
            o.side(),
            Table.count(o.records()),
            Table.count(o.recordsPerSecond()),
            Table.num(o.bytes() / o.seconds() / 1e6, 1),
            Table.count(o.recordsPerCpuSecond()),
            Table.num(o.cpuCores(), 2));
      }
    }
    report.table(size);
    Table workers =
        new Table(
            "flink-workers",
            "JStorm's test: throughput against workers ("
                + SMALL_BYTES
                + " B records, one COUNT"
                + " query; a Flink slot is a worker)",
            "workers (slots)",
            "runtime",
            "records/s",
            "records/s per worker",
            "records per CPU-second",
            "CPU (cores)");
    for (int w : plan.workers) {
      for (Runner.Outcome o :
          pair(
              plan, runner, cluster, topics, report, countSpec(plan, w, SMALL_BYTES, 0), point++)) {
        workers.row(
            w,
            o.side(),
            Table.count(o.recordsPerSecond()),
            Table.count(o.recordsPerSecond() / w),
            Table.count(o.recordsPerCpuSecond()),
            Table.num(o.cpuCores(), 2));
      }
    }
    report.table(workers);
    Table depth =
        new Table(
            "flink-depth",
            "JStorm's test: throughput against topology depth on the Flink job ("
                + SMALL_BYTES
                + " B records, one COUNT query, "
                + cores
                + " slots): stages that pass records on before the filter, each one network hop",
            "network hops before the filter",
            "operators on the record path",
            "records/s",
            "records per CPU-second",
            "CPU (cores)");
    for (int h : plan.hops) {
      Runner.Spec spec = countSpec(plan, cores, SMALL_BYTES, h);
      report.progress(String.format("depth: %d hops", h));
      Runner.Outcome o = runner.run(spec, flink(cluster, topics, spec));
      checkCount(report, o);
      depth.row(
          h,
          switch (h) {
            case 0 -> "source, filter (forward, same slot), combiner+sink";
            case 1 -> "source, filter, combiner+sink";
            default -> "source, " + (h - 1) + " pass-through stages, filter, combiner+sink";
          },
          Table.count(o.recordsPerSecond()),
          Table.count(o.recordsPerCpuSecond()),
          Table.num(o.cpuCores(), 2));
    }
    report.table(depth);
    return flinkBySize;
  }

  /** A JStorm test's run: one COUNT query over a backlog of records of a size, no latency. */
  private static Runner.Spec countSpec(Plan plan, int slots, int bytes, int hops) {
    return new Runner.Spec(
        "COUNT",
        slots,
        Math.max(2, slots),
        bytes,
        plan.jstormRecords(bytes),
        0,
        List.of(COUNT),
        0,
        0,
        hops);
  }

  /** Both runtimes on one point, in alternating order; each COUNT checked. */
  private static List<Runner.Outcome> pair(
      Plan plan,
      Runner runner,
      Cluster cluster,
      Topics topics,
      Report report,
      Runner.Spec spec,
      int point)
      throws Exception {
    report.progress(
        String.format("%d B records, %d slots: both runtimes", spec.recordBytes(), spec.slots()));
    Runner.Outcome e;
    Runner.Outcome f;
    if (point % 2 == 0) {
      e = runner.run(spec, embedded(topics, spec));
      f = runner.run(spec, flink(cluster, topics, spec));
    } else {
      f = runner.run(spec, flink(cluster, topics, spec));
      e = runner.run(spec, embedded(topics, spec));
    }
    checkCount(report, e);
    checkCount(report, f);
    return List.of(e, f);
  }

  /** The COUNT query counted every record of the backlog, end marks included, once. */
  private static void checkCount(Report report, Runner.Outcome o) {
    Result r = o.finals().isEmpty() ? null : o.finals().get(0);
    Object n = r == null || r.records().isEmpty() ? null : r.records().get(0).get("n");
    if (!(n instanceof Number count) || count.longValue() != o.records()) {
      report.problem(o.side() + ": COUNT(*) over " + o.records() + " records gave " + n);
    }
  }

  static Runner.SideFactory embedded(Topics topics, Runner.Spec spec) {
    int queries = spec.needles() + spec.others().size() + 2;
    return (topic, tag) -> EmbeddedSide.start(topics.bootstrap(), topic, spec.slots(), queries);
  }

  static Runner.SideFactory flink(Cluster cluster, Topics topics, Runner.Spec spec) {
    return (topic, tag) ->
        FlinkSide.start(cluster.miniCluster, topics, topic, tag, spec.slots(), spec.hops());
  }

  private static String ms(double v) {
    return Double.isNaN(v) ? "n/a" : Table.count(v);
  }

  /** A Flink mini cluster in this process, one TaskManager with a slot per worker tried. */
  static final class Cluster implements AutoCloseable {
    /** The system property that chooses the job's state backend (see {@link #start}). */
    static final String STATE_BACKEND = "spyglass.bench.state-backend";

    final MiniCluster miniCluster;
    private final Path checkpoints;

    private Cluster(MiniCluster miniCluster, Path checkpoints) {
      this.miniCluster = miniCluster;
      this.checkpoints = checkpoints;
    }

    /**
     * A mini cluster of one task manager with {@code slots} slots. Checkpoints go to files (a
     * temporary folder), as a deployed cluster keeps them ({@code execution.checkpointing.dir}):
     * the JobManager's memory, the default, refuses a subtask's state past 5 MiB, which 10,000
     * queries pass (their messages in every filter's state, their matched records in the
     * combiners'), and the job would then fail its checkpoints and its stop with a savepoint.
     *
     * <p>The state is on the heap (Flink's default: each checkpoint writes all of it), or with
     * {@code -Dspyglass.bench.state-backend=rocksdb} in RocksDB with incremental checkpoints (each
     * checkpoint writes the keyed state's files that changed: the combiners' queries).
     */
    static Cluster start(int slots) throws Exception {
      Path checkpoints = Files.createTempDirectory("spyglass-bench-checkpoints-");
      Configuration conf = new Configuration();
      String backend = System.getProperty(STATE_BACKEND, "hashmap");
      if (backend.equals("rocksdb")) {
        conf.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
        conf.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
      } else if (!backend.equals("hashmap")) {
        throw new IllegalArgumentException(
            "-D" + STATE_BACKEND + " is hashmap (the default) or rocksdb, not " + backend);
      }
      conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
      conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints.toUri().toString());
      conf.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
      conf.set(RestOptions.BIND_PORT, "0");
      conf.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.ofMebiBytes(64));
      conf.set(TaskManagerOptions.NETWORK_MEMORY_MIN, MemorySize.ofMebiBytes(128));
      conf.set(TaskManagerOptions.NETWORK_MEMORY_MAX, MemorySize.ofMebiBytes(128));
      MiniCluster mc =
          new MiniCluster(
              new MiniClusterConfiguration.Builder()
                  .setConfiguration(conf)
                  .setNumTaskManagers(1)
                  .setNumSlotsPerTaskManager(slots)
                  .build());
      mc.start();
      return new Cluster(mc, checkpoints);
    }

    @Override
    public void close() {
      try {
        miniCluster.closeAsync().get(60, TimeUnit.SECONDS);
      } catch (ExecutionException | TimeoutException e) {
        System.err.println("bench: stopping the Flink mini cluster: " + e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      try (Stream<Path> files = Files.walk(checkpoints)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      } catch (IOException e) {
        // a temporary folder: the OS cleans it
      }
    }
  }
}
