package io.spyglass.bench;

import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.query.QueryProcessor;
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
 * One aggregation query without a filter in a {@link QueryProcessor}: every record is evaluated and
 * fed to the query's partial. Score: records/s.
 *
 * <p>{@code GROUP_BY} makes up to 600 groups (50 countries, 12 devices); {@code COUNT_DISTINCT}
 * counts ids that are new in every record, as in a live stream, so its sketch soon estimates (each
 * id string is made in the measured loop, as parsing would); {@code TOP_K} counts up to 550
 * distinct items.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {Bench.XMS, Bench.XMX})
public class AggregationBench {
  public enum Kind {
    GROUP_BY(
        "SELECT demographics.country AS country, device, COUNT(*) AS n,"
            + " AVG(duration) AS avg_duration FROM STREAM(30000, TIME)"
            + " GROUP BY demographics.country, device"),
    COUNT_DISTINCT("SELECT COUNT(DISTINCT id) AS ids FROM STREAM(30000, TIME)"),
    QUANTILE("SELECT QUANTILE(duration, LINEAR, 11) FROM STREAM(30000, TIME)"),
    TOP_K("SELECT TOP(10, demographics.country, browser_name) AS n FROM STREAM(30000, TIME)");

    final String bql;

    Kind(String bql) {
      this.bql = bql;
    }
  }

  @Param public Kind kind;

  private Bench.Cursor cursor;
  private QueryProcessor processor;
  private long results;
  private long nextId;

  @Setup
  public void setUp() {
    cursor = new Bench.Cursor(Events.records(Events.POOL, 42));
    processor = new QueryProcessor(QueryLimits.DEFAULTS, () -> Bench.NOW_MS, (q, r) -> results++);
    processor.submit(kind.name(), kind.bql);
  }

  @Benchmark
  @OperationsPerInvocation(Events.BATCH)
  public long aggregate() {
    Record[] pool = cursor.pool;
    boolean freshIds = kind == Kind.COUNT_DISTINCT;
    for (int i = cursor.nextBatch(), end = i + Events.BATCH; i < end; i++) {
      if (freshIds) {
        // a new id per record, as in a live stream: the pool alone would repeat 256 ids
        pool[i].putString("id", Long.toString(nextId++, 36));
      }
      processor.process(pool[i]);
    }
    processor.endOfBatch();
    return results;
  }
}
