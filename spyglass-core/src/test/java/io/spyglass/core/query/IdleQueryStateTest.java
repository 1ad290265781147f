package io.spyglass.core.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.partial.Partial;
import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.record.Record;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A query whose filter has passed no record holds no partial state in a partition (ten thousand
 * needle queries, each waiting for its id, held three of them each: one per worker and the
 * combiner's); its state is made at the first record it matches, and what it then counts is as
 * before.
 */
class IdleQueryStateTest {
  private final List<Partial> flushed = new ArrayList<>();

  private final PartialSink sink =
      new PartialSink() {
        @Override
        public void accept(Query query, Partial partial) {
          Partial copy = partial.emptyCopy();
          copy.merge(partial);
          flushed.add(copy);
        }

        @Override
        public void failed(Query query, Throwable error) {}
      };

  private final FilterSet filters = new FilterSet(QueryLimits.DEFAULTS, () -> 0L, sink);

  @Test
  void aQueryThatMatchedNothingHoldsNoStateUntilItsFirstMatch() {
    for (String bql :
        List.of(
            "SELECT COUNT(*) AS n FROM STREAM(FOREVER) WHERE id = 'needle'",
            "SELECT * FROM STREAM(30s, TIME) WHERE id = 'needle' LIMIT 10",
            "SELECT COUNT(DISTINCT x) AS d FROM STREAM(FOREVER) WHERE id = 'needle'",
            "SELECT QUANTILE(x, LINEAR, 3) FROM STREAM(FOREVER) WHERE id = 'needle'",
            "SELECT TOP(2, x) FROM STREAM(FOREVER) WHERE id = 'needle'",
            "SELECT COUNT(*) AS n FROM STREAM(FOREVER) WHERE id = 'needle'"
                + " WINDOWING TUMBLING(1000, EVENT_TIME(t))")) {
      String id = "q" + flushed.size() + bql.length();
      filters.add(Query.parse(id, bql, QueryLimits.DEFAULTS, 0L));
      QueryFilter f = filters.filter(id);
      for (int i = 0; i < 100; i++) {
        filters.process(Record.fromMap(Map.of("id", "hay" + i, "x", i, "t", 1_000L + i)));
      }
      filters.endOfBatch();
      filters.flush();
      assertThat(f.partial()).as("the state of %s before a match", bql).isNull();
      assertThat(f.hasState()).isFalse();

      int before = flushed.size();
      filters.process(Record.fromMap(Map.of("id", "needle", "x", 7, "t", 1_500L)));
      filters.endOfBatch();
      filters.flush();
      assertThat(f.partial()).as("the state of %s after a match", bql).isNotNull();
      assertThat(flushed).as("what %s flushed", bql).hasSize(before + 1);
      assertThat(flushed.get(before).isEmpty()).isFalse();
      filters.remove(id);
    }
  }

  @Test
  void aQueryTheIndexRoutesNoRecordToHoldsNoEvaluatorsUntilOneComes() {
    filters.add(
        Query.parse(
            "needle",
            "SELECT COUNT(*) AS n FROM STREAM(FOREVER) WHERE id = 'needle' AND x > 1",
            QueryLimits.DEFAULTS,
            0L));
    filters.add(
        Query.parse(
            "all",
            "SELECT COUNT(*) AS n FROM STREAM(FOREVER) WHERE id != 'never'",
            QueryLimits.DEFAULTS,
            0L));
    QueryFilter needle = filters.filter("needle");
    QueryFilter all = filters.filter("all");
    assertThat(needle.isCompiled()).isFalse();
    for (int i = 0; i < 100; i++) {
      filters.process(Record.fromMap(Map.of("id", "hay" + i, "x", i)));
    }
    filters.endOfBatch();
    filters.flush();
    assertThat(needle.isCompiled()).as("a needle query no record reached").isFalse();
    assertThat(all.isCompiled()).as("a query offered every record").isTrue();
    assertThat(filters.stats("needle")).isEqualTo(new QueryStats(100, 0, 0));

    filters.process(Record.fromMap(Map.of("id", "needle", "x", 1)));
    filters.process(Record.fromMap(Map.of("id", "needle", "x", 7)));
    filters.endOfBatch();
    assertThat(needle.isCompiled()).isTrue();
    assertThat(filters.stats("needle")).isEqualTo(new QueryStats(102, 1, 0));
  }

  @Test
  void workersShareTheQuerysStringConstantInTheirIndexes() throws Exception {
    // the engine gives each worker's filter set the same query: an ASCII constant is kept as the
    // query's own string in each index, not as a copy of its UTF-8 bytes per worker
    Query q =
        Query.parse(
            "q",
            "SELECT COUNT(*) AS n FROM STREAM(FOREVER) WHERE id = 'bench-idle-a-17'",
            QueryLimits.DEFAULTS,
            0L);
    Query other =
        Query.parse(
            "u",
            "SELECT COUNT(*) AS n FROM STREAM(FOREVER) WHERE id = 'n\u00e4del-\ud83d\ude00'",
            QueryLimits.DEFAULTS,
            0L);
    FilterSet second = new FilterSet(QueryLimits.DEFAULTS, () -> 0L, sink);
    for (FilterSet worker : List.of(filters, second)) {
      worker.add(q);
      worker.add(other);
    }
    Object one = filters.index().storedKey("id", "bench-idle-a-17");
    Object two = second.index().storedKey("id", "bench-idle-a-17");
    assertThat(one).isInstanceOf(String.class).isSameAs(two);
    assertThat(filters.index().storedKey("id", "n\u00e4del-\ud83d\ude00"))
        .as("a constant that is not ASCII: its UTF-8 bytes")
        .isInstanceOf(byte[].class);

    // and records are found by their bytes as before: ruled out unless their id is a constant
    Record into = new Record(16);
    for (String id : List.of("bench-idle-a-17", "n\u00e4del-\ud83d\ude00")) {
      assertThat(second.read(json(id), 0, json(id).length, into)).as(id).isTrue();
    }
    for (String id : List.of("bench-idle-a-18", "bench-idle-a-1", "n\u00e4del-", "\u00e4")) {
      assertThat(second.read(json(id), 0, json(id).length, into)).as(id).isFalse();
    }
    second.remove("q");
    assertThat(second.index().storedKey("id", "bench-idle-a-17")).isNull();
    assertThat(second.read(json("bench-idle-a-17"), 0, json("bench-idle-a-17").length, into))
        .isFalse();
  }

  private static byte[] json(String id) {
    return ("{\"id\": \"" + id + "\", \"x\": 1}").getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void aCombinerHoldsNoStateUntilAPartialComesOrItEmits() {
    List<io.spyglass.core.result.Result> results = new ArrayList<>();
    Query q =
        Query.parse(
            "c",
            "SELECT COUNT(*) AS n FROM STREAM(FOREVER) WHERE id = 'needle'",
            QueryLimits.DEFAULTS,
            0L);
    QueryCombiner c =
        new QueryCombiner(q, QueryLimits.DEFAULTS, (query, r) -> results.add(r), () -> 0L);
    c.advance(1_000);
    c.advance(60_000);
    assertThat(c.panesMade()).as("panes of a query nothing matched").isZero();
    c.finish(61_000);
    assertThat(results).hasSize(1);
    assertThat(results.get(0).records()).containsExactly(Map.of("n", 0L));

    // a windowed one emits its empty windows as before
    results.clear();
    Query w =
        Query.parse(
            "w",
            "SELECT COUNT(*) AS n FROM STREAM(FOREVER) WHERE id = 'needle'"
                + " WINDOWING TUMBLING(1000, TIME)",
            QueryLimits.DEFAULTS,
            0L);
    QueryCombiner cw =
        new QueryCombiner(w, QueryLimits.DEFAULTS, (query, r) -> results.add(r), () -> 0L);
    assertThat(cw.panesMade()).isZero();
    cw.advance(1_000);
    assertThat(results).hasSize(1);
    assertThat(results.get(0).records()).containsExactly(Map.of("n", 0L));
  }
}
