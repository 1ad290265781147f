package io.spyglass.flink;

import java.io.IOException;
import java.lang.reflect.Type;
import java.util.Map;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * A {@link RecordBatch} on its way from the records' source to the filter: its fields written one
 * after another, without the reflection and the per-field null marks of Flink's POJO serializer
 * (every record of the Kafka source is a batch, so this runs once per record).
 */
final class RecordBatchSerializer extends TypeSerializerSingleton<RecordBatch> {
  private static final long serialVersionUID = 1L;

  static final RecordBatchSerializer INSTANCE = new RecordBatchSerializer();

  private static final int DATA = 1;
  private static final int ENDS = 2;
  private static final int POSITIONS = 4;
  private static final int POSITIONED = 8;
  private static final int SOURCE_BAD = 16;
  private static final int MARK_TICK = 32;
  private static final int QUERY = 64;

  @Override
  public boolean isImmutableType() {
    return false;
  }

  @Override
  public RecordBatch createInstance() {
    return new RecordBatch();
  }

  @Override
  public RecordBatch copy(RecordBatch from) {
    RecordBatch b = new RecordBatch();
    if (from.starts != null) {
      // the records alone, not the buffer they were fetched in
      b.data = from.compactData();
      b.ends = from.compactEnds();
    } else {
      b.data = from.data == null ? null : from.data.clone();
      b.ends = from.ends == null ? null : from.ends.clone();
    }
    b.count = from.count;
    b.positions = from.positions == null ? null : from.positions.clone();
    b.positioned = from.positioned;
    b.sourceBad = from.sourceBad == null ? null : from.sourceBad.clone();
    b.readTimeMs = from.readTimeMs;
    b.markTimeMs = from.markTimeMs;
    b.markSync = from.markSync;
    b.markPartitions = from.markPartitions;
    b.markTick = from.markTick;
    b.query = from.query == null ? null : from.query.clone();
    return b;
  }

  @Override
  public RecordBatch copy(RecordBatch from, RecordBatch reuse) {
    return copy(from);
  }

  @Override
  public int getLength() {
    return -1;
  }

  @Override
  public void serialize(RecordBatch b, DataOutputView out) throws IOException {
    // records referenced where they were fetched travel back to back, as they always have
    byte[] data = b.compactData();
    int[] ends = b.compactEnds();
    int flags =
        (b.data != null ? DATA : 0)
            | (b.ends != null ? ENDS : 0)
            | (b.positions != null ? POSITIONS : 0)
            | (b.positioned ? POSITIONED : 0)
            | (b.sourceBad != null ? SOURCE_BAD : 0)
            | (b.markTick ? MARK_TICK : 0)
            | (b.query != null ? QUERY : 0);
    out.writeByte(flags);
    out.writeInt(b.count);
    out.writeLong(b.readTimeMs);
    out.writeLong(b.markTimeMs);
    out.writeLong(b.markSync);
    out.writeInt(b.markPartitions);
    if (data != null) {
      out.writeInt(data.length);
      out.write(data);
    }
    if (ends != null) {
      out.writeInt(ends.length);
      for (int e : ends) {
        out.writeInt(e);
      }
    }
    if (b.positions != null) {
      out.writeInt(b.positions.length);
      for (long p : b.positions) {
        out.writeLong(p);
      }
    }
    if (b.sourceBad != null) {
      out.writeInt(b.sourceBad.length);
      out.write(b.sourceBad);
    }
    if (b.query != null) {
      out.writeInt(b.query.length);
      out.write(b.query);
    }
  }

  @Override
  public RecordBatch deserialize(DataInputView in) throws IOException {
    RecordBatch b = new RecordBatch();
    int flags = in.readUnsignedByte();
    b.count = in.readInt();
    b.readTimeMs = in.readLong();
    b.markTimeMs = in.readLong();
    b.markSync = in.readLong();
    b.markPartitions = in.readInt();
    b.positioned = (flags & POSITIONED) != 0;
    b.markTick = (flags & MARK_TICK) != 0;
    if ((flags & DATA) != 0) {
      b.data = new byte[in.readInt()];
      in.readFully(b.data);
    }
    if ((flags & ENDS) != 0) {
      b.ends = new int[in.readInt()];
      for (int i = 0; i < b.ends.length; i++) {
        b.ends[i] = in.readInt();
      }
    }
    if ((flags & POSITIONS) != 0) {
      b.positions = new long[in.readInt()];
      for (int i = 0; i < b.positions.length; i++) {
        b.positions[i] = in.readLong();
      }
    }
    if ((flags & SOURCE_BAD) != 0) {
      b.sourceBad = new byte[in.readInt()];
      in.readFully(b.sourceBad);
    }
    if ((flags & QUERY) != 0) {
      b.query = new byte[in.readInt()];
      in.readFully(b.query);
    }
    return b;
  }

  @Override
  public RecordBatch deserialize(RecordBatch reuse, DataInputView in) throws IOException {
    return deserialize(in);
  }

  @Override
  public void copy(DataInputView in, DataOutputView out) throws IOException {
    serialize(deserialize(in), out);
  }

  @Override
  public TypeSerializerSnapshot<RecordBatch> snapshotConfiguration() {
    return new Snapshot();
  }

  /** The serializer's snapshot: it has no configuration. */
  public static final class Snapshot extends SimpleTypeSerializerSnapshot<RecordBatch> {
    public Snapshot() {
      super(() -> INSTANCE);
    }
  }

  /** {@link RecordBatch}'s type information, found by Flink through its annotation. */
  public static final class Factory extends TypeInfoFactory<RecordBatch> {
    @Override
    public TypeInformation<RecordBatch> createTypeInfo(
        Type t, Map<String, TypeInformation<?>> genericParameters) {
      return new Info();
    }
  }

  /** Type information that gives this serializer. */
  static final class Info extends TypeInformation<RecordBatch> {
    private static final long serialVersionUID = 1L;

    @Override
    public boolean isBasicType() {
      return false;
    }

    @Override
    public boolean isTupleType() {
      return false;
    }

    @Override
    public int getArity() {
      return 1;
    }

    @Override
    public int getTotalFields() {
      return 1;
    }

    @Override
    public Class<RecordBatch> getTypeClass() {
      return RecordBatch.class;
    }

    @Override
    public boolean isKeyType() {
      return false;
    }

    @Override
    public TypeSerializer<RecordBatch> createSerializer(SerializerConfig config) {
      return INSTANCE;
    }

    @Override
    public String toString() {
      return "RecordBatch";
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Info;
    }

    @Override
    public int hashCode() {
      return Info.class.hashCode();
    }

    @Override
    public boolean canEqual(Object o) {
      return o instanceof Info;
    }
  }
}
