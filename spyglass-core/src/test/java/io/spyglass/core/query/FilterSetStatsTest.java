package io.spyglass.core.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.partial.Partial;
import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.record.Record;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link FilterSet#stats()}: a snapshot of every query's counters, unchanged by what follows. */
class FilterSetStatsTest {
  private final FilterSet filters =
      new FilterSet(
          QueryLimits.DEFAULTS,
          () -> 0L,
          new PartialSink() {
            @Override
            public void accept(Query query, Partial partial) {}

            @Override
            public void failed(Query query, Throwable error) {}
          });

  private void add(String id, String bql) {
    filters.add(Query.parse(id, bql, QueryLimits.DEFAULTS, 0L));
  }

  private void process(long i) {
    filters.process(Record.fromMap(Map.of("i", i)));
  }

  @Test
  void eachQueryCountsWhatItSawAndMatchedSinceItStarted() {
    add("all", "SELECT COUNT(*) FROM STREAM(MAX, TIME)");
    add("odd", "SELECT * FROM STREAM(MAX, TIME) WHERE i % 2 = 1");
    process(0);
    process(1);
    Map<String, QueryStats> first = filters.stats();
    add("late", "SELECT * FROM STREAM(MAX, TIME) WHERE i > 0");
    process(2);
    process(3);
    filters.endOfBatch();
    Map<String, QueryStats> second = filters.stats();

    assertThat(first)
        .containsOnly(
            Map.entry("all", new QueryStats(2, 2, 0)), Map.entry("odd", new QueryStats(2, 1, 0)));
    assertThat(second)
        .containsOnly(
            Map.entry("all", new QueryStats(4, 4, 0)),
            Map.entry("odd", new QueryStats(4, 2, 0)),
            Map.entry("late", new QueryStats(2, 2, 0)));

    filters.remove("odd");
    process(4);
    assertThat(filters.stats())
        .containsOnly(
            Map.entry("all", new QueryStats(5, 5, 0)), Map.entry("late", new QueryStats(3, 3, 0)));
    // a snapshot taken earlier is as it was
    assertThat(first.get("all")).isEqualTo(new QueryStats(2, 2, 0));
    assertThat(second).hasSize(3);
  }
}
