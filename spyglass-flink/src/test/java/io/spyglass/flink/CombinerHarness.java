package io.spyglass.flink;

import io.spyglass.flink.client.ControlMessage;
import io.spyglass.flink.client.Reply;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.BasicTypeInfo;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;

/**
 * The combiner in Flink's operator test harness, fed what a filter subtask sends (run in a harness
 * of its own), on the wall clock: the helpers of the tests of the combiner's state and restores.
 */
final class CombinerHarness {
  /** Wall clock, ticks every 100 ms, batches of 10 ms. */
  static final OperatorSettings WALL =
      new OperatorSettings(JobOptions.Clock.WALL, 100, 64, 10, 100, 1_000, null, null, false);

  private CombinerHarness() {}

  /** A combiner subtask ({@link #WALL}), keyed by query as on the job. */
  static KeyedTwoInputStreamOperatorTestHarness<String, FilterMessage, FilterMessage, Outgoing>
      combiner() throws Exception {
    return new KeyedTwoInputStreamOperatorTestHarness<>(
        new CombinerOperator(WALL),
        new SpyglassJob.ByQuery(),
        new SpyglassJob.ByQuery(),
        BasicTypeInfo.STRING_TYPE_INFO);
  }

  /**
   * What one filter subtask sends its combiners for the query {@code id} ({@code bql}) and these
   * records (JSON, at offsets 1, 2, ... of partition 0), each handed on by a tick of the wall
   * clock: the query's {@code START} and {@code PARTIAL}s, in order.
   */
  @SuppressWarnings("try") // the harness's close() may throw InterruptedException
  static List<FilterMessage> filtered(String id, String bql, String... records) throws Exception {
    List<FilterMessage> out = new ArrayList<>();
    try (OneInputStreamOperatorTestHarness<RecordBatch, FilterMessage> f =
        new OneInputStreamOperatorTestHarness<>(new FilterOperator(WALL, List.of()))) {
      f.open();
      byte[] query = ControlMessage.query(id, bql, 0, "r", "i").toJson();
      f.processElement(new StreamRecord<>(RecordBatch.query(query, 0, 0)));
      long offset = 1;
      for (String r : records) {
        byte[] json = r.getBytes(StandardCharsets.UTF_8);
        f.processElement(new StreamRecord<>(RecordBatch.one(json, 0, offset++, 1, 1)));
        f.setProcessingTime(f.getProcessingTime() + 2 * WALL.tickMs()); // a tick hands it on
      }
      for (Object o : f.getOutput()) {
        if (o instanceof StreamRecord<?> r && r.getValue() instanceof FilterMessage m) {
          if (m.kind == FilterMessage.START || m.kind == FilterMessage.PARTIAL) {
            out.add(m);
          }
        }
      }
    }
    return out;
  }

  /** Moves both of the combiner's inputs' watermarks to {@code time}. */
  static void watermark(
      KeyedTwoInputStreamOperatorTestHarness<String, FilterMessage, FilterMessage, Outgoing> h,
      long time)
      throws Exception {
    h.processWatermark1(new Watermark(time));
    h.processWatermark2(new Watermark(time));
  }

  /** The {@code RESULT} replies the combiner has sent so far, in order. */
  static List<Reply> results(
      KeyedTwoInputStreamOperatorTestHarness<String, FilterMessage, FilterMessage, Outgoing> h) {
    List<Reply> out = new ArrayList<>();
    for (Object o : h.getOutput()) {
      if (o instanceof StreamRecord<?> r && r.getValue() instanceof Outgoing m) {
        Reply reply = Reply.decode(m.value);
        if (reply.kind() == Reply.Kind.RESULT) {
          out.add(reply);
        }
      }
    }
    return out;
  }
}
