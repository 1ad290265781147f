package io.spyglass.core.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spyglass.core.partial.PartialFormatException;
import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.record.Record;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A combiner restored from its snapshot at any step goes on exactly as one never interrupted. */
class QueryCombinerSnapshotTest {
  private static final long T0 = 1_000_000L;

  @ParameterizedTest
  @ValueSource(
      strings = {
        "SELECT COUNT(*) AS n FROM STREAM(10000, TIME) WINDOWING TUMBLING(1000, TIME)",
        "SELECT k, COUNT(*) AS n FROM STREAM(10000, TIME) GROUP BY k"
            + " WINDOWING EVERY(1000, TIME, FIRST, 3000, TIME)",
        "SELECT COUNT(DISTINCT k) AS d FROM STREAM(10000, TIME) WINDOWING EVERY(2000, TIME, ALL)",
        "SELECT v FROM STREAM(10000, TIME) WINDOWING TUMBLING(3, RECORD)",
        "SELECT TOP(2, k) AS c FROM STREAM(10000, TIME)",
        "SELECT v FROM STREAM(10000, TIME) WHERE v > 3 LIMIT 7",
        "SELECT v FROM STREAM(10000, TIME) WINDOWING EVERY(1, RECORD, FIRST, 1, RECORD)",
        "SELECT k, COUNT(*) AS n, SUM(v) AS s FROM STREAM(FOREVER) GROUP BY k"
            + " WINDOWING TUMBLING(1000, EVENT_TIME(ts), LATENESS 600)",
        "SELECT COUNT(DISTINCT k) AS d FROM STREAM(6000, TIME)"
            + " WINDOWING TUMBLING(500, EVENT_TIME(ts))",
        "SELECT v FROM STREAM(FOREVER) WINDOWING TUMBLING(2000, EVENT_TIME(ts), LATENESS 1s)"
            + " LIMIT 3",
        "SELECT k, COUNT(*) AS n FROM STREAM(FOREVER) GROUP BY k"
      })
  void restoredAtAnyStepEmitsTheSame(String bql) {
    List<String> whole = run(bql, -1);
    assertThat(whole).isNotEmpty();
    for (int at = 0; at < 12; at++) {
      assertThat(run(bql, at)).as("restored at step %d", at).isEqualTo(whole);
    }
  }

  /**
   * Runs 12 steps of records and time, reading the open windows after each; restores the combiner
   * from a snapshot before step k. Event times go forward with steps but out of order within them,
   * some late, one record without a time per step.
   */
  private static List<String> run(String bql, int restoreAt) {
    long[] now = {T0};
    List<String> out = new ArrayList<>();
    ResultSink sink = (q, r) -> out.add(r.toJson());
    Query query = Query.parse("q", bql, QueryLimits.DEFAULTS, T0);
    QueryCombiner[] c = {new QueryCombiner(query, QueryLimits.DEFAULTS, sink, () -> now[0])};
    FilterSet filters =
        new FilterSet(QueryLimits.DEFAULTS, () -> now[0], (q, p) -> c[0].accept(p, now[0]));
    filters.add(query);
    for (int step = 0; step < 12; step++) {
      if (step == restoreAt) {
        byte[] bytes = c[0].snapshot();
        c[0] = QueryCombiner.restore(query, QueryLimits.DEFAULTS, sink, () -> now[0], bytes);
      }
      for (int i = 0; i < 2 + step % 3; i++) {
        filters.process(
            new Record()
                .putString("k", "k" + (i + step) % 4)
                .putLong("v", step + i)
                .putLong("ts", step * 400L + (i * 677L) % 1300 - 300));
      }
      filters.process(new Record().putString("k", "none").putLong("v", 0));
      filters.endOfBatch();
      now[0] += 700;
      filters.flush();
      c[0].advance(now[0]);
      c[0].peek(now[0]).forEach(r -> out.add("open: " + r.toJson()));
    }
    filters.flush();
    c[0].finish(now[0]);
    return out;
  }

  @Test
  void aSnapshotOfAnotherQueryIsRefused() {
    ResultSink sink = (q, r) -> {};
    Query tumbling =
        Query.parse(
            "a",
            "SELECT COUNT(*) FROM STREAM(10000, TIME) WINDOWING EVERY(1000, TIME, FIRST, 2000, TIME)",
            QueryLimits.DEFAULTS,
            T0);
    Query topK = Query.parse("b", "SELECT TOP(2, k) FROM STREAM()", QueryLimits.DEFAULTS, T0);
    byte[] bytes = new QueryCombiner(tumbling, QueryLimits.DEFAULTS, sink, () -> T0).snapshot();
    assertThatThrownBy(
            () -> QueryCombiner.restore(topK, QueryLimits.DEFAULTS, sink, () -> T0, bytes))
        .isInstanceOf(PartialFormatException.class)
        .hasMessageContaining("panes");
    assertThatThrownBy(
            () -> QueryCombiner.restore(topK, QueryLimits.DEFAULTS, sink, () -> T0, new byte[] {1}))
        .isInstanceOf(PartialFormatException.class);
  }
}
