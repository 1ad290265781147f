package io.spyglass.core.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.record.Record;
import io.spyglass.core.result.Result;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Event-time windows fed as the embedded engine feeds them: two workers take the batches in turn
 * and hand over their partials at each round, so a slow worker's partial of records read first may
 * come a round after a fast worker's partial of records read after them.
 */
class EventTimeRoundsTest {
  private static final long T0 = 1_767_225_600_000L;

  /** Windows of 10 s; a record 20 s late still counts. */
  private static final String COUNT =
      "SELECT COUNT(*) AS docs FROM STREAM(FOREVER)"
          + " WINDOWING TUMBLING(10s, EVENT_TIME(time), LATENESS 20s)";

  private final List<Result> results = new ArrayList<>();
  private final Query query = Query.parse("q", COUNT, QueryLimits.DEFAULTS, T0);
  private final QueryCombiner combiner =
      new QueryCombiner(query, QueryLimits.DEFAULTS, (q, r) -> results.add(r), () -> T0);

  /** One worker's partial of the records of seconds {@code [from, to)}, one record a second. */
  private FilterSet worker(int from, int to) {
    FilterSet f = new FilterSet(QueryLimits.DEFAULTS, () -> T0, (q, p) -> combiner.accept(p, T0));
    f.add(query);
    for (int s = from; s < to; s++) {
      f.process(new Record().putLong("time", T0 + s * 1000L));
    }
    return f;
  }

  @Test
  void aSlowWorkersRecordsReadFirstAreNeverLateForAWindowAFastWorkersLaterRecordsClosed() {
    // the batches of seconds [0, 40) and [40, 80): the first worker is slow, the second is not
    FilterSet slow = worker(0, 40);
    FilterSet fast = worker(40, 80);
    fast.flush(); // round 1: only the fast worker had finished its batch when it flushed
    combiner.advanceRound(T0);
    slow.flush(); // round 2: the slow one hands over the records read first
    combiner.advanceRound(T0);
    combiner.advanceRound(T0); // round 3, nothing new

    List<String> finals = new ArrayList<>();
    long late = 0;
    for (Result r : results) {
      var w = r.meta().window().orElseThrow();
      var e = w.eventWindow().orElseThrow();
      if (e.lateUpdate()) {
        late += e.late();
      } else if (e.isFinal()) {
        finals.add((w.startTimeMs() - T0) / 1000 + "s: " + r.records());
      }
    }
    // every window the watermark (79 s - 20 s) passed is final with its ten records, none late
    assertThat(finals)
        .containsExactly(
            "0s: [{docs=10}]",
            "10s: [{docs=10}]",
            "20s: [{docs=10}]",
            "30s: [{docs=10}]",
            "40s: [{docs=10}]");
    assertThat(late).isZero();
  }

  @Test
  void partialsInReadOrderCloseTheirWindowsOneRoundLater() {
    worker(0, 40).flush();
    combiner.advanceRound(T0);
    assertThat(results).as("the first round's event time closes nothing yet").isEmpty();
    combiner.advanceRound(T0);
    assertThat(results).hasSize(1); // 39 s - 20 s: window [0, 10)
  }
}
