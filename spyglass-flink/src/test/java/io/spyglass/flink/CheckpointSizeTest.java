package io.spyglass.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.plan.QueryLimits;
import io.spyglass.flink.client.ControlMessage;
import java.util.List;
import org.apache.flink.api.common.typeinfo.BasicTypeInfo;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * What a checkpoint writes per running query. Every checkpoint writes the whole state again (the
 * heap state backend), each filter subtask its copy of every query's message and each combiner
 * subtask every query's state: a query's message, about 590 bytes of JSON with its limits, was most
 * of both (640 bytes a query in the filter's checkpoint, 768 in the combiner's). Kept packed, a
 * needle query costs a checkpoint well under half of that.
 */
@SuppressWarnings("try") // the harness's close() may throw InterruptedException
class CheckpointSizeTest {
  private static final OperatorSettings WALL =
      new OperatorSettings(JobOptions.Clock.WALL, 100, 64, 10, 100, 1_000, null, null, false);

  private static final int QUERIES = 100;

  /** A needle query as the service sends it: with its limits, a reply topic and an instance. */
  static byte[] needle(int i) {
    return ControlMessage.query(
            String.format("q-%08d-1c4b-4f7e-9a55-0c4ab7d3b1c6", i),
            "SELECT * FROM STREAM(3600000, TIME) WHERE id = 'needle-" + i + "' LIMIT 1",
            1_795_783_383_498L + i,
            "spyglass-replies-5f0b9c2e",
            "a3c1e2f4-77d5-4c0e-8b1a-2d9e6f1c3b70")
        .withLimits(QueryLimits.DEFAULTS)
        .toJson();
  }

  @Test
  void aNeedleQueryCostsTheFilterAndTheCombinerCheckpointsLessThanItsMessage() throws Exception {
    assertThat(needle(1).length).isGreaterThan(550);
    try (OneInputStreamOperatorTestHarness<RecordBatch, FilterMessage> f =
        new OneInputStreamOperatorTestHarness<>(new FilterOperator(WALL, List.of()))) {
      f.open();
      for (int i = 0; i < QUERIES; i++) {
        f.processElement(new StreamRecord<>(RecordBatch.query(needle(i), 0, i)));
      }
      OperatorSubtaskState filter = f.snapshot(1, 1);
      List<FilterMessage> starts =
          f.getOutput().stream()
              .map(o -> ((StreamRecord<?>) o).getValue())
              .filter(v -> v instanceof FilterMessage m && m.kind == FilterMessage.START)
              .map(v -> (FilterMessage) v)
              .toList();
      assertThat(starts).hasSize(QUERIES);
      System.out.printf(
          "checkpoint of %d needle queries: filter %,d bytes%n", QUERIES, filter.getStateSize());
      assertThat(filter.getStateSize() / QUERIES)
          .as("the filter's checkpoint per query (bytes)")
          .isLessThan(250);
      try (KeyedTwoInputStreamOperatorTestHarness<String, FilterMessage, FilterMessage, Outgoing>
          c =
              new KeyedTwoInputStreamOperatorTestHarness<>(
                  new CombinerOperator(WALL),
                  new SpyglassJob.ByQuery(),
                  new SpyglassJob.ByQuery(),
                  BasicTypeInfo.STRING_TYPE_INFO)) {
        c.open();
        for (FilterMessage m : starts) {
          c.processElement1(new StreamRecord<>(m));
        }
        OperatorSubtaskState combiner = c.snapshot(1, 1);
        System.out.printf(
            "checkpoint of %d needle queries: combiner %,d bytes%n",
            QUERIES, combiner.getStateSize());
        assertThat(combiner.getStateSize() / QUERIES)
            .as("the combiner's checkpoint per query (bytes)")
            .isLessThan(400);
      }
    }
  }
}
