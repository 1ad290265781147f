package io.spyglass.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.flink.client.ControlMessage;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.flink.api.common.typeinfo.BasicTypeInfo;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * The operators' timers are set for what is due, not every few ms: a filter subtask with no record
 * waiting wakes for its ticks (every {@code tickMs}) and its status, not every {@code batchMs}; a
 * combiner whose queries do not change is not woken at all. Each wake-up of a task's thread is a
 * context switch, one per slot: on a machine with few cores the slots' timers took CPU from the
 * records. A raw match still waits at most {@code batchMs}, and a query's state is still written
 * ahead once it is quiet.
 */
@SuppressWarnings("try") // the harness's close() may throw InterruptedException
class IdleTimersTest {
  private static final OperatorSettings WALL =
      new OperatorSettings(JobOptions.Clock.WALL, 100, 64, 10, 100, 1_000, null, null, false);

  private static final byte[] QUERY =
      ControlMessage.query(
              "q", "SELECT * FROM STREAM(600000, TIME) WHERE k = 'x' LIMIT 10", 0, "r", "i")
          .toJson();

  @Test
  void anIdleFilterWakesForItsTicksAlone() throws Exception {
    try (OneInputStreamOperatorTestHarness<RecordBatch, FilterMessage> f = filter()) {
      f.setProcessingTime(0);
      f.open();
      f.processElement(new StreamRecord<>(RecordBatch.query(QUERY, 0, 0)));
      f.setProcessingTime(10);
      assertThat(f.getProcessingTimeService().getActiveTimerTimestamps())
          .as("after its first run, the timer waits for the tick")
          .containsExactly(100L);
      f.setProcessingTime(100);
      assertThat(f.getProcessingTimeService().getActiveTimerTimestamps()).containsExactly(200L);
    }
  }

  @Test
  void aRawMatchWaitsAtMostBatchMs() throws Exception {
    try (OneInputStreamOperatorTestHarness<RecordBatch, FilterMessage> f = filter()) {
      f.setProcessingTime(0);
      f.open();
      f.processElement(new StreamRecord<>(RecordBatch.query(QUERY, 0, 0)));
      f.setProcessingTime(30);
      byte[] json = "{\"k\":\"x\"}".getBytes(StandardCharsets.UTF_8);
      f.processElement(new StreamRecord<>(RecordBatch.one(json, 0, 1, 1, 1)));
      assertThat(partials(f)).isZero();
      assertThat(f.getProcessingTimeService().getActiveTimerTimestamps()).contains(40L);
      f.setProcessingTime(40);
      assertThat(partials(f)).isEqualTo(1);
    }
  }

  @Test
  void aCombinerWithNothingToWriteIsNotWoken() throws Exception {
    FilterMessage start;
    try (OneInputStreamOperatorTestHarness<RecordBatch, FilterMessage> f = filter()) {
      f.open();
      f.processElement(new StreamRecord<>(RecordBatch.query(QUERY, 0, 0)));
      start =
          f.getOutput().stream()
              .map(o -> (FilterMessage) ((StreamRecord<?>) o).getValue())
              .filter(m -> m.kind == FilterMessage.START)
              .findFirst()
              .orElseThrow();
    }
    try (KeyedTwoInputStreamOperatorTestHarness<String, FilterMessage, FilterMessage, Outgoing> h =
        new KeyedTwoInputStreamOperatorTestHarness<>(
            new CombinerOperator(WALL),
            new SpyglassJob.ByQuery(),
            new SpyglassJob.ByQuery(),
            BasicTypeInfo.STRING_TYPE_INFO)) {
      h.setProcessingTime(0);
      h.open();
      assertThat(h.getProcessingTimeService().getNumActiveTimers()).isZero();
      h.processElement1(new StreamRecord<>(start));
      assertThat(h.getProcessingTimeService().getActiveTimerTimestamps())
          .as("the query is written ahead once it is quiet")
          .containsExactly(CombinerOperator.QUIET_MS);
      h.setProcessingTime(CombinerOperator.QUIET_MS);
      assertThat(h.getProcessingTimeService().getNumActiveTimers())
          .as("written: nothing is left to wake for")
          .isZero();
    }
  }

  private static OneInputStreamOperatorTestHarness<RecordBatch, FilterMessage> filter()
      throws Exception {
    return new OneInputStreamOperatorTestHarness<>(new FilterOperator(WALL, List.of()));
  }

  private static long partials(OneInputStreamOperatorTestHarness<RecordBatch, FilterMessage> f) {
    return f.getOutput().stream()
        .filter(
            o ->
                o instanceof StreamRecord<?> r
                    && r.getValue() instanceof FilterMessage m
                    && m.kind == FilterMessage.PARTIAL)
        .count();
  }
}
