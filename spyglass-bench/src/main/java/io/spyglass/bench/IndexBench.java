package io.spyglass.bench;

import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.query.FilterSet;
import io.spyglass.core.record.Record;
import java.util.SplittableRandom;
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
 * 10,000 simultaneous raw queries, each looking for one {@code id}, in one {@link FilterSet}: the
 * query index files them by id, so a record costs one lookup instead of 10,000 evaluations. One
 * record in 1,000 has an id some query looks for; the others match none. Score: records/s.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {Bench.XMS, Bench.XMX})
public class IndexBench {
  static final int QUERIES = 10_000;

  @Param public Shape shape;

  private Bench.Cursor cursor;
  private FilterSet filters;
  private long flushed;

  @Setup
  public void setUp() {
    Record[] records = Events.records(shape, Events.POOL, 42);
    cursor = new Bench.Cursor(records);
    filters = new FilterSet(QueryLimits.DEFAULTS, () -> Bench.NOW_MS, (q, p) -> flushed++);
    SplittableRandom random = new SplittableRandom(7);
    for (int i = 0; i < QUERIES; i++) {
      String id =
          i * 1_000 < records.length
              ? (String) records[i * 1_000].get("id")
              : Events.randomId(random);
      filters.add(
          Bench.parse(
              "q" + i, "SELECT * FROM STREAM(30000, TIME) WHERE id = '" + id + "' LIMIT 10"));
    }
  }

  @Benchmark
  @OperationsPerInvocation(Events.BATCH)
  public long lookup() {
    Record[] pool = cursor.pool;
    for (int i = cursor.nextBatch(), end = i + Events.BATCH; i < end; i++) {
      filters.process(pool[i]);
    }
    filters.endOfBatch();
    return flushed;
  }
}
