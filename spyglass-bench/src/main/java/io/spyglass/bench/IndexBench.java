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
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * 10,000 simultaneous raw queries, each looking for one {@code id}, in one {@link FilterSet}: the
 * query index files them by id, so a record costs one lookup instead of 10,000 evaluations. One
 * record in {@value #NEEDLE_EVERY} carries the id of a query, the next query each time, so every
 * query matches in turn; the others match none. The needle's id is set on a pooled record just
 * before it is processed and restored after. Score: records/s.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {Bench.XMS, Bench.XMX})
public class IndexBench {
  static final int QUERIES = 10_000;
  static final int NEEDLE_EVERY = 1_000;

  private Bench.Cursor cursor;
  private FilterSet filters;
  private String[] needles;
  private String[] ids;
  private int untilNeedle = NEEDLE_EVERY;
  private int nextNeedle;
  private long flushed;

  @Setup
  public void setUp() {
    Record[] records = Events.records(Events.POOL, 42);
    cursor = new Bench.Cursor(records);
    ids = new String[records.length];
    for (int i = 0; i < records.length; i++) {
      ids[i] = (String) records[i].get("id");
    }
    filters = new FilterSet(QueryLimits.DEFAULTS, () -> Bench.NOW_MS, (q, p) -> flushed++);
    SplittableRandom random = new SplittableRandom(7);
    needles = new String[QUERIES];
    for (int i = 0; i < QUERIES; i++) {
      needles[i] = Events.randomId(random);
      filters.add(
          Bench.parse(
              "q" + i,
              "SELECT * FROM STREAM(30000, TIME) WHERE id = '" + needles[i] + "' LIMIT 10"));
    }
  }

  @Benchmark
  @OperationsPerInvocation(Events.BATCH)
  public long lookup() {
    Record[] pool = cursor.pool;
    for (int i = cursor.nextBatch(), end = i + Events.BATCH; i < end; i++) {
      if (--untilNeedle == 0) {
        untilNeedle = NEEDLE_EVERY;
        pool[i].putString("id", needles[nextNeedle]);
        nextNeedle = nextNeedle + 1 == QUERIES ? 0 : nextNeedle + 1;
        filters.process(pool[i]);
        pool[i].putString("id", ids[i]);
      } else {
        filters.process(pool[i]);
      }
    }
    filters.endOfBatch();
    return flushed;
  }
}
