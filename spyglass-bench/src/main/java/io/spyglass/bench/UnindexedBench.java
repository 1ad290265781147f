package io.spyglass.bench;

import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.query.FilterSet;
import io.spyglass.core.record.Record;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * {@code queries} simultaneous raw queries that no equality index serves. The primary score is
 * records/s; the secondary score {@code evaluations} is the record-query pairs whose filter was
 * actually evaluated per second (what the indexes left), not records times queries.
 *
 * <ul>
 *   <li>{@code RANGE}: half {@code duration > k} (k in [5,000,000, 6,000,000), about 0.2% of
 *       records each), half {@code user_id BETWEEN (a, a + 100)}: the range index routes each
 *       record to the few queries whose interval can hold its value.
 *   <li>{@code SCAN}: the same comparisons on computed values ({@code duration - latency_ms > k},
 *       {@code user_id / 10 BETWEEN (a, a + 10)}), which no index serves: every query is evaluated
 *       on every record.
 *   <li>{@code MIXED}: a third each of the {@code RANGE} kinds and of {@code browser_name RLIKE
 *       '^<browser>-<n>$'}, which matches nothing and is evaluated on every record.
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {Bench.XMS, Bench.XMX})
public class UnindexedBench {
  public enum Mix {
    RANGE,
    SCAN,
    MIXED
  }

  @Param({"100", "1000"})
  public int queries;

  @Param public Mix mix;

  private Bench.Cursor cursor;
  private FilterSet filters;
  private long flushed;

  /** Record-query evaluations, reported by JMH as a rate. */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.OPERATIONS)
  public static class Evaluations {
    public long evaluations;

    @Setup(Level.Iteration)
    public void clear() {
      evaluations = 0;
    }
  }

  @Setup
  public void setUp() {
    cursor = new Bench.Cursor(Events.records(Events.POOL, 42));
    filters = new FilterSet(QueryLimits.DEFAULTS, () -> Bench.NOW_MS, (q, p) -> flushed++);
    SplittableRandom random = new SplittableRandom(11);
    int kinds = mix == Mix.MIXED ? 3 : 2;
    boolean computed = mix == Mix.SCAN;
    for (int i = 0; i < queries; i++) {
      String where;
      switch (i % kinds) {
        case 0:
          long k = 5_000_000 + random.nextInt(1_000_000);
          where = (computed ? "duration - latency_ms > " : "duration > ") + k;
          break;
        case 1:
          long a = 1 + random.nextLong(999_900);
          where =
              computed
                  ? "user_id / 10 BETWEEN (" + a / 10 + ", " + (a / 10 + 10) + ")"
                  : "user_id BETWEEN (" + a + ", " + (a + 100) + ")";
          break;
        default:
          String browser = Events.BROWSERS[random.nextInt(Events.BROWSERS.length)];
          where = "browser_name RLIKE '^" + browser + "-" + random.nextInt(1000) + "$'";
      }
      filters.add(
          Bench.parse("q" + i, "SELECT * FROM STREAM(30000, TIME) WHERE " + where + " LIMIT 10"));
    }
  }

  @Benchmark
  @OperationsPerInvocation(Events.BATCH)
  public long filter(Evaluations counter) {
    long before = filters.evaluations();
    Record[] pool = cursor.pool;
    for (int i = cursor.nextBatch(), end = i + Events.BATCH; i < end; i++) {
      filters.process(pool[i]);
    }
    filters.endOfBatch();
    counter.evaluations += filters.evaluations() - before;
    return flushed;
  }
}
