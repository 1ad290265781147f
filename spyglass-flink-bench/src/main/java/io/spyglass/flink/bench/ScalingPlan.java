package io.spyglass.flink.bench;

import io.spyglass.scenarios.Table;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The plan of {@code docs/scaling.md} for 100 machines, computed from the rates this run measured,
 * so the document's numbers are the bench's. A slot is a core; the job runs at 70% of what its
 * slots sustain (30% left to catch up after a restart), on machines of 16 cores that give 14 to
 * slots. The per-slot rate is records per CPU-second of the Flink job's process (every thread of
 * it: source, filter, combiner, sink, GC), at the largest slot count run: what a core gives
 * whatever else the machine runs.
 */
final class ScalingPlan {
  static final double LOAD = 0.7;
  static final int MACHINES = 100;
  static final int SLOTS_PER_MACHINE = 14;
  static final double TICKS_PER_SECOND = 10;

  /** Bullet's test 6: records/s of about 4.1 KiB, with 400 RAW queries, and its cores. */
  static final double BULLET_RECORDS = 1_004_500;

  static final double BULLET_CORES = 1_189.4;

  /** The record sizes whose rates give the cost of Bullet's larger records. */
  static final int OUR_BYTES = 1843;

  static final int BULLET_BYTES = 4096;

  private ScalingPlan() {}

  /**
   * @param pairs the runtimes' runs, embedded from Kafka, Flink, embedded from a file, by workload
   *     and slot count
   * @param flinkBySize the Flink job's runs of JStorm's size test, by record size
   */
  static Table table(List<Runner.Outcome[]> pairs, Map<Integer, Runner.Outcome> flinkBySize) {
    // per workload, the pair with the most slots
    Map<String, Runner.Outcome[]> largest = new LinkedHashMap<>();
    for (Runner.Outcome[] p : pairs) {
      Runner.Outcome[] known = largest.get(p[1].spec().workload());
      if (known == null || known[1].spec().slots() <= p[1].spec().slots()) {
        largest.put(p[1].spec().workload(), p);
      }
    }
    List<String> columns = new ArrayList<>(List.of("quantity"));
    columns.addAll(largest.keySet());
    Table t =
        new Table(
            "flink-plan",
            "Sizing the Flink job from this run's rates (70% load, 16-core machines giving 14"
                + " slots)",
            columns.toArray(String[]::new));
    Runner.Outcome at4k = flinkBySize.get(BULLET_BYTES);
    Runner.Outcome at18k = flinkBySize.get(OUR_BYTES);
    double sizeFactor =
        at4k == null || at18k == null
            ? Double.NaN
            : at4k.recordsPerCpuSecond() / at18k.recordsPerCpuSecond();
    List<Runner.Outcome[]> runs = new ArrayList<>(largest.values());
    row(t, runs, "slots in the measured runs", p -> p[1].spec().slots(), 0);
    row(
        t,
        runs,
        "Flink job: records per CPU-second, one slot (measured)",
        p -> p[1].recordsPerCpuSecond(),
        0);
    row(
        t,
        runs,
        "embedded engine: records per CPU-second (measured, same records and queries)",
        p -> p[0].recordsPerCpuSecond(),
        0);
    row(
        t,
        runs,
        "embedded engine from a file: records per CPU-second (measured, same records and queries)",
        p -> p.length > 2 && p[2] != null ? p[2].recordsPerCpuSecond() : Double.NaN,
        0);
    row(
        t,
        runs,
        "Kafka broker: CPU-seconds per million records the job read (measured)",
        p -> p[1].brokerCpuSeconds() / p[1].records() * 1e6,
        1);
    row(
        t,
        runs,
        "slots for 1,000,000 records/s of 1.8 KiB",
        p -> Math.ceil(1e6 / (LOAD * p[1].recordsPerCpuSecond())),
        0);
    row(
        t,
        runs,
        "machines for them",
        p -> Math.ceil(Math.ceil(1e6 / (LOAD * p[1].recordsPerCpuSecond())) / SLOTS_PER_MACHINE),
        0);
    row(
        t,
        runs,
        "100 machines (1,400 slots, 1,400 partitions): records/s of 1.8 KiB",
        p -> capacity(p[1]),
        0);
    row(
        t,
        runs,
        "Kafka broker cores to serve the job that stream",
        p -> capacity(p[1]) * p[1].brokerCpuSeconds() / p[1].records(),
        0);
    row(
        t,
        runs,
        "partials per second into each combiner subtask (one per aggregating query a tick)",
        p -> TICKS_PER_SECOND * p[1].spec().others().size(),
        0);
    row(
        t,
        runs,
        "query messages per query submitted (one to each filter subtask of 1,400)",
        p -> MACHINES * SLOTS_PER_MACHINE,
        0);
    row(
        t,
        runs,
        "records per CPU-second at 4 KiB / at 1.8 KiB (Flink job, JStorm's size test)",
        p -> sizeFactor,
        2);
    row(
        t,
        runs,
        "cores for Bullet's test 6: 1,004,500 records/s of 4 KiB (Bullet: 1,189.4)",
        p -> Math.ceil(BULLET_RECORDS / (LOAD * p[1].recordsPerCpuSecond() * sizeFactor)),
        0);
    return t;
  }

  /** Records/s of 1.8 KiB that 100 machines read at 70% load. */
  private static double capacity(Runner.Outcome flink) {
    return MACHINES * SLOTS_PER_MACHINE * LOAD * flink.recordsPerCpuSecond();
  }

  private static void row(
      Table t,
      List<Runner.Outcome[]> runs,
      String quantity,
      ToDoubleFunction<Runner.Outcome[]> value,
      int digits) {
    List<Object> cells = new ArrayList<>(List.of(quantity));
    for (Runner.Outcome[] p : runs) {
      double v = value.applyAsDouble(p);
      cells.add(digits == 0 && !Double.isNaN(v) ? Table.count(v) : Table.num(v, digits));
    }
    t.row(cells.toArray());
  }
}
