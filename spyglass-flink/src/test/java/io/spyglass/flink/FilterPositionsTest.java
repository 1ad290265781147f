package io.spyglass.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.flink.client.ControlMessage;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.TwoInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * The filter takes query messages in the stream of its source (chained), each with its place in the
 * query topic, and keeps the places it has taken with its queries: restored, it skips the messages
 * it took before the checkpoint when its source reads the topic again from an earlier place (after
 * a change of parallelism every source starts at the lowest place every filter has passed). A query
 * killed before the checkpoint does not start again.
 */
@SuppressWarnings("try") // the harness's close() may throw InterruptedException
class FilterPositionsTest {
  private static final OperatorSettings WALL =
      new OperatorSettings(JobOptions.Clock.WALL, 100, 64, 10, 100, 1_000, null, null, true);

  @Test
  void aRestoredSubtaskSkipsTheQueryMessagesItTookBefore() throws Exception {
    OperatorSubtaskState checkpoint;
    try (OneInputStreamOperatorTestHarness<RecordBatch, FilterMessage> h = chained()) {
      h.open();
      h.processElement(query("a", 0, 5));
      h.processElement(query("c", 0, 6));
      h.processElement(kill("c", 0, 7));
      h.processElement(records());
      assertThat(kinds(h)).containsExactly("START a", "START c", "KILL c");
      checkpoint = h.snapshot(1, 1);
    }
    try (OneInputStreamOperatorTestHarness<RecordBatch, FilterMessage> h = chained()) {
      h.initializeState(checkpoint);
      h.open();
      // read again from offset 4: all but the last were taken before the checkpoint
      h.processElement(query("old", 0, 4));
      h.processElement(query("a", 0, 5));
      h.processElement(query("c", 0, 6));
      h.processElement(kill("c", 0, 7));
      h.processElement(query("b", 0, 8));
      // another partition of the topic: its own place
      h.processElement(query("d", 1, 0));
      assertThat(kinds(h)).containsExactly("START b", "START d");
    }
  }

  @Test
  void queriesBroadcastWithTheirPlaceAreSkippedAlike() throws Exception {
    OperatorSubtaskState checkpoint;
    try (TwoInputStreamOperatorTestHarness<RecordBatch, byte[], FilterMessage> h = broadcast()) {
      h.open();
      h.processElement2(placed(ControlMessage.query("c", bql(), 1L, "r", "i"), 0, 6));
      h.processElement2(placed(ControlMessage.kill("c"), 0, 7));
      assertThat(kinds(h.getOutput())).containsExactly("START c", "KILL c");
      checkpoint = h.snapshot(1, 1);
    }
    try (TwoInputStreamOperatorTestHarness<RecordBatch, byte[], FilterMessage> h = broadcast()) {
      h.initializeState(checkpoint);
      h.open();
      h.processElement2(placed(ControlMessage.query("c", bql(), 1L, "r", "i"), 0, 6));
      h.processElement2(placed(ControlMessage.kill("c"), 0, 7));
      // a message without its place (a query topic read apart) is always taken
      h.processElement2(
          new StreamRecord<>(ControlMessage.query("e", bql(), 1L, "r", "i").toJson()));
      assertThat(kinds(h.getOutput())).containsExactly("START e");
    }
  }

  private static OneInputStreamOperatorTestHarness<RecordBatch, FilterMessage> chained()
      throws Exception {
    return new OneInputStreamOperatorTestHarness<>(new FilterOperator(WALL, List.of()));
  }

  private static TwoInputStreamOperatorTestHarness<RecordBatch, byte[], FilterMessage> broadcast()
      throws Exception {
    return new TwoInputStreamOperatorTestHarness<>(new FilterOperator(WALL, List.of()));
  }

  private static String bql() {
    return "SELECT COUNT(*) FROM STREAM(60s, TIME)";
  }

  private static StreamRecord<RecordBatch> query(String id, int partition, long offset) {
    long now = System.currentTimeMillis();
    return new StreamRecord<>(
        RecordBatch.query(
            ControlMessage.query(id, bql(), now, "replies", "test").toJson(), partition, offset));
  }

  private static StreamRecord<RecordBatch> kill(String id, int partition, long offset) {
    return new StreamRecord<>(
        RecordBatch.query(ControlMessage.kill(id).toJson(), partition, offset));
  }

  private static StreamRecord<byte[]> placed(ControlMessage m, int partition, long offset) {
    return new StreamRecord<>(FilterOperator.placed(m.toJson(), partition, offset));
  }

  private static StreamRecord<RecordBatch> records() {
    byte[] json = "{\"status\":200}".getBytes(StandardCharsets.UTF_8);
    return new StreamRecord<>(RecordBatch.one(json, 0, 1, 1, 1));
  }

  private static List<String> kinds(OneInputStreamOperatorTestHarness<?, FilterMessage> h) {
    return kinds(h.getOutput());
  }

  /** The START and KILL messages to the combiners, in order: "START id". */
  private static List<String> kinds(Iterable<Object> output) {
    List<String> out = new java.util.ArrayList<>();
    for (Object o : output) {
      if (o instanceof StreamRecord<?> r && r.getValue() instanceof FilterMessage m) {
        if (m.kind == FilterMessage.START) {
          out.add("START " + m.queryId);
        } else if (m.kind == FilterMessage.KILL) {
          out.add("KILL " + m.queryId);
        }
      }
    }
    return out;
  }
}
