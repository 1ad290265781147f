package io.spyglass.core.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.record.Record;
import io.spyglass.core.result.Meta;
import io.spyglass.core.result.Result;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/**
 * One query that throws ends with an error result; the others go on. The failure is real: a clock
 * that throws when {@code NOW()} reads it from one part of the engine (the filter side, or the
 * post-aggregation of the combiner), so no test hook sits in the code under test.
 */
class QueryIsolationTest {
  private static final long T0 = 1_000_000L;

  /** A clock that throws when read from inside a class of the given name. */
  private static final class FailingClock implements LongSupplier {
    final String failInside;
    long now = T0;

    FailingClock(String failInside) {
      this.failInside = failInside;
    }

    @Override
    public long getAsLong() {
      boolean inside =
          StackWalker.getInstance()
              .walk(frames -> frames.anyMatch(f -> f.getClassName().equals(failInside)));
      if (inside) {
        throw new IllegalStateException("clock broken");
      }
      return now;
    }
  }

  private final Map<String, List<Result>> results = new LinkedHashMap<>();

  private QueryProcessor processor(LongSupplier clock) {
    return new QueryProcessor(
        QueryLimits.DEFAULTS,
        clock,
        (q, r) -> results.computeIfAbsent(q.id(), k -> new ArrayList<>()).add(r));
  }

  private static Record record(long i) {
    return Record.fromMap(Map.of("i", i, "s", "x" + i));
  }

  @Test
  void aQueryThatThrowsWhileFilteringEndsWithAnErrorAndTheOthersGoOn() {
    FailingClock clock = new FailingClock(QueryFilter.class.getName());
    QueryProcessor p = processor(clock);
    p.submit("bad", "SELECT COUNT(*) AS n FROM STREAM(10000, TIME) WHERE NOW() > 0");
    p.submit("good", "SELECT COUNT(*) AS n FROM STREAM(10000, TIME)");
    for (int i = 0; i < 10; i++) {
      p.process(record(i));
    }
    p.endOfBatch();
    assertThat(p.running()).extracting(Query::id).containsExactly("good");
    Result bad = single("bad");
    assertThat(bad.meta().isFinal()).isTrue();
    assertThat(bad.meta().errors())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.fatal()).isTrue();
              assertThat(e.message()).contains("clock broken");
            });

    clock.now += 10_000;
    p.advance();
    assertThat(single("good").records()).containsExactly(Map.of("n", 10L));
    assertThat(single("good").meta().errors()).isEmpty();
  }

  @Test
  void aQueryThatThrowsWhileCombiningEndsWithAnErrorAndTheOthersGoOn() {
    FailingClock clock = new FailingClock(PostAggregator.class.getName());
    QueryProcessor p = processor(clock);
    p.submit(
        "bad",
        "SELECT COUNT(*) AS n, NOW() AS t FROM STREAM(10000, TIME) WINDOWING TUMBLING(1000,"
            + " TIME)");
    p.submit(
        "good", "SELECT COUNT(*) AS n FROM STREAM(10000, TIME) WINDOWING TUMBLING(1000, TIME)");
    for (int i = 0; i < 5; i++) {
      p.process(record(i));
    }
    p.endOfBatch();
    clock.now += 1000;
    p.advance();
    assertThat(p.running()).extracting(Query::id).containsExactly("good");
    Result bad = single("bad");
    assertThat(bad.records()).isEmpty();
    assertThat(bad.meta().isFinal()).isTrue();
    assertThat(bad.meta().errors())
        .extracting(Meta.QueryError::message)
        .anyMatch(m -> m.contains("clock broken"));
    assertThat(single("good").records()).containsExactly(Map.of("n", 5L));
    p.process(record(5));
    p.endOfBatch();
    clock.now += 1000;
    p.advance();
    assertThat(results.get("good")).hasSize(2);
  }

  @Test
  void aRecordWindowEndingOnItsBoundaryStillEndsWithAFinalResult() {
    QueryProcessor p = processor(() -> T0);
    p.submit(
        "each", "SELECT i FROM STREAM(MAX, TIME) WINDOWING EVERY(1, RECORD, FIRST, 1, RECORD)");
    p.submit("pairs", "SELECT i FROM STREAM(MAX, TIME) WINDOWING TUMBLING(2, RECORD)");
    for (int i = 0; i < 4; i++) {
      p.process(record(i));
      p.endOfBatch();
    }
    p.finishAll();
    for (String id : List.of("each", "pairs")) {
      List<Result> rs = results.get(id);
      assertThat(rs.subList(0, rs.size() - 1)).noneMatch(r -> r.meta().isFinal());
      Result last = rs.get(rs.size() - 1);
      assertThat(last.meta().isFinal()).as(id).isTrue();
      assertThat(last.records()).isEmpty();
      assertThat(rs.stream().mapToInt(r -> r.records().size()).sum()).isEqualTo(4);
    }
  }

  private Result single(String id) {
    assertThat(results.get(id)).as("results of %s", id).hasSize(1);
    return results.get(id).get(0);
  }
}
