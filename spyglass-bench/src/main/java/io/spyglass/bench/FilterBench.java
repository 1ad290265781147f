package io.spyglass.bench;

import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.query.FilterSet;
import io.spyglass.core.record.Record;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * One raw query with a selective filter over one partition: records/s through {@link FilterSet}.
 * About 1% of records match, so the query keeps matching and flushing full partials of 10 records
 * for the whole run (a filter set does not end queries; its combiner would).
 *
 * <p>{@code INDEXED} has an equality conjunct the query index files the query under, so only {@code
 * device = 'ios'} records (30%) reach the filter; {@code SCAN} evaluates the filter on every
 * record.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {Bench.XMS, Bench.XMX})
public class FilterBench {
  public enum Filter {
    INDEXED("duration > 500 AND device = 'ios'"),
    SCAN("duration > 500 AND timespent < 30000");

    final String where;

    Filter(String where) {
      this.where = where;
    }
  }

  @Param public Shape shape;

  @Param public Filter filter;

  private Bench.Cursor cursor;
  private FilterSet filters;
  private long flushed;

  @Setup
  public void setUp() {
    cursor = new Bench.Cursor(Events.records(shape, Events.POOL, 42));
    filters = new FilterSet(QueryLimits.DEFAULTS, () -> Bench.NOW_MS, (q, p) -> flushed++);
    filters.add(
        Bench.parse(
            "filter", "SELECT * FROM STREAM(30000, TIME) WHERE " + filter.where + " LIMIT 10"));
  }

  @Benchmark
  @OperationsPerInvocation(Events.BATCH)
  public long filter() {
    Record[] pool = cursor.pool;
    for (int i = cursor.nextBatch(), end = i + Events.BATCH; i < end; i++) {
      filters.process(pool[i]);
    }
    filters.endOfBatch();
    return flushed;
  }
}
