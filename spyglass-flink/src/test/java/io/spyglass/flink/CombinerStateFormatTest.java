package io.spyglass.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spyglass.core.partial.PartialFormatException;
import io.spyglass.core.result.ResultJson;
import io.spyglass.flink.client.ControlMessage;
import io.spyglass.flink.client.Reply;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * A query's state in the combiner's checkpoints and savepoints (keyed state {@code spyglass-query},
 * version {@value CombinerOperator#STATE_VERSION}) against golden files: {@code
 * state/combiner-state-v3.hex}, a grouped count that two records reached through one filter
 * subtask, its combiner's snapshot ({@code SGQC}) inside; {@code state/combiner-state-v3-raw.hex},
 * a {@code SELECT *} holding two records as their JSON (partials of format 2). This Spyglass writes
 * them byte for byte (the query's message packed with the JDK's Deflate), restores them (the query
 * goes on and ends with what they held), restores the states of versions 1 and 2 that earlier jobs
 * wrote (the message as JSON), and refuses a state of another version, saying what to do. {@code
 * -Dspyglass.regenerateGolden=true} writes the files of this version again.
 */
@SuppressWarnings("try") // the harness's close() may throw InterruptedException
class CombinerStateFormatTest {
  static final String GOLDEN = "combiner-state-v3.hex";

  static final String RAW_GOLDEN = "combiner-state-v3-raw.hex";

  /** Written by the jobs of state version 2 (the message as JSON): as {@link #GOLDEN}. */
  static final String V2 = "combiner-state-v2.hex";

  /** Written by the jobs of state version 2: as {@link #RAW_GOLDEN}. */
  static final String V2_RAW = "combiner-state-v2-raw.hex";

  /** Written by the jobs of state version 1: the grouped count of {@link #GOLDEN}. */
  static final String V1 = "combiner-state-v1.hex";

  private static final String GROUPED =
      "SELECT k, COUNT(*) AS n FROM STREAM(60000, TIME) GROUP BY k";

  private static final String RAW = "SELECT * FROM STREAM(60000, TIME) LIMIT 10";

  private static final String ID = "q";

  @Test
  void theStateIsWrittenAsTheGoldenFileHoldsIt() throws Exception {
    byte[] written = written(GROUPED, "{\"k\":\"x\"}", "{\"k\":\"y\"}", "{\"k\":\"x\"}");
    regenerate(GOLDEN, written);
    assertThat(written[0]).isEqualTo((byte) CombinerOperator.STATE_VERSION);
    assertThat(hex(written))
        .as("the combiner's state changed: give it a new version, and a golden file of its own")
        .isEqualTo(golden(GOLDEN));
  }

  @Test
  void theRawStateIsWrittenAsTheGoldenFileHoldsIt() throws Exception {
    byte[] written = written(RAW, RAW_RECORDS);
    regenerate(RAW_GOLDEN, written);
    assertThat(hex(written))
        .as("the combiner's state changed: give it a new version, and a golden file of its own")
        .isEqualTo(golden(RAW_GOLDEN));
    assertThat(new String(written, StandardCharsets.UTF_8))
        .as("the records as their JSON, as read")
        .contains(RAW_RECORDS[0], RAW_RECORDS[1]);
  }

  /** Two records of a SELECT *: one as the job writes records, one with spaces and an escape. */
  private static final String[] RAW_RECORDS = {
    "{\"k\":\"x\",\"n\":1.5,\"o\":{\"a\":[1,null,true]}}", "{\"k\" : \"\\u0079\", \"n\":1e3}"
  };

  @Test
  void theGoldenStateIsRestoredAndTheQueryGoesOn() throws Exception {
    for (String file : List.of(GOLDEN, V2, V1)) {
      try (KeyedTwoInputStreamOperatorTestHarness<String, FilterMessage, FilterMessage, Outgoing>
          h = restored(bytes(file))) {
        // the one filter subtask finishes the query: it ends with the counts the state held
        h.processElement1(
            new StreamRecord<>(FilterMessage.of(FilterMessage.FINISH, ID, 0, 1, null)));
        List<Reply> replies = replies(h);
        assertThat(replies)
            .extracting(Reply::kind)
            .containsExactly(Reply.Kind.RESULT, Reply.Kind.ENDED);
        Reply result = replies.get(0);
        assertThat(result.result().meta().isFinal()).isTrue();
        assertThat(result.result().records())
            .as(file)
            .containsExactlyInAnyOrder(Map.of("k", "x", "n", 2L), Map.of("k", "y", "n", 1L));
      }
    }
  }

  @Test
  void theRawGoldenStateIsRestoredAndItsRecordsWrittenAsTheyWereRead() throws Exception {
    for (String file : List.of(RAW_GOLDEN, V2_RAW)) {
      try (KeyedTwoInputStreamOperatorTestHarness<String, FilterMessage, FilterMessage, Outgoing>
          h = restored(bytes(file))) {
        h.processElement1(
            new StreamRecord<>(FilterMessage.of(FilterMessage.FINISH, ID, 0, 1, null)));
        List<Reply> replies = replies(h);
        assertThat(replies)
            .extracting(Reply::kind)
            .containsExactly(Reply.Kind.RESULT, Reply.Kind.ENDED);
        String json = ResultJson.write(replies.get(0).result());
        assertThat(json)
            .as(file)
            .startsWith(
                "{\"records\":[{\"k\":\"x\",\"n\":1.5,\"o\":{\"a\":[1,null,true]}},"
                    + "{\"k\":\"y\",\"n\":1000.0}],");
      }
    }
  }

  @Test
  void theGoldenStateIsWrittenBackAsItWasRead() throws Exception {
    for (String file : List.of(GOLDEN, RAW_GOLDEN, V2, V2_RAW, V1)) {
      boolean raw = file.equals(RAW_GOLDEN) || file.equals(V2_RAW);
      byte[] again;
      try (KeyedTwoInputStreamOperatorTestHarness<String, FilterMessage, FilterMessage, Outgoing>
          h = restored(bytes(file))) {
        // a start the query has had already changes nothing, but has it written again
        h.processElement1(new StreamRecord<>(start(raw ? RAW : GROUPED)));
        h.snapshot(1, 1);
        again = state(h).value();
        assertThat(replies(h)).as("nothing new to say").isEmpty();
      }
      // a state of an earlier version is written in this version
      assertThat(hex(again)).as(file).isEqualTo(golden(raw ? RAW_GOLDEN : GOLDEN));
    }
  }

  @Test
  void aStateOfAnotherVersionIsRefusedWithWhatToDo() throws Exception {
    byte[] newer = bytes(GOLDEN);
    newer[0] = (byte) (CombinerOperator.STATE_VERSION + 1);
    try (KeyedTwoInputStreamOperatorTestHarness<String, FilterMessage, FilterMessage, Outgoing> h =
        restored(newer)) {
      assertThatThrownBy(() -> h.processElement1(new StreamRecord<>(start(GROUPED))))
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
  private static FilterMessage start(String bql) {
    return FilterMessage.of(FilterMessage.START, ID, 0, 1, query(bql));
  }

  private static byte[] query(String bql) {
    return ControlMessage.query(ID, bql, 0, "r", "i").toJson();
  }

  /** The query's state after one filter subtask sent it these records, one by one. */
  private static byte[] written(String bql, String... records) throws Exception {
    try (KeyedTwoInputStreamOperatorTestHarness<String, FilterMessage, FilterMessage, Outgoing> h =
        combiner()) {
      h.open();
      for (FilterMessage m : filtered(bql, records)) {
        h.processElement1(new StreamRecord<>(m));
      }
      h.snapshot(1, 1); // writes the queries that changed
      return state(h).value();
    }
  }

  /** With {@code -Dspyglass.regenerateGolden=true}: writes the golden file of this version. */
  private static void regenerate(String name, byte[] bytes) throws IOException {
    if (Boolean.getBoolean("spyglass.regenerateGolden")) {
      Files.writeString(
          Path.of("src", "test", "resources", "state", name),
          hex(bytes) + "\n",
          StandardCharsets.US_ASCII);
    }
  }

  /** What one filter subtask sends for the query and these records, one by one. */
  private static List<FilterMessage> filtered(String bql, String... records) throws Exception {
    List<FilterMessage> out = CombinerHarness.filtered(ID, bql, records);
    assertThat(out).extracting(m -> m.kind).contains(FilterMessage.START, FilterMessage.PARTIAL);
    return out;
  }

  private static KeyedTwoInputStreamOperatorTestHarness<
          String, FilterMessage, FilterMessage, Outgoing>
      combiner() throws Exception {
    return CombinerHarness.combiner();
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
