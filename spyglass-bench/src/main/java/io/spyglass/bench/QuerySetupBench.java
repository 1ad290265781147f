package io.spyglass.bench;

import io.spyglass.core.plan.Bql;
import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.query.FilterSet;
import io.spyglass.core.query.Query;
import io.spyglass.core.query.QueryProcessor;
import io.spyglass.core.syntax.QueryParser;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Setting up {@value #QUERIES} queries that arrive at once, one after the other on one thread.
 * Score: microseconds per query.
 *
 * <ul>
 *   <li>{@code parse}: text to syntax tree ({@link QueryParser}).
 *   <li>{@code plan}: text to a bound, validated plan ({@link Bql#compile}).
 *   <li>{@code filter}: a parsed query into a {@link FilterSet}: compiled evaluators, partial state
 *       and the query index, as a worker does for each query.
 *   <li>{@code submit}: all of it, with the combiner side, in a {@link QueryProcessor}.
 * </ul>
 *
 * <p>{@code NEEDLE}: {@code SELECT * ... WHERE id = '<unique>' LIMIT 10}, Bullet's tests 3 and 4.
 * {@code MIX}: needles, ranges, GROUP BY, COUNT DISTINCT, QUANTILE and TOP K in turn, each with a
 * distinct constant.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5)
@Measurement(iterations = 10)
@Fork(
    value = 1,
    jvmArgsAppend = {Bench.XMS, Bench.XMX})
public class QuerySetupBench {
  static final int QUERIES = 10_000;

  public enum Kind {
    NEEDLE(
        (r, i) ->
            "SELECT * FROM STREAM(30000, TIME) WHERE id = '" + Events.randomId(r) + "' LIMIT 10"),
    MIX(
        (r, i) -> {
          switch (i % 6) {
            case 0:
              return NEEDLE.text.apply(r, i);
            case 1:
              return "SELECT * FROM STREAM(30000, TIME) WHERE duration > "
                  + r.nextInt(1 << 20)
                  + " AND device = 'mobile' LIMIT 10";
            case 2:
              return "SELECT demographics.country AS country, device, COUNT(*) AS n,"
                  + " AVG(duration) AS mean FROM STREAM(30000, TIME) WHERE timespent > "
                  + r.nextInt(1000)
                  + " GROUP BY demographics.country, device";
            case 3:
              return "SELECT COUNT(DISTINCT ip_address) AS ips FROM STREAM(30000, TIME)"
                  + " WHERE status = "
                  + r.nextInt(600);
            case 4:
              return "SELECT QUANTILE(duration, LINEAR, 11) FROM STREAM(30000, TIME)"
                  + " WHERE browser_name = '"
                  + Events.randomId(r)
                  + "'";
            default:
              return "SELECT TOP(10, browser_name) AS n FROM STREAM(30000, TIME)"
                  + " WHERE latency_ms > "
                  + r.nextInt(1000);
          }
        });

    final Text text;

    Kind(Text text) {
      this.text = text;
    }
  }

  /** The text of query {@code i}. */
  interface Text {
    String apply(SplittableRandom random, int i);
  }

  @Param public Kind kind;

  private final SplittableRandom random = new SplittableRandom(5);
  private String[] texts;
  private Query[] parsed;

  @Setup(Level.Invocation)
  public void setUp() {
    texts = new String[QUERIES];
    parsed = new Query[QUERIES];
    for (int i = 0; i < QUERIES; i++) {
      texts[i] = kind.text.apply(random, i);
      parsed[i] = null;
    }
  }

  private Query[] parsed() {
    for (int i = 0; i < QUERIES; i++) {
      if (parsed[i] == null) {
        parsed[i] = Bench.parse("q" + i, texts[i]);
      }
    }
    return parsed;
  }

  @Benchmark
  @OperationsPerInvocation(QUERIES)
  public Object parse() {
    Object last = null;
    for (String text : texts) {
      last = QueryParser.parse(text, QueryLimits.DEFAULTS.maxQueryLength());
    }
    return last;
  }

  @Benchmark
  @OperationsPerInvocation(QUERIES)
  public Object plan() {
    Object last = null;
    for (String text : texts) {
      last = Bql.compile(text, QueryLimits.DEFAULTS);
    }
    return last;
  }

  /** Parsing is done before the measured part here: only the filter side is timed. */
  @State(Scope.Thread)
  public static class Parsed {
    Query[] queries;

    @Setup(Level.Invocation)
    public void setUp(QuerySetupBench bench) {
      queries = bench.parsed().clone();
    }
  }

  @Benchmark
  @OperationsPerInvocation(QUERIES)
  public FilterSet filter(Parsed parsed) {
    FilterSet filters = new FilterSet(QueryLimits.DEFAULTS, () -> Bench.NOW_MS, (q, p) -> {});
    for (Query q : parsed.queries) {
      filters.add(q);
    }
    return filters;
  }

  @Benchmark
  @OperationsPerInvocation(QUERIES)
  public QueryProcessor submit() {
    QueryProcessor processor =
        new QueryProcessor(QueryLimits.DEFAULTS, () -> Bench.NOW_MS, (q, r) -> {});
    for (int i = 0; i < QUERIES; i++) {
      processor.submit("q" + i, texts[i]);
    }
    return processor;
  }
}
