package io.spyglass.bench;

import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.query.FilterSet;
import io.spyglass.core.record.Record;
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
 * One raw query with a selective filter over one partition: records/s through {@link FilterSet}.
 * About 1 to 2% of records match, so the query keeps matching and flushing full partials of 10
 * records for the whole run (a filter set does not end queries; its combiner would). The secondary
 * score {@code evaluations} counts the records whose filter was evaluated.
 *
 * <ul>
 *   <li>{@code EQUALITY}: an equality conjunct the query index files the query under, so only
 *       {@code device = 'mobile'} records (42%) reach the filter.
 *   <li>{@code RANGE}: a bound on {@code duration} the range index serves, so only the 1% of
 *       records above it reach the filter.
 *   <li>{@code SCAN}: a computed comparison no index serves: the filter is evaluated on every
 *       record.
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {Bench.XMS, Bench.XMX})
public class FilterBench {
  public enum Filter {
    EQUALITY("device = 'mobile' AND duration > 225000"),
    RANGE("duration > 2900000 AND latency_ms < 100"),
    SCAN("duration - latency_ms > 2900000");

    final String where;

    Filter(String where) {
      this.where = where;
    }
  }

  @Param public Filter filter;

  private Bench.Cursor cursor;
  private FilterSet filters;
  private long flushed;

  /** Filter evaluations, reported by JMH as a rate. */
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
    filters.add(
        Bench.parse(
            "filter", "SELECT * FROM STREAM(30000, TIME) WHERE " + filter.where + " LIMIT 10"));
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
