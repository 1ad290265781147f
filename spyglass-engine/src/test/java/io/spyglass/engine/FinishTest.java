package io.spyglass.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.result.Result;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A query finished now holds every record a worker processed before: also when the finish comes
 * while a flush round is in flight (the workers that flushed already went on processing records
 * that the round does not hold).
 */
class FinishTest {
  /** Ticks every millisecond: a round is nearly always in flight when a finish comes. */
  private static final EngineConfig CONFIG =
      EngineConfig.defaults().withWorkers(2).withTickMs(1).withBatchRecords(8);

  private static final int RECORDS = 2_000;
  private static final int ROUNDS = 30;

  @Test
  void finishingEveryQueryHoldsEveryRecordProcessedBefore() throws Exception {
    checkRounds(true);
  }

  @Test
  void finishingOneQueryHoldsEveryRecordProcessedBefore() throws Exception {
    checkRounds(false);
  }

  private static void checkRounds(boolean all) throws Exception {
    ListSource source = new ListSource();
    try (Engine engine = Engine.start(source, CONFIG)) {
      for (int round = 0; round < ROUNDS; round++) {
        QueryHandle count = engine.submit("SELECT COUNT(*) AS n FROM STREAM(MAX, TIME)");
        QueryHandle mark =
            engine.submit(
                "SELECT id FROM STREAM(MAX, TIME) WHERE id = 'mark"
                    + round
                    + "' WINDOWING EVERY(1, RECORD, FIRST, 1, RECORD)");
        assertThat(count.awaitRunning(10, TimeUnit.SECONDS)).isTrue();
        assertThat(mark.awaitRunning(10, TimeUnit.SECONDS)).isTrue();
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++) {
          lines.add("{\"id\":\"r" + i + "\",\"status\":" + (200 + i % 3) + "}");
        }
        lines.add("{\"id\":\"mark" + round + "\"}");
        source.add(lines);
        // the mark is the last record: once a worker processed it, every record was processed
        Result seen = mark.poll(10, TimeUnit.SECONDS);
        assertThat(seen).as("round %d: the mark's result", round).isNotNull();
        if (all) {
          engine.finishAll();
        } else {
          count.finish();
          mark.finish();
        }
        Result last = lastOf(count);
        assertThat(last.records().get(0).get("n"))
            .as("round %d: records counted", round)
            .isEqualTo((long) RECORDS + 1);
        lastOf(mark);
      }
    }
  }

  private static Result lastOf(QueryHandle h) throws InterruptedException {
    while (true) {
      Result r = h.poll(10, TimeUnit.SECONDS);
      assertThat(r).as("a final result of %s", h.id()).isNotNull();
      if (r.meta().isFinal()) {
        return r;
      }
    }
  }
}
