package io.spyglass.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.connector.kafka.source.enumerator.KafkaSourceEnumState;
import org.apache.flink.connector.kafka.source.enumerator.KafkaSourceEnumStateSerializer;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplit;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplitSerializer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The state of the job's Kafka input in checkpoints and savepoints: its splits and its enumerator's
 * state are in formats of their own (version 100), held here as golden files, and the state of the
 * records source of the versions before (Flink's Kafka source) is read: a savepoint of such a job
 * restores its records' positions.
 */
class InputStateFormatsTest {
  private static final String TOPIC = "events";

  @Test
  void splitsAreWrittenAsTheGoldenFilesHoldThem() throws Exception {
    InputSplit.Serializer s = new InputSplit.Serializer();
    assertThat(s.getVersion()).isEqualTo(101);
    InputSplit records = InputSplit.records(TOPIC, 3, 1_234_567L);
    InputSplit queries =
        InputSplit.queries("spyglass-queries", Map.of(0, 17L, 1, 0L), Map.of(0, 20L), 2, 4);
    assertThat(hex(s.serialize(records))).isEqualTo(golden("records-split-v101.hex"));
    assertThat(hex(s.serialize(queries))).isEqualTo(golden("queries-split-v101.hex"));
    InputSplit q101 = s.deserialize(101, bytes("queries-split-v101.hex"));
    assertThat(q101.offsets).isEqualTo(Map.of(0, 17L, 1, 0L));
    assertThat(q101.oneShotBelow).isEqualTo(Map.of(0, 20L));
    assertThat(q101.readers).isEqualTo(4);

    // version 100: no one-shot request is passed over
    InputSplit r = s.deserialize(100, bytes("records-split-v100.hex"));
    assertThat(r.isQueries()).isFalse();
    assertThat(r.splitId()).isEqualTo("events-3");
    assertThat(r.offset()).isEqualTo(1_234_567L);
    InputSplit q = s.deserialize(100, bytes("queries-split-v100.hex"));
    assertThat(q.isQueries()).isTrue();
    assertThat(q.splitId()).isEqualTo("queries@2");
    assertThat(q.offsets).isEqualTo(Map.of(0, 17L, 1, 0L));
    assertThat(q.oneShotBelow).isEmpty();
    assertThat(q.readers).isEqualTo(4);
  }

  @Test
  void theEnumeratorStateIsWrittenAsTheGoldenFileHoldsIt() throws Exception {
    InputEnumerator.StateSerializer s = new InputEnumerator.StateSerializer(TOPIC);
    assertThat(s.getVersion()).isEqualTo(101);
    InputEnumerator.State state =
        new InputEnumerator.State(
            Set.of(0, 1), Map.of(2, -2L), true, Map.of(0, 42L), Map.of(0, 40L));
    assertThat(hex(s.serialize(state))).isEqualTo(golden("enumerator-state-v101.hex"));
    assertThat(s.deserialize(101, bytes("enumerator-state-v101.hex"))).isEqualTo(state);
    // version 100: no one-shot request is passed over
    assertThat(s.deserialize(100, bytes("enumerator-state-v100.hex")))
        .isEqualTo(new InputEnumerator.State(Set.of(0, 1), Map.of(2, -2L), true, Map.of(0, 42L)));
    // without a floor yet
    InputEnumerator.State none = new InputEnumerator.State(Set.of(), Map.of(), false, null);
    assertThat(s.deserialize(101, s.serialize(none))).isEqualTo(none);
  }

  @Test
  void theFormerRecordsSourcesSplitsAndStateAreRead() throws Exception {
    KafkaPartitionSplitSerializer kafkaSplits = new KafkaPartitionSplitSerializer();
    KafkaPartitionSplit started = new KafkaPartitionSplit(new TopicPartition(TOPIC, 1), 99L);
    KafkaPartitionSplit notYet =
        new KafkaPartitionSplit(new TopicPartition(TOPIC, 0), KafkaPartitionSplit.EARLIEST_OFFSET);
    InputSplit.Serializer s = new InputSplit.Serializer();
    InputSplit a = s.deserialize(kafkaSplits.getVersion(), kafkaSplits.serialize(started));
    assertThat(a.splitId()).isEqualTo("events-1");
    assertThat(a.offset()).isEqualTo(99L);
    InputSplit b = s.deserialize(kafkaSplits.getVersion(), kafkaSplits.serialize(notYet));
    assertThat(b.offset()).isEqualTo(InputSplit.EARLIEST);

    KafkaSourceEnumStateSerializer kafkaState = new KafkaSourceEnumStateSerializer();
    KafkaSourceEnumState old = new KafkaSourceEnumState(List.of(started), List.of(notYet), true);
    InputEnumerator.State state =
        new InputEnumerator.StateSerializer(TOPIC)
            .deserialize(kafkaState.getVersion(), kafkaState.serialize(old));
    // the query topic's place was the former query source's: the job's committed offsets
    assertThat(state)
        .isEqualTo(
            new InputEnumerator.State(Set.of(1), Map.of(0, InputSplit.EARLIEST), true, null));
  }

  @Test
  void aNewerFormatIsRefusedWithWhatToDo() {
    assertThatThrownBy(() -> new InputSplit.Serializer().deserialize(102, new byte[] {0}))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("newer than this job reads");
    assertThatThrownBy(
            () -> new InputEnumerator.StateSerializer(TOPIC).deserialize(102, new byte[] {0}))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("restore it with the job's version that wrote it");
  }

  private static String hex(byte[] b) {
    return HexFormat.of().formatHex(b);
  }

  private static byte[] bytes(String name) throws IOException {
    return HexFormat.of().parseHex(golden(name));
  }

  private static String golden(String name) throws IOException {
    try (InputStream in = InputStateFormatsTest.class.getResourceAsStream("/state/" + name)) {
      assertThat(in).as("golden file state/" + name).isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.US_ASCII).trim();
    }
  }
}
