package io.spyglass.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.flink.client.Mark;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/** Batches and marks come out of the serializer as they went in. */
class RecordBatchSerializerTest {
  private static final TypeSerializer<RecordBatch> SERIALIZER =
      TypeInformation.of(RecordBatch.class).createSerializer(new SerializerConfigImpl());

  private static RecordBatch roundTrip(RecordBatch b) throws Exception {
    DataOutputSerializer out = new DataOutputSerializer(64);
    SERIALIZER.serialize(b, out);
    DataOutputSerializer copied = new DataOutputSerializer(64);
    SERIALIZER.copy(new DataInputDeserializer(out.getCopyOfBuffer()), copied);
    assertThat(copied.getCopyOfBuffer()).isEqualTo(out.getCopyOfBuffer());
    return SERIALIZER.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
  }

  @Test
  void theTypeOfRecordBatchIsItsOwnSerializer() {
    assertThat(SERIALIZER).isInstanceOf(RecordBatchSerializer.class);
  }

  @Test
  void everyFieldSurvives() throws Exception {
    byte[] json = "{\"a\":1}{\"b\":2}\n".getBytes(StandardCharsets.UTF_8);
    RecordBatch b = new RecordBatch();
    b.data = json;
    b.ends = new int[] {7, 14};
    b.count = 2;
    b.positions = new long[] {0, 17, 1_700_000_000_000L, 1, 18, -1};
    b.positioned = true;
    b.sourceBad = new byte[] {1, 2, 3};
    b.readTimeMs = 42;
    RecordBatch one = RecordBatch.one(json, 3, 99, 1_000, 7);
    RecordBatch mark = RecordBatch.mark(Mark.tick(12, 4));
    for (RecordBatch in : List.of(b, one, mark, new RecordBatch())) {
      assertThat(roundTrip(in)).usingRecursiveComparison().isEqualTo(in);
      assertThat(SERIALIZER.copy(in)).usingRecursiveComparison().isEqualTo(in);
    }
  }

  @Test
  void recordsReferencedWhereTheyWereFetchedTravelBackToBack() throws Exception {
    byte[] fetched = "..{\"a\":1}...{\"b\":2}.".getBytes(StandardCharsets.UTF_8);
    RecordBatch b = new RecordBatch();
    b.data = fetched;
    b.starts = new int[] {2, 12};
    b.ends = new int[] {9, 19};
    b.count = 2;
    b.positions = new long[] {0, 17, 5, 0, 18, 6};
    b.positioned = true;
    RecordBatch compact = new RecordBatch();
    compact.data = "{\"a\":1}{\"b\":2}".getBytes(StandardCharsets.UTF_8);
    compact.ends = new int[] {7, 14};
    compact.count = 2;
    compact.positions = b.positions;
    compact.positioned = true;
    assertThat(roundTrip(b)).usingRecursiveComparison().isEqualTo(compact);
    assertThat(SERIALIZER.copy(b)).usingRecursiveComparison().isEqualTo(compact);
    DataOutputSerializer referenced = new DataOutputSerializer(64);
    SERIALIZER.serialize(b, referenced);
    DataOutputSerializer backToBack = new DataOutputSerializer(64);
    SERIALIZER.serialize(compact, backToBack);
    assertThat(referenced.getCopyOfBuffer()).isEqualTo(backToBack.getCopyOfBuffer());
  }

  @Test
  void aQueryMessageSurvives() throws Exception {
    RecordBatch q =
        RecordBatch.query("{\"v\":1,\"type\":\"kill\"}".getBytes(StandardCharsets.UTF_8), 2, 41);
    RecordBatch back = roundTrip(q);
    assertThat(back).usingRecursiveComparison().isEqualTo(q);
    assertThat(back.isQuery()).isTrue();
    assertThat(back.isMark()).isFalse();
  }
}
