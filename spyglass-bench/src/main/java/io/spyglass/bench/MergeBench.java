package io.spyglass.bench;

import io.spyglass.core.partial.CountDistinctPartial;
import io.spyglass.core.partial.Partial;
import io.spyglass.core.partial.Partials;
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
 * Merging, encoding and decoding the partial state of each kind of aggregation, as a combiner does
 * for every partial a worker sends. Two partials {@code a} and {@code b} of the same query are
 * built from disjoint halves of the record pool. Scores: merges/s, encodes/s, decodes/s of one
 * partial.
 *
 * <ul>
 *   <li>{@code RAW}: {@code SELECT *} with {@code LIMIT 100}, 50 records each, so the merged state
 *       is full.
 *   <li>{@code GROUP}: two keys with 720 possible groups, {@code COUNT}, {@code AVG}, {@code MAX}.
 *   <li>{@code COUNT_DISTINCT}: 100,000 distinct values each, so the theta sketches are in
 *       estimation mode.
 *   <li>{@code QUANTILE}: 100,000 durations each.
 *   <li>{@code TOP_K}: about 2,000 distinct items each, more than the sketch's map holds.
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {Bench.XMS, Bench.XMX})
public class MergeBench {
  public enum Kind {
    RAW,
    GROUP,
    COUNT_DISTINCT,
    QUANTILE,
    TOP_K
  }

  @Param public Kind kind;

  private Partial a;
  private Partial b;
  private Partial into;
  private byte[] encodedA;

  @Setup
  public void setUp() {
    Record[] records = Events.records(Events.POOL, 42);
    int half = records.length / 2;
    switch (kind) {
      case RAW:
        String raw = "SELECT * FROM STREAM(30000, TIME) LIMIT 100";
        a = capture(raw, records, 0, 50);
        b = capture(raw, records, half, 50);
        break;
      case GROUP:
        String group =
            "SELECT device, demographics.age AS age, COUNT(*) AS n, AVG(duration) AS avg_duration,"
                + " MAX(timespent) AS max_timespent FROM STREAM(30000, TIME)"
                + " GROUP BY device, demographics.age";
        a = capture(group, records, 0, half);
        b = capture(group, records, half, half);
        break;
      case COUNT_DISTINCT:
        a = distinct(new SplittableRandom(1));
        b = distinct(new SplittableRandom(2));
        break;
      case QUANTILE:
        String quantile = "SELECT QUANTILE(duration, LINEAR, 11) FROM STREAM(30000, TIME)";
        a = capture(quantile, records, 0, 100_000);
        b = capture(quantile, records, half, 100_000);
        break;
      default:
        String topK = "SELECT TOP(10, ip_address) AS n FROM STREAM(30000, TIME)";
        a = capture(topK, records, 0, half);
        b = capture(topK, records, half, half);
    }
    into = a.emptyCopy();
    encodedA = Partials.encode(a);
  }

  /** The state {@code bql} flushes after {@code count} records from {@code from}, cycling. */
  static Partial capture(String bql, Record[] records, int from, int count) {
    Partial[] out = new Partial[1];
    FilterSet filters =
        new FilterSet(
            QueryLimits.DEFAULTS,
            () -> Bench.NOW_MS,
            (q, p) -> {
              if (out[0] == null) {
                out[0] = p.emptyCopy();
              }
              out[0].merge(p);
            });
    filters.add(Bench.parse("merge", bql));
    for (int i = 0; i < count; i++) {
      filters.process(records[(from + i) % records.length]);
    }
    filters.flush();
    return out[0];
  }

  private static Partial distinct(SplittableRandom random) {
    CountDistinctPartial p =
        new CountDistinctPartial(QueryLimits.DEFAULTS.countDistinctEntries(), "n");
    for (int i = 0; i < 100_000; i++) {
      p.update(random.nextLong());
    }
    return p;
  }

  /** Two merges into a state emptied first, as a window that has just been reset receives. */
  @Benchmark
  @OperationsPerInvocation(2)
  public Partial merge() {
    into.reset();
    into.merge(a);
    into.merge(b);
    return into;
  }

  @Benchmark
  public byte[] encode() {
    return Partials.encode(a);
  }

  @Benchmark
  public Partial decode() {
    return Partials.decode(encodedA);
  }
}
