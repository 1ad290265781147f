package io.spyglass.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.SpyglassClock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Writing ahead of a checkpoint: a turn's budget is timed by the job's clock it is given. */
class CombinerWriteAheadTest {
  @Test
  void aTurnStopsWhenItsBudgetIsSpentOnTheClockAndTheNextComesSoon() throws Exception {
    // a clock whose monotonic count the test moves
    AtomicLong nanos = new AtomicLong();
    CombinerWriteAhead ahead =
        new CombinerWriteAhead(new SpyglassClock(() -> 1_700_000_000_000L, nanos::get));
    long t = 1_000_000;
    for (int i = 0; i < 4; i++) {
      ahead.changed("q" + i, t);
    }
    long now = t + CombinerWriteAhead.QUIET_MS;
    List<String> written = new ArrayList<>();
    // each write takes 3 ms on the clock: the 5 ms budget is spent after two
    ahead.writeQuiet(
        now,
        id -> {
          written.add(id);
          nanos.addAndGet(3_000_000);
        });
    assertThat(written).containsExactly("q0", "q1");
    assertThat(ahead.nextTurnMs(now)).isEqualTo(now + CombinerWriteAhead.WRITE_EVERY_MS);

    // a turn that takes no time on the clock writes all that are due
    ahead.writeQuiet(now + CombinerWriteAhead.WRITE_EVERY_MS, written::add);
    assertThat(written).containsExactly("q0", "q1", "q2", "q3");
    assertThat(ahead.nextTurnMs(now)).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void aTurnWhoseBudgetIsSpentBeforeItsFirstWriteStillWritesOne() throws Exception {
    // the thread stopped (a busy machine) between the turn's start and its first write
    AtomicLong nanos = new AtomicLong();
    CombinerWriteAhead ahead =
        new CombinerWriteAhead(
            new SpyglassClock(() -> 1_700_000_000_000L, () -> nanos.getAndAdd(10_000_000)));
    long t = 1_000_000;
    ahead.changed("q0", t);
    ahead.changed("q1", t);
    List<String> written = new ArrayList<>();
    ahead.writeQuiet(t + CombinerWriteAhead.QUIET_MS, written::add);
    assertThat(written).containsExactly("q0");
  }
}
