package io.spyglass.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.flink.client.ControlMessage;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
    // records older than the query: it waits
    OperatorSubtaskState checkpoint = checkpointAfter(Map.of("later", 5_000L), 1_000, List.of());
    try (TwoInputStreamOperatorTestHarness<RecordBatch, byte[], FilterMessage> h = harness()) {
      assertThat(startsAfterRestore(h, checkpoint, 6_000)).containsExactly("later");
    }
  }

  @Test
  void aQueryAnnouncedBeforeTheCheckpointIsNotAnnouncedAgain() throws Exception {
    Map<String, Long> queries = new LinkedHashMap<>();
    queries.put("early", 1_000L);
    queries.put("later", 5_000L);
    OperatorSubtaskState checkpoint = checkpointAfter(queries, 2_000, List.of("early"));
    try (TwoInputStreamOperatorTestHarness<RecordBatch, byte[], FilterMessage> h = harness()) {
      assertThat(startsAfterRestore(h, checkpoint, 6_000)).containsExactly("later");
      // and a restore from a checkpoint taken after both were announced announces none
      OperatorSubtaskState again = h.snapshot(2, 6_000);
      try (TwoInputStreamOperatorTestHarness<RecordBatch, byte[], FilterMessage> h2 = harness()) {
        assertThat(startsAfterRestore(h2, again, 7_000)).isEmpty();
      }
    }
  }

  @Test
  void afterARescaleEverySubtaskAnnouncesEveryQuery() throws Exception {
    OperatorSubtaskState checkpoint =
        checkpointAfter(Map.of("early", 1_000L), 2_000, List.of("early"));
    // the same query may now run in subtasks that never told its combiner: each says so
    for (int subtask = 0; subtask < 2; subtask++) {
      OperatorSubtaskState share =
          AbstractStreamOperatorTestHarness.repartitionOperatorState(
              checkpoint, 128, 1, 2, subtask);
      try (TwoInputStreamOperatorTestHarness<RecordBatch, byte[], FilterMessage> h =
          new TwoInputStreamOperatorTestHarness<>(
              new FilterOperator(MARKS, List.of()), 128, 2, subtask)) {
        assertThat(startsAfterRestore(h, share, 3_000))
            .as("subtask %d", subtask)
            .containsExactly("early");
      }
    }
  }

  /**
   * A fresh subtask given {@code queries} (id to receive time), then a record of {@code recordMs}:
   * checks what it announced, and returns its checkpoint.
   */
  private static OperatorSubtaskState checkpointAfter(
      Map<String, Long> queries, long recordMs, List<String> announced) throws Exception {
    try (TwoInputStreamOperatorTestHarness<RecordBatch, byte[], FilterMessage> h = harness()) {
      h.open();
      for (Map.Entry<String, Long> q : queries.entrySet()) {
        h.processElement2(query(q.getKey(), q.getValue()));
      }
      h.processElement1(record(recordMs));
      assertThat(starts(h)).containsExactlyElementsOf(announced);
      return h.snapshot(1, recordMs);
    }
  }

  /**
   * What {@code h}, restored from {@code state}, announces when a record of {@code recordMs} comes.
   */
  private static List<String> startsAfterRestore(
      TwoInputStreamOperatorTestHarness<RecordBatch, byte[], FilterMessage> h,
      OperatorSubtaskState state,
      long recordMs)
      throws Exception {
    h.initializeState(state);
    h.open();
    h.processElement1(record(recordMs));
    return starts(h);
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
