package io.spyglass.scenarios;

import java.util.List;

/**
 * What a scenario run may vary, from the command line. Quick mode (for the test suite) keeps every
 * scenario to a few seconds by using shorter probes and fewer points; numbers from it are not meant
 * to be compared. The default sizes keep the published studies' shape (their query counts, record
 * sizes and rates) with fewer repetitions, so that {@code spyglass-bench/publish.sh} fits its time
 * budget; {@code full} repeats more (longer probes, more search steps, every worker count).
 *
 * @param quick short probes, few points
 * @param rate records per second for scenarios run at a fixed rate; 0 for each scenario's default
 * @param recordBytes target record size
 * @param workers worker counts to try; empty for 1 up to the number of cores
 * @param queries simultaneous query counts to try; empty for each scenario's default
 * @param sizes record sizes to try in the data-scaling and pipeline scenarios; empty for defaults
 * @param probeMs how long each measured run lasts
 * @param warmupMs how long each run warms up before it is measured
 * @param latencyBoundMs the latency under which a run counts as sustained (Bullet used 200 ms)
 * @param pairs how many alternated pairs of runs a comparison of two engines measures
 * @param poolRecords records in the large pool of records built before a comparison
 * @param kafka an existing Kafka broker (HOST:PORT) for the scenarios that read a Kafka topic; null
 *     to start one
 * @param full more repetitions than the default: longer probes, more search steps, every worker
 *     count
 * @param workloads versus-bullet: the workloads to compare (their names, e.g. {@code needles,
 *     group-by}); empty for all
 * @param inputs versus-bullet: the inputs to compare on ({@code small-pool}, {@code large-pool},
 *     {@code json}); empty for all
 */
public record Settings(
    boolean quick,
    long rate,
    int recordBytes,
    List<Integer> workers,
    List<Integer> queries,
    List<Integer> sizes,
    long probeMs,
    long warmupMs,
    long latencyBoundMs,
    int pairs,
    int poolRecords,
    String kafka,
    boolean full,
    List<String> workloads,
    List<String> inputs) {

  /** Bullet's test 7 rate: 68,400 records/s of about 1.8 KiB. */
  static final long BULLET_RATE = 68_400;

  /** The data volume of Bullet's test 2: 76,000 records/s. */
  static final long BULLET_TEST_2_RATE = 76_000;

  /** The data volume of Bullet's tests 3 and 4: 85,000 and 84,000 records/s. */
  static final long BULLET_TESTS_3_4_RATE = 85_000;

  /** Each scenario's defaults, quick or not. */
  public static Settings defaults(boolean quick) {
    return defaults(quick, false);
  }

  /** Each scenario's defaults: quick, the default sizes, or full. */
  public static Settings defaults(boolean quick, boolean full) {
    return new Settings(
        quick,
        0,
        1843,
        List.of(),
        List.of(),
        List.of(),
        quick ? 800 : full ? 5_000 : 3_000,
        quick ? 300 : 1_500,
        200,
        quick ? 1 : full ? 5 : 3,
        quick ? 4_096 : 1_000_000,
        null,
        full && !quick,
        List.of(),
        List.of());
  }

  /** These settings with each measured run {@code probeMs} long after {@code warmupMs}. */
  Settings withProbe(long probeMs, long warmupMs) {
    return copy(probeMs, warmupMs, workloads, inputs);
  }

  /** These settings comparing only these versus-bullet workloads on these inputs. */
  Settings only(List<String> workloads, List<String> inputs) {
    return copy(probeMs, warmupMs, List.copyOf(workloads), List.copyOf(inputs));
  }

  private Settings copy(long probeMs, long warmupMs, List<String> workloads, List<String> inputs) {
    return new Settings(
        quick,
        rate,
        recordBytes,
        workers,
        queries,
        sizes,
        probeMs,
        warmupMs,
        latencyBoundMs,
        pairs,
        poolRecords,
        kafka,
        full,
        workloads,
        inputs);
  }

  /** A search's bisection steps: one in quick mode, {@code dflt} by default, {@code full} else. */
  int steps(int dflt, int full) {
    return quick ? 1 : full() ? full : dflt;
  }

  /**
   * How long a scenario that measures single queries (tests 1 and 2) runs them unmeasured first, so
   * that the engine's code is compiled: a few seconds of records at Bullet's rate.
   */
  long jitWarmupMs() {
    return quick ? warmupMs : Math.max(warmupMs, 10_000);
  }

  /** One run of a scenario's queries, recording what it measures only when {@code measured}. */
  interface Pass {
    void run(int pass, boolean measured) throws Exception;
  }

  /**
   * Runs the same queries unmeasured until {@link #jitWarmupMs()} has passed, so that the engine
   * runs compiled code, then once more measured.
   */
  void warmThenMeasure(Pass pass) throws Exception {
    long warmUntil = System.currentTimeMillis() + jitWarmupMs();
    for (int n = 0; ; n++) {
      boolean measured = System.currentTimeMillis() >= warmUntil;
      pass.run(n, measured);
      if (measured) {
        return;
      }
    }
  }

  public long rateOr(long dflt) {
    return rate > 0 ? rate : dflt;
  }

  public List<Integer> workersOrAll() {
    if (!workers.isEmpty()) {
      return workers;
    }
    return java.util.stream.IntStream.rangeClosed(1, Machine.cores()).boxed().toList();
  }

  public List<Integer> queriesOr(List<Integer> dflt) {
    return queries.isEmpty() ? dflt : queries;
  }

  public List<Integer> sizesOr(List<Integer> dflt) {
    return sizes.isEmpty() ? dflt : sizes;
  }
}
