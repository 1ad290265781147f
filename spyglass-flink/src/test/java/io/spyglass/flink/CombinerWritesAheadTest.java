package io.spyglass.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.flink.client.ControlMessage;
import io.spyglass.flink.client.Reply;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.BasicTypeInfo;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * The combiner writes a query's state ahead of the checkpoint once it has not changed for a while
 * (so that a checkpoint does not encode thousands of queries while every result waits): what a
 * checkpoint holds is the same, a query changed after it was written ahead included.
 */
@SuppressWarnings("try") // the harness's close() may throw InterruptedException
class CombinerWritesAheadTest {
  private static final OperatorSettings WALL =
      new OperatorSettings(JobOptions.Clock.WALL, 100, 64, 10, 100, 1_000, null, null, false);

  @Test
  void aQueryWrittenAheadThenChangedIsRestoredWhole() throws Exception {
    List<FilterMessage> fromFilter = filtered("x1", "x2");
    OperatorSubtaskState checkpoint;
    try (KeyedTwoInputStreamOperatorTestHarness<String, FilterMessage, FilterMessage, Outgoing> h =
        combiner()) {
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
        combiner()) {
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
        combiner()) {
      h.initializeState(checkpoint);
      h.open();
      h.processWatermark1(new Watermark(Long.MAX_VALUE));
      h.processWatermark2(new Watermark(Long.MAX_VALUE));
      List<Object> ids = new ArrayList<>();
      for (Object o : h.getOutput()) {
        if (o instanceof StreamRecord<?> r && r.getValue() instanceof Outgoing out) {
          Reply reply = Reply.decode(out.value);
          if (reply.kind() == Reply.Kind.RESULT) {
            assertThat(reply.result().meta().isFinal()).isTrue();
            for (Map<String, Object> rec : reply.result().records()) {
              ids.add(rec.get("id"));
            }
          }
        }
      }
      return ids;
    }
  }

  /** What one filter subtask sends for a needle query and a record of each id, one by one. */
  private static List<FilterMessage> filtered(String... ids) throws Exception {
    List<FilterMessage> out = new ArrayList<>();
    try (OneInputStreamOperatorTestHarness<RecordBatch, FilterMessage> f =
        new OneInputStreamOperatorTestHarness<>(new FilterOperator(WALL, List.of()))) {
      f.open();
      byte[] query =
          ControlMessage.query(
                  "q", "SELECT id FROM STREAM(60000, TIME) WHERE k = 'x' LIMIT 10", 0, "r", "i")
              .toJson();
      f.processElement(new StreamRecord<>(RecordBatch.query(query, 0, 0)));
      for (String id : ids) {
        byte[] json = ("{\"k\":\"x\",\"id\":\"" + id + "\"}").getBytes(StandardCharsets.UTF_8);
        f.processElement(new StreamRecord<>(RecordBatch.one(json, 0, 1, 1, 1)));
        f.setProcessingTime(f.getProcessingTime() + 2 * WALL.batchMs()); // the batch ends
      }
      for (Object o : f.getOutput()) {
        if (o instanceof StreamRecord<?> r && r.getValue() instanceof FilterMessage m) {
          if (m.kind == FilterMessage.START || m.kind == FilterMessage.PARTIAL) {
            out.add(m);
          }
        }
      }
    }
    assertThat(out).hasSize(1 + ids.length);
    return out;
  }

  private static KeyedTwoInputStreamOperatorTestHarness<
          String, FilterMessage, FilterMessage, Outgoing>
      combiner() throws Exception {
    return new KeyedTwoInputStreamOperatorTestHarness<>(
        new CombinerOperator(WALL),
        new SpyglassJob.ByQuery(),
        new SpyglassJob.ByQuery(),
        BasicTypeInfo.STRING_TYPE_INFO);
  }
}
