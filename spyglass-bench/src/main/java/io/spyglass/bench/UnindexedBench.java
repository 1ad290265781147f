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
 * {@code queries} simultaneous raw queries the query index cannot serve, so every record is offered
 * to every query. The primary score is records/s; the secondary score {@code evaluations} is
 * record-query evaluations/s (records/s times {@code queries}).
 *
 * <p>{@code COMPARE}: half {@code duration > k} (k in [800, 1400), about 0.15% of records match),
 * half {@code timespent BETWEEN (a, a + 100)} (0.1%). {@code MIXED}: a third each of those and of
 * {@code browser_name RLIKE '^<browser>-<n>$'}, which matches nothing.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {Bench.XMS, Bench.XMX})
public class UnindexedBench {
  public enum Mix {
    COMPARE,
    MIXED
  }

  @Param public Shape shape;

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
    cursor = new Bench.Cursor(Events.records(shape, Events.POOL, 42));
    filters = new FilterSet(QueryLimits.DEFAULTS, () -> Bench.NOW_MS, (q, p) -> flushed++);
    SplittableRandom random = new SplittableRandom(11);
    int kinds = mix == Mix.COMPARE ? 2 : 3;
    for (int i = 0; i < queries; i++) {
      String where;
      switch (i % kinds) {
        case 0:
          where = "duration > " + (800 + random.nextInt(600));
          break;
        case 1:
          long a = random.nextLong(99_900);
          where = "timespent BETWEEN (" + a + ", " + (a + 100) + ")";
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
    Record[] pool = cursor.pool;
    for (int i = cursor.nextBatch(), end = i + Events.BATCH; i < end; i++) {
      filters.process(pool[i]);
    }
    filters.endOfBatch();
    counter.evaluations += (long) Events.BATCH * queries;
    return flushed;
  }
}
