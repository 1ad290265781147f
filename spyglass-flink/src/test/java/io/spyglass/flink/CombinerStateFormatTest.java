package io.spyglass.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spyglass.core.partial.PartialFormatException;
import io.spyglass.flink.client.ControlMessage;
import io.spyglass.flink.client.Reply;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.typeinfo.BasicTypeInfo;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * A query's state in the combiner's checkpoints and savepoints (keyed state {@code spyglass-query},
 * version {@value CombinerOperator#STATE_VERSION}) against a golden file, {@code
 * state/combiner-state-v1.hex}: a grouped count that two records reached through one filter
 * subtask, its combiner's snapshot ({@code SGQC}) inside. This Spyglass writes it byte for byte,
 * restores it (the query goes on and ends with the counts it held), and refuses a state of another
 * version, saying what to do.
 */
@SuppressWarnings("try") // the harness's close() may throw InterruptedException
class CombinerStateFormatTest {
  static final String GOLDEN = "combiner-state-v1.hex";

  private static final OperatorSettings WALL =
      new OperatorSettings(JobOptions.Clock.WALL, 100, 64, 10, 100, 1_000, null, null, false);

  private static final String ID = "q";

  @Test
  void theStateIsWrittenAsTheGoldenFileHoldsIt() throws Exception {
    byte[] written;
    try (KeyedTwoInputStreamOperatorTestHarness<String, FilterMessage, FilterMessage, Outgoing> h =
        combiner()) {
      h.open();
      for (FilterMessage m : filtered("x", "y", "x")) {
        h.processElement1(new StreamRecord<>(m));
      }
      h.snapshot(1, 1); // writes the queries that changed
      written = state(h).value();
    }
    assertThat(written[0]).isEqualTo((byte) CombinerOperator.STATE_VERSION);
    assertThat(hex(written))
        .as("the combiner's state changed: give it a new version, and a golden file of its own")
        .isEqualTo(golden(GOLDEN));
  }

  @Test
  void theGoldenStateIsRestoredAndTheQueryGoesOn() throws Exception {
    try (KeyedTwoInputStreamOperatorTestHarness<String, FilterMessage, FilterMessage, Outgoing> h =
        restored(bytes(GOLDEN))) {
      // the one filter subtask finishes the query: it ends with the counts the state held
      h.processElement1(new StreamRecord<>(FilterMessage.of(FilterMessage.FINISH, ID, 0, 1, null)));
      List<Reply> replies = replies(h);
      assertThat(replies)
          .extracting(Reply::kind)
          .containsExactly(Reply.Kind.RESULT, Reply.Kind.ENDED);
      Reply result = replies.get(0);
      assertThat(result.result().meta().isFinal()).isTrue();
      assertThat(result.result().records())
          .containsExactlyInAnyOrder(Map.of("k", "x", "n", 2L), Map.of("k", "y", "n", 1L));
    }
  }

  @Test
  void theGoldenStateIsWrittenBackAsItWasRead() throws Exception {
    byte[] again;
    try (KeyedTwoInputStreamOperatorTestHarness<String, FilterMessage, FilterMessage, Outgoing> h =
        restored(bytes(GOLDEN))) {
      // a start the query has had already changes nothing, but has it written again
      h.processElement1(new StreamRecord<>(start()));
      h.snapshot(1, 1);
      again = state(h).value();
      assertThat(replies(h)).as("nothing new to say").isEmpty();
    }
    assertThat(hex(again)).isEqualTo(golden(GOLDEN));
  }

  @Test
  void aStateOfAnotherVersionIsRefusedWithWhatToDo() throws Exception {
    byte[] newer = bytes(GOLDEN);
    newer[0] = (byte) (CombinerOperator.STATE_VERSION + 1);
    try (KeyedTwoInputStreamOperatorTestHarness<String, FilterMessage, FilterMessage, Outgoing> h =
        restored(newer)) {
      assertThatThrownBy(() -> h.processElement1(new StreamRecord<>(start())))
          .isInstanceOf(PartialFormatException.class)
          .hasMessageContaining("of version " + (CombinerOperator.STATE_VERSION + 1))
          .hasMessageContaining("restore the checkpoint or savepoint with the version of the job");
    }
  }

  /** A combiner, open, whose state for the query holds {@code bytes}. */
  private static KeyedTwoInputStreamOperatorTestHarness<
          String, FilterMessage, FilterMessage, Outgoing>
      restored(byte[] bytes) throws Exception {
    KeyedTwoInputStreamOperatorTestHarness<String, FilterMessage, FilterMessage, Outgoing> h =
        combiner();
    h.open();
    state(h).update(bytes);
    return h;
  }

  /** The query's state in the combiner's keyed state backend. */
  private static ValueState<byte[]> state(
      KeyedTwoInputStreamOperatorTestHarness<String, FilterMessage, FilterMessage, Outgoing> h)
      throws Exception {
    KeyedStateBackend<String> backend = h.getOperator().getKeyedStateBackend();
    backend.setCurrentKey(ID);
    return backend.getPartitionedState(
        VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, CombinerOperator.STATE);
  }

  private static List<Reply> replies(
      KeyedTwoInputStreamOperatorTestHarness<String, FilterMessage, FilterMessage, Outgoing> h) {
    List<Reply> out = new ArrayList<>();
    for (Object o : h.getOutput()) {
      if (o instanceof StreamRecord<?> r && r.getValue() instanceof Outgoing m) {
        out.add(Reply.decode(m.value));
      }
    }
    return out;
  }

  /** The filter subtask's start of the query (its only subtask). */
  private static FilterMessage start() {
    return FilterMessage.of(FilterMessage.START, ID, 0, 1, query());
  }

  private static byte[] query() {
    return ControlMessage.query(
            ID, "SELECT k, COUNT(*) AS n FROM STREAM(60000, TIME) GROUP BY k", 0, "r", "i")
        .toJson();
  }

  /** What one filter subtask sends for the query and a record of each key, one by one. */
  private static List<FilterMessage> filtered(String... keys) throws Exception {
    List<FilterMessage> out = new ArrayList<>();
    try (OneInputStreamOperatorTestHarness<RecordBatch, FilterMessage> f =
        new OneInputStreamOperatorTestHarness<>(new FilterOperator(WALL, List.of()))) {
      f.open();
      f.processElement(new StreamRecord<>(RecordBatch.query(query(), 0, 0)));
      long offset = 1;
      for (String k : keys) {
        byte[] json = ("{\"k\":\"" + k + "\"}").getBytes(StandardCharsets.UTF_8);
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
    assertThat(out).extracting(m -> m.kind).contains(FilterMessage.START, FilterMessage.PARTIAL);
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

  static String hex(byte[] b) {
    return HexFormat.of().formatHex(b);
  }

  static byte[] bytes(String name) throws IOException {
    return HexFormat.of().parseHex(golden(name));
  }

  static String golden(String name) throws IOException {
    try (InputStream in = CombinerStateFormatTest.class.getResourceAsStream("/state/" + name)) {
      assertThat(in).as("golden file state/" + name).isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.US_ASCII).trim();
    }
  }
}
