package io.spyglass.core.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.partial.Partial;
import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.record.Record;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link FilterSet#stats()}: a snapshot of every query's counters, unchanged by what follows; and
 * {@link FilterSet#flush()}, which looks only at the queries offered records since the last one.
 */
class FilterSetStatsTest {
  /** The ids of the queries whose partials were flushed, in order. */
  private final List<String> flushed = new ArrayList<>();

  private final FilterSet filters =
      new FilterSet(
          QueryLimits.DEFAULTS,
          () -> 0L,
          new PartialSink() {
            @Override
            public void accept(Query query, Partial partial) {
              flushed.add(query.id());
            }

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

  private void processId(String id) {
    filters.process(Record.fromMap(Map.of("id", id)));
  }

  @Test
  void snapshotsBetweenWhichNoQueryCameOrWentCountOnlyWhatChangedAndStayAsTheyWere() {
    for (int i = 0; i < 100; i++) {
      add("q" + i, "SELECT COUNT(*) FROM STREAM(MAX, TIME) WHERE id = 'n" + i + "'");
    }
    processId("n7");
    processId("none");
    Map<String, QueryStats> first = filters.stats();
    processId("n7");
    processId("n42");
    Map<String, QueryStats> second = filters.stats();
    Map<String, QueryStats> third = filters.stats();
    processId("n42");
    Map<String, QueryStats> fourth = filters.stats();

    assertThat(first.get("q7")).isEqualTo(new QueryStats(2, 1, 0));
    assertThat(first.get("q42")).isEqualTo(new QueryStats(2, 0, 0));
    assertThat(second.get("q7")).isEqualTo(new QueryStats(4, 2, 0));
    assertThat(second.get("q42")).isEqualTo(new QueryStats(4, 1, 0));
    assertThat(second.get("q0")).isEqualTo(new QueryStats(4, 0, 0));
    assertThat(third).isEqualTo(second);
    assertThat(fourth.get("q42")).isEqualTo(new QueryStats(5, 2, 0));
    assertThat(fourth).hasSize(100);
    // earlier snapshots are as they were
    assertThat(first.get("q7")).isEqualTo(new QueryStats(2, 1, 0));
    assertThat(second.get("q42")).isEqualTo(new QueryStats(4, 1, 0));
  }

  @Test
  void aQueryReplacedUnderItsIdCountsAfresh() {
    add("q", "SELECT COUNT(*) FROM STREAM(MAX, TIME) WHERE id = 'a'");
    processId("a");
    filters.stats();
    filters.remove("q");
    add("q", "SELECT COUNT(*) FROM STREAM(MAX, TIME) WHERE id = 'b'");
    processId("a");
    processId("b");

    assertThat(filters.stats()).containsOnly(Map.entry("q", new QueryStats(2, 1, 0)));
    filters.flush();
    assertThat(flushed).containsExactly("q");
  }

  @Test
  void aFlushSendsEachQueryThatMatchedSinceTheLastOneOnce() {
    add("a", "SELECT COUNT(*) FROM STREAM(MAX, TIME) WHERE id = 'a'");
    add("b", "SELECT COUNT(*) FROM STREAM(MAX, TIME) WHERE id = 'b'");
    add("gone", "SELECT COUNT(*) FROM STREAM(MAX, TIME) WHERE id = 'gone'");
    processId("a");
    processId("a");
    processId("gone");
    filters.remove("gone");
    filters.flush();
    assertThat(flushed).containsExactly("a");

    flushed.clear();
    filters.flush();
    assertThat(flushed).isEmpty();

    processId("b");
    processId("nobody");
    filters.flush(); // "a" has nothing since
    assertThat(flushed).containsExactly("b");
  }
}
