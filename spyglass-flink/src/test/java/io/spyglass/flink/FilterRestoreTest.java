package io.spyglass.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.flink.client.ControlMessage;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.apache.flink.streaming.util.TwoInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * A filter subtask restored from a checkpoint tells the combiner of every query it starts after the
 * restore that it had not told before the checkpoint, and of no other: with clock marks a query
 * waits in each subtask until the records reach its time, and the combiner counts a query started
 * only when it heard so from the subtasks.
 */
@SuppressWarnings("try") // the harness's close() may throw InterruptedException
class FilterRestoreTest {
  private static final OperatorSettings MARKS =
      new OperatorSettings(JobOptions.Clock.MARKS, 100, 64, 10, 100, 1_000, null, null, true);

  @Test
  void aQueryStillWaitingForItsTimeAtTheCheckpointIsAnnouncedAfterTheRestore() throws Exception {
    OperatorSubtaskState checkpoint;
    try (TwoInputStreamOperatorTestHarness<RecordBatch, byte[], FilterMessage> h = harness()) {
      h.open();
      h.processElement2(query("later", 5_000));
      h.processElement1(record(1_000));
      assertThat(starts(h)).as("records older than the query: it waits").isEmpty();
      checkpoint = h.snapshot(1, 1_000);
    }
    try (TwoInputStreamOperatorTestHarness<RecordBatch, byte[], FilterMessage> h = harness()) {
      h.initializeState(checkpoint);
      h.open();
      h.processElement1(record(6_000));
      assertThat(starts(h)).containsExactly("later");
    }
  }

  @Test
  void aQueryAnnouncedBeforeTheCheckpointIsNotAnnouncedAgain() throws Exception {
    OperatorSubtaskState checkpoint;
    try (TwoInputStreamOperatorTestHarness<RecordBatch, byte[], FilterMessage> h = harness()) {
      h.open();
      h.processElement2(query("early", 1_000));
      h.processElement2(query("later", 5_000));
      h.processElement1(record(2_000));
      assertThat(starts(h)).containsExactly("early");
      checkpoint = h.snapshot(1, 2_000);
    }
    try (TwoInputStreamOperatorTestHarness<RecordBatch, byte[], FilterMessage> h = harness()) {
      h.initializeState(checkpoint);
      h.open();
      h.processElement1(record(6_000));
      assertThat(starts(h)).containsExactly("later");
      // and a second restore, from a checkpoint taken after both were announced, announces none
      OperatorSubtaskState again = h.snapshot(2, 6_000);
      try (TwoInputStreamOperatorTestHarness<RecordBatch, byte[], FilterMessage> h2 = harness()) {
        h2.initializeState(again);
        h2.open();
        h2.processElement1(record(7_000));
        assertThat(starts(h2)).isEmpty();
      }
    }
  }

  @Test
  void afterARescaleEverySubtaskAnnouncesEveryQuery() throws Exception {
    OperatorSubtaskState checkpoint;
    try (TwoInputStreamOperatorTestHarness<RecordBatch, byte[], FilterMessage> h = harness()) {
      h.open();
      h.processElement2(query("early", 1_000));
      h.processElement1(record(2_000));
      assertThat(starts(h)).containsExactly("early");
      checkpoint = h.snapshot(1, 2_000);
    }
    // the same query may now run in subtasks that never told its combiner: each says so
    for (int subtask = 0; subtask < 2; subtask++) {
      OperatorSubtaskState share =
          AbstractStreamOperatorTestHarness.repartitionOperatorState(
              checkpoint, 128, 1, 2, subtask);
      try (TwoInputStreamOperatorTestHarness<RecordBatch, byte[], FilterMessage> h =
          new TwoInputStreamOperatorTestHarness<>(
              new FilterOperator(MARKS, List.of()), 128, 2, subtask)) {
        h.initializeState(share);
        h.open();
        h.processElement1(record(3_000));
        assertThat(starts(h)).as("subtask %d", subtask).containsExactly("early");
      }
    }
  }

  private static TwoInputStreamOperatorTestHarness<RecordBatch, byte[], FilterMessage> harness()
      throws Exception {
    return new TwoInputStreamOperatorTestHarness<>(new FilterOperator(MARKS, List.of()));
  }

  private static StreamRecord<byte[]> query(String id, long receivedMs) {
    return new StreamRecord<>(
        ControlMessage.query(
                id, "SELECT COUNT(*) FROM STREAM(60s, TIME)", receivedMs, "replies", "test")
            .toJson());
  }

  private static StreamRecord<RecordBatch> record(long timeMs) {
    byte[] json = "{\"status\":200}".getBytes(StandardCharsets.UTF_8);
    return new StreamRecord<>(RecordBatch.one(json, 0, timeMs, timeMs, timeMs), timeMs);
  }

  /** The queries this subtask announced to their combiners, in order. */
  private static List<String> starts(
      TwoInputStreamOperatorTestHarness<RecordBatch, byte[], FilterMessage> h) {
    return h.getOutput().stream()
        .filter(o -> o instanceof StreamRecord<?>)
        .map(o -> ((StreamRecord<?>) o).getValue())
        .filter(v -> v instanceof FilterMessage m && m.kind == FilterMessage.START)
        .map(v -> ((FilterMessage) v).queryId)
        .toList();
  }
}
