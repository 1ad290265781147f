package io.spyglass.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spyglass.core.partial.PartialFormatException;
import io.spyglass.flink.client.ControlMessage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * A running query's message in the filter's checkpoints and savepoints (broadcast state {@code
 * spyglass-queries}) against golden files: {@code state/filter-queries-v2.hex}, the message packed
 * as this job keeps it ({@link QueryMessages}), written byte for byte; {@code
 * state/filter-queries-v1.hex}, the same message as its JSON, as the jobs before kept it. Both are
 * restored: the query runs again and finds its record. {@code -Dspyglass.regenerateGolden=true}
 * writes the packed file again.
 */
@SuppressWarnings("try") // the harness's close() may throw InterruptedException
class FilterStateFormatTest {
  static final String GOLDEN = "filter-queries-v2.hex";

  /** Written by the jobs that kept the messages as JSON. */
  static final String V1 = "filter-queries-v1.hex";

  private static final OperatorSettings WALL =
      new OperatorSettings(JobOptions.Clock.WALL, 100, 64, 10, 100, 1_000, null, null, false);

  private static final String ID = "q";

  @Test
  void theMessageIsPackedAsTheGoldenFileHoldsIt() throws Exception {
    byte[] json = CombinerStateFormatTest.bytes(V1);
    assertThat(ControlMessage.parse(json).queryId()).isEqualTo(ID);
    byte[] packed = QueryMessages.pack(json);
    if (Boolean.getBoolean("spyglass.regenerateGolden")) {
      Files.writeString(
          Path.of("src", "test", "resources", "state", GOLDEN),
          CombinerStateFormatTest.hex(packed) + "\n",
          StandardCharsets.US_ASCII);
    }
    assertThat(packed[0]).isEqualTo(QueryMessages.PACKED);
    assertThat(packed.length).isLessThan(json.length / 2);
    assertThat(CombinerStateFormatTest.hex(packed))
        .as("the packed messages changed: give them a new first byte, and a golden file")
        .isEqualTo(CombinerStateFormatTest.golden(GOLDEN));
    assertThat(QueryMessages.unpack(packed)).isEqualTo(json);
  }

  @Test
  void aPackedMessageCutShortIsRefusedSayingSo() throws Exception {
    byte[] packed = CombinerStateFormatTest.bytes(GOLDEN);
    byte[] cut = Arrays.copyOf(packed, packed.length / 2);
    assertThatThrownBy(() -> QueryMessages.unpack(cut))
        .isInstanceOf(PartialFormatException.class)
        .hasMessageContaining("stored query message");
  }

  @Test
  void bothFormatsAreRestoredAndTheQueryFindsItsRecord() throws Exception {
    for (String file : List.of(GOLDEN, V1)) {
      OperatorSubtaskState state = written(Map.of(ID, CombinerStateFormatTest.bytes(file)));
      try (OneInputStreamOperatorTestHarness<RecordBatch, FilterMessage> h = filter()) {
        h.initializeState(state);
        h.open();
        byte[] json = "{\"k\":\"x\"}".getBytes(StandardCharsets.UTF_8);
        h.processElement(new StreamRecord<>(RecordBatch.one(json, 0, 1, 1, 1)));
        h.setProcessingTime(h.getProcessingTime() + 2 * WALL.tickMs()); // a tick hands it on
        assertThat(kinds(h)).as(file).contains(FilterMessage.PARTIAL);
        // and it keeps the query packed from now on
        OperatorSubtaskState again = h.snapshot(1, 1);
        try (OneInputStreamOperatorTestHarness<RecordBatch, FilterMessage> h2 = filter()) {
          h2.initializeState(again);
          h2.open();
          h2.processElement(new StreamRecord<>(RecordBatch.one(json, 0, 2, 2, 2)));
          h2.setProcessingTime(h2.getProcessingTime() + 2 * WALL.tickMs());
          assertThat(kinds(h2)).as(file + ", again").contains(FilterMessage.PARTIAL);
        }
      }
    }
  }

  /** A checkpoint of a filter subtask of an earlier job whose broadcast state held these values. */
  private static OperatorSubtaskState written(Map<String, byte[]> values) throws Exception {
    try (OneInputStreamOperatorTestHarness<RecordBatch, FilterMessage> h =
        new OneInputStreamOperatorTestHarness<>(new Writer(new HashMap<>(values)))) {
      h.open();
      return h.snapshot(1, 1);
    }
  }

  /** Writes the filter's broadcast state of queries as given, and nothing else. */
  private static final class Writer extends AbstractStreamOperator<FilterMessage>
      implements OneInputStreamOperator<RecordBatch, FilterMessage> {
    private static final long serialVersionUID = 1L;
    private final HashMap<String, byte[]> values;

    Writer(HashMap<String, byte[]> values) {
      this.values = values;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
      super.initializeState(context);
      getOperatorStateBackend().getBroadcastState(FilterQueries.QUERIES).putAll(values);
    }

    @Override
    public void processElement(StreamRecord<RecordBatch> element) {}
  }

  private static OneInputStreamOperatorTestHarness<RecordBatch, FilterMessage> filter()
      throws Exception {
    return new OneInputStreamOperatorTestHarness<>(new FilterOperator(WALL, List.of()));
  }

  private static List<Byte> kinds(OneInputStreamOperatorTestHarness<RecordBatch, FilterMessage> h) {
    return h.getOutput().stream()
        .filter(o -> o instanceof StreamRecord<?>)
        .map(o -> ((StreamRecord<?>) o).getValue())
        .filter(v -> v instanceof FilterMessage)
        .map(v -> ((FilterMessage) v).kind)
        .toList();
  }
}
