package io.spyglass.bench;

import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.query.Query;
import io.spyglass.core.record.Record;

/** Settings and helpers shared by the benchmarks. */
final class Bench {
  static final String XMS = "-Xms2g";
  static final String XMX = "-Xmx2g";

  /** The engine clock of every benchmark: it never moves, so no query ends by its duration. */
  static final long NOW_MS = 1_700_000_000_000L;

  private static final java.lang.management.ThreadMXBean THREADS =
      java.lang.management.ManagementFactory.getThreadMXBean();

  private Bench() {}

  /**
   * CPU time of the calling thread, in ns: a benchmark that adds what its invocations took to a
   * {@code cpuNs} counter lets the report give rates per CPU-second, which other jobs on the
   * machine change far less than rates per wall second.
   */
  static long cpuNs() {
    return THREADS.getCurrentThreadCpuTime();
  }

  static Query parse(String id, String bql) {
    return Query.parse(id, bql, QueryLimits.DEFAULTS, NOW_MS);
  }

  /** The records of one invocation: {@link Events#BATCH} of them from the pool, cycling. */
  static final class Cursor {
    final Record[] pool;
    private int next;

    Cursor(Record[] pool) {
      if (pool.length % Events.BATCH != 0) {
        throw new IllegalArgumentException("the pool must hold whole batches");
      }
      this.pool = pool;
    }

    /** Index of the first record of the next batch; moves the cursor past it. */
    int nextBatch() {
      int start = next;
      next = start + Events.BATCH == pool.length ? 0 : start + Events.BATCH;
      return start;
    }
  }
}
