package io.spyglass.flink;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Writing ahead of a checkpoint: a turn's budget is timed by the job's clock it is given. */
class CombinerWriteAheadTest {
  /** A clock whose monotonic count a test moves. */
  static final class TestClock extends WallClock {
    private static final long serialVersionUID = 1L;
    final AtomicLong nanos = new AtomicLong();

    @Override
    public long getAsLong() {
      return 1_700_000_000_000L;
    }

    @Override
    long nanos() {
      return nanos.get();
    }
  }

  @Test
  void aTurnStopsWhenItsBudgetIsSpentOnTheClockAndTheNextComesSoon() throws Exception {
    TestClock clock = new TestClock();
    CombinerWriteAhead ahead = new CombinerWriteAhead(clock);
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
          clock.nanos.addAndGet(3_000_000);
        });
    assertThat(written).containsExactly("q0", "q1");
    assertThat(ahead.nextTurnMs(now)).isEqualTo(now + CombinerWriteAhead.WRITE_EVERY_MS);

    // a turn that takes no time on the clock writes all that are due
    ahead.writeQuiet(now + CombinerWriteAhead.WRITE_EVERY_MS, written::add);
    assertThat(written).containsExactly("q0", "q1", "q2", "q3");
    assertThat(ahead.nextTurnMs(now)).isEqualTo(Long.MAX_VALUE);
  }
}
