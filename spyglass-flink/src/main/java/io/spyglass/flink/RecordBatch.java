package io.spyglass.flink;

import io.spyglass.flink.client.Mark;
import org.apache.flink.api.common.typeinfo.TypeInfo;

/**
 * What the source hands the filter: one or more JSON records in one buffer, a {@link Mark}, or a
 * message of the query topic. The Kafka job's filter is chained to its source ({@link KafkaInput}):
 * batches pass as objects, in the source's thread. Where a batch crosses the network (records
 * spread over the filters, a local run over several subtasks) it is serialized by {@link
 * RecordBatchSerializer}.
 */
@TypeInfo(RecordBatchSerializer.Factory.class)
public class RecordBatch {
  /** The records' JSON bytes, one after another. */
  public byte[] data;

  /**
   * Where each record ends in {@link #data}; record i starts where record i-1 ends, unless {@link
   * #starts} says otherwise.
   */
  public int[] ends;

  /**
   * Where each record starts in {@link #data}, when the records are not back to back (the Kafka
   * source hands on the values where its consumer fetched them, with Kafka's record headers between
   * them); null when each starts where the one before ends. Batches that cross the network travel
   * compacted, without it.
   */
  public int[] starts;

  /** Records in the batch; 0 for a mark. */
  public int count;

  /**
   * Per record, its partition, offset and timestamp (three longs a record; -1 when unknown); for a
   * file, its line number as the offset. Null when the source has no positions.
   */
  public long[] positions;

  /** Whether {@link #positions} are Kafka's (and records get the {@code _kafka_*} fields). */
  public boolean positioned;

  /**
   * The source's own count of input it could not make records of (e.g. lines over the size limit),
   * as a {@link io.spyglass.flink.client.JobStatus} of its own, when it changed; else null.
   */
  public byte[] sourceBad;

  /** When the source read the batch, epoch ms. */
  public long readTimeMs;

  /** For a clock mark, its time; otherwise -1. */
  public long markTimeMs = -1;

  /** For a sync mark, its number; otherwise -1. */
  public long markSync = -1;

  /** For a sync mark, how many partitions carry it. */
  public int markPartitions;

  /** For a sync mark, whether it is also a tick of the clock. */
  public boolean markTick;

  /**
   * A message of the query topic (JSON), with its partition and offset in {@link #positions};
   * otherwise null.
   */
  public byte[] query;

  public RecordBatch() {}

  /** One record, as the Kafka source reads it. */
  public static RecordBatch one(
      byte[] json, int partition, long offset, long timestamp, long readTimeMs) {
    RecordBatch b = new RecordBatch();
    b.data = json;
    b.ends = new int[] {json.length};
    b.count = 1;
    b.positions = new long[] {partition, offset, timestamp};
    b.positioned = true;
    b.readTimeMs = readTimeMs;
    return b;
  }

  public static RecordBatch mark(Mark m) {
    RecordBatch b = new RecordBatch();
    b.markTimeMs = m.isClock() ? m.timeMs() : -1;
    b.markSync = m.sync();
    b.markPartitions = m.partitions();
    b.markTick = m.tick();
    return b;
  }

  /** A message of the query topic at {@code partition} and {@code offset}. */
  public static RecordBatch query(byte[] json, int partition, long offset) {
    RecordBatch b = new RecordBatch();
    b.query = json;
    b.positions = new long[] {partition, offset, -1};
    return b;
  }

  public boolean isQuery() {
    return query != null;
  }

  public boolean isMark() {
    return count == 0 && (markTimeMs >= 0 || markSync >= 0);
  }

  public int start(int i) {
    if (starts != null) {
      return starts[i];
    }
    return i == 0 ? 0 : ends[i - 1];
  }

  /** The bytes of the records, back to back: {@link #data}'s, or its records' without the gaps. */
  byte[] compactData() {
    if (starts == null) {
      return data;
    }
    int n = 0;
    for (int i = 0; i < count; i++) {
      n += ends[i] - starts[i];
    }
    byte[] out = new byte[n];
    int at = 0;
    for (int i = 0; i < count; i++) {
      int len = ends[i] - starts[i];
      System.arraycopy(data, starts[i], out, at, len);
      at += len;
    }
    return out;
  }

  /** Where each record ends in {@link #compactData()}. */
  int[] compactEnds() {
    if (starts == null) {
      return ends;
    }
    int[] out = new int[count];
    int at = 0;
    for (int i = 0; i < count; i++) {
      at += ends[i] - starts[i];
      out[i] = at;
    }
    return out;
  }

  /** Where record {@code i} was, for people: {@code line 12}, {@code partition 0 offset 17}. */
  public String where(int i) {
    if (positions == null) {
      return null;
    }
    long partition = positions[3 * i];
    long offset = positions[3 * i + 1];
    if (partition >= 0) {
      return "partition " + partition + " offset " + offset;
    }
    return offset >= 0 ? "line " + offset : null;
  }
}
