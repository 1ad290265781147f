package io.spyglass.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.flink.client.Reply;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * The combiner writes a query's state ahead of the checkpoint once it has not changed for a while
 * (so that a checkpoint does not encode thousands of queries while every result waits): what a
 * checkpoint holds is the same, a query changed after it was written ahead included.
 */
@SuppressWarnings("try") // the harness's close() may throw InterruptedException
class CombinerWritesAheadTest {
  @Test
  void aQueryWrittenAheadThenChangedIsRestoredWhole() throws Exception {
    List<FilterMessage> fromFilter = filtered("x1", "x2");
    OperatorSubtaskState checkpoint;
    try (KeyedTwoInputStreamOperatorTestHarness<String, FilterMessage, FilterMessage, Outgoing> h =
        CombinerHarness.combiner()) {
      h.open();
      h.processElement1(new StreamRecord<>(fromFilter.get(0))); // START
      h.processElement1(new StreamRecord<>(fromFilter.get(1))); // x1
      // quiet for longer than QUIET_MS: written ahead of the checkpoint
      h.setProcessingTime(CombinerOperator.QUIET_MS + 5 * CombinerOperator.WRITE_EVERY_MS);
      h.processElement1(new StreamRecord<>(fromFilter.get(2))); // x2, after
      checkpoint = h.snapshot(1, 1);
    }
    assertThat(finalRecords(checkpoint)).containsExactly("x1", "x2");
  }

  @Test
  void aQueryWrittenAheadAndUnchangedIsRestored() throws Exception {
    List<FilterMessage> fromFilter = filtered("x1");
    OperatorSubtaskState checkpoint;
    try (KeyedTwoInputStreamOperatorTestHarness<String, FilterMessage, FilterMessage, Outgoing> h =
        CombinerHarness.combiner()) {
      h.open();
      h.processElement1(new StreamRecord<>(fromFilter.get(0)));
      h.processElement1(new StreamRecord<>(fromFilter.get(1)));
      h.setProcessingTime(CombinerOperator.QUIET_MS + 5 * CombinerOperator.WRITE_EVERY_MS);
      checkpoint = h.snapshot(1, 1);
    }
    assertThat(finalRecords(checkpoint)).containsExactly("x1");
  }

  /** The query's final result, from a combiner restored from {@code checkpoint}. */
  private static List<Object> finalRecords(OperatorSubtaskState checkpoint) throws Exception {
    try (KeyedTwoInputStreamOperatorTestHarness<String, FilterMessage, FilterMessage, Outgoing> h =
        CombinerHarness.combiner()) {
      h.initializeState(checkpoint);
      h.open();
      CombinerHarness.watermark(h, Long.MAX_VALUE);
      List<Object> ids = new ArrayList<>();
      for (Reply reply : CombinerHarness.results(h)) {
        assertThat(reply.result().meta().isFinal()).isTrue();
        for (Map<String, Object> rec : reply.result().records()) {
          ids.add(rec.get("id"));
        }
      }
      return ids;
    }
  }

  /** What one filter subtask sends for a needle query and a record of each id, one by one. */
  private static List<FilterMessage> filtered(String... ids) throws Exception {
    String[] records = new String[ids.length];
    for (int i = 0; i < ids.length; i++) {
      records[i] = "{\"k\":\"x\",\"id\":\"" + ids[i] + "\"}";
    }
    List<FilterMessage> out =
        CombinerHarness.filtered(
            "q", "SELECT id FROM STREAM(60000, TIME) WHERE k = 'x' LIMIT 10", records);
    assertThat(out).hasSize(1 + ids.length);
    return out;
  }
}
