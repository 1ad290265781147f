package io.spyglass.bench;

import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.query.QueryProcessor;
import io.spyglass.core.record.Record;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
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
 * 100 simultaneous GROUP BY queries in one {@link QueryProcessor}. Score: records/s.
 *
 * <ul>
 *   <li>{@code IDENTICAL}: 100 copies of one GROUP BY without a filter ({@value #IDENTICAL_QUERY}),
 *       as in Bullet's test of 100 simultaneous GROUP BY queries: every record feeds every query.
 *   <li>{@code VARIED}: one or two keys, one to three metrics, and filters of four sorts: none, an
 *       equality on {@code device} (which the query index serves), a range on {@code duration}
 *       (which the range index serves), and an equality on the nested {@code demographics.country}
 *       with a range on {@code timespent}: a record feeds fewer than half of them.
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {Bench.XMS, Bench.XMX})
public class ManyGroupByBench {
  static final int QUERIES = 100;

  static final String IDENTICAL_QUERY =
      "SELECT demographics.country AS country, device, COUNT(*) AS n, SUM(duration) AS total,"
          + " AVG(duration) AS mean FROM STREAM(30000, TIME) GROUP BY demographics.country, device";

  public enum Set {
    IDENTICAL,
    VARIED
  }

  private static final String[] KEYS = {
    "device", "browser_name", "os_name", "event_type", "demographics.country", "demographics.age"
  };
  private static final String[] METRICS = {
    "COUNT(*)",
    "SUM(duration)",
    "AVG(timespent)",
    "MIN(duration)",
    "MAX(demographics.age)",
    "AVG(duration)"
  };

  @Param public Set set;

  private Bench.Cursor cursor;
  private QueryProcessor processor;
  private long results;

  @Setup
  public void setUp() {
    cursor = new Bench.Cursor(Events.records(Events.POOL, 42));
    processor = new QueryProcessor(QueryLimits.DEFAULTS, () -> Bench.NOW_MS, (q, r) -> results++);
    List<String> texts =
        set == Set.IDENTICAL
            ? Collections.nCopies(QUERIES, IDENTICAL_QUERY)
            : queries(new SplittableRandom(13), QUERIES);
    for (int i = 0; i < texts.size(); i++) {
      processor.submit("g" + i, texts.get(i));
    }
  }

  /** {@code n} varied GROUP BY queries. */
  static List<String> queries(SplittableRandom random, int n) {
    List<String> out = new ArrayList<>(n);
    for (int q = 0; q < n; q++) {
      int first = random.nextInt(KEYS.length);
      int second = random.nextInt(KEYS.length);
      List<String> keys = new ArrayList<>();
      keys.add(KEYS[first]);
      if (random.nextBoolean() && second != first) {
        keys.add(KEYS[second]);
      }
      StringBuilder select = new StringBuilder("SELECT ");
      for (String key : keys) {
        select.append(key).append(" AS ").append(key.replace('.', '_')).append(", ");
      }
      int metrics = 1 + random.nextInt(3);
      for (int m = 0; m < metrics; m++) {
        select.append(m > 0 ? ", " : "").append(METRICS[random.nextInt(METRICS.length)]);
        select.append(" AS m").append(m);
      }
      select.append(" FROM STREAM(30000, TIME)");
      switch (q % 4) {
        case 1:
          select.append(" WHERE device = '").append(Events.DEVICES[random.nextInt(3)]).append("'");
          break;
        case 2:
          select.append(" WHERE duration > ").append(1_000 + random.nextInt(9_000));
          break;
        case 3:
          select
              .append(" WHERE demographics.country = '")
              .append(Events.COUNTRIES[random.nextInt(8)])
              .append("' AND timespent > ")
              .append(random.nextInt(10));
          break;
        default:
          break;
      }
      select.append(" GROUP BY ").append(String.join(", ", keys));
      out.add(select.toString());
    }
    return out;
  }

  @Benchmark
  @OperationsPerInvocation(Events.BATCH)
  public long aggregate() {
    Record[] pool = cursor.pool;
    for (int i = cursor.nextBatch(), end = i + Events.BATCH; i < end; i++) {
      processor.process(pool[i]);
    }
    processor.endOfBatch();
    return results;
  }
}
