package io.spyglass.flink;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplit;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplitSerializer;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * What one reader of {@link KafkaInput} reads: a partition of the records topic (each partition is
 * read by one reader), or the whole query topic (every reader reads it, with a split of its own).
 * The position is the offset of the next message to read, in each partition.
 *
 * <p>A records split may hold one of Kafka's start markers ({@link #EARLIEST}, {@link #LATEST},
 * {@link #COMMITTED}) instead of an offset: a split restored from the state of the job's previous
 * records source (Flink's Kafka source), which had not started reading its partition yet.
 */
final class InputSplit implements SourceSplit {
  /** Start markers, as Flink's Kafka source keeps them in its splits (-1, -2, -3). */
  static final long LATEST = -1;

  static final long EARLIEST = -2;
  static final long COMMITTED = -3;

  private static final String QUERIES = "queries@";

  final String topic;

  /** For a records split, its partition; -1 for the query topic. */
  final int partition;

  /** Next offset by partition: one entry for a records split; every partition read so far. */
  final Map<Integer, Long> offsets;

  /** For the query topic: the reader it belongs to, and the readers the job had then. */
  final int reader;

  final int readers;

  /**
   * For the query topic: by partition, the end of the topic when the job first read it (without a
   * checkpoint). A one-shot request below it ({@code inspect}) was sent before the job started, to
   * a reader that had its answer from a former job or is gone: it is passed over. Empty: none is.
   */
  final Map<Integer, Long> oneShotBelow;

  private InputSplit(
      String topic,
      int partition,
      Map<Integer, Long> offsets,
      Map<Integer, Long> oneShotBelow,
      int reader,
      int readers) {
    this.topic = topic;
    this.partition = partition;
    this.offsets = Map.copyOf(offsets);
    this.oneShotBelow = Map.copyOf(oneShotBelow);
    this.reader = reader;
    this.readers = readers;
  }

  static InputSplit records(String topic, int partition, long offset) {
    return new InputSplit(topic, partition, Map.of(partition, offset), Map.of(), -1, 0);
  }

  static InputSplit queries(String topic, Map<Integer, Long> offsets, int reader, int readers) {
    return queries(topic, offsets, Map.of(), reader, readers);
  }

  /** A split of the query topic passing over the one-shot requests below {@code oneShotBelow}. */
  static InputSplit queries(
      String topic,
      Map<Integer, Long> offsets,
      Map<Integer, Long> oneShotBelow,
      int reader,
      int readers) {
    return new InputSplit(topic, -1, offsets, oneShotBelow, reader, readers);
  }

  boolean isQueries() {
    return partition < 0;
  }

  /** A records split's next offset (or start marker). */
  long offset() {
    return offsets.get(partition);
  }

  @Override
  public String splitId() {
    return isQueries() ? QUERIES + reader : topic + "-" + partition;
  }

  @Override
  public String toString() {
    return splitId()
        + (isQueries()
            ? " of "
                + readers
                + " "
                + offsets
                + (oneShotBelow.isEmpty()
                    ? ""
                    : " one-shot requests below " + oneShotBelow + " passed over")
            : " @" + offset());
  }

  /** A split's position as its reader moves on: the next offset of each partition. */
  static final class Position {
    final InputSplit split;
    final Map<Integer, Long> next;

    Position(InputSplit split) {
      this.split = split;
      this.next = new TreeMap<>(split.offsets);
    }

    void advance(int partition, long nextOffset) {
      next.put(partition, nextOffset);
    }

    InputSplit toSplit() {
      return new InputSplit(
          split.topic, split.partition, next, split.oneShotBelow, split.reader, split.readers);
    }
  }

  /**
   * The splits' format, version {@value #VERSION}: a byte (0 records, 1 queries), the topic, then a
   * records split's partition and offset, or a query split's reader, readers, offsets by partition
   * and (from version 101) the offsets by partition below which one-shot requests are passed over.
   * Version 100 is read with none passed over; versions below 100 are Flink's Kafka source's splits
   * (the job's records source before), read as records splits.
   */
  static final class Serializer implements SimpleVersionedSerializer<InputSplit> {
    static final int VERSION = 101;

    @Override
    public int getVersion() {
      return VERSION;
    }

    @Override
    public byte[] serialize(InputSplit s) throws IOException {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream(32);
      try (DataOutputStream out = new DataOutputStream(bytes)) {
        out.writeByte(s.isQueries() ? 1 : 0);
        out.writeUTF(s.topic);
        if (s.isQueries()) {
          out.writeInt(s.reader);
          out.writeInt(s.readers);
          out.writeInt(s.offsets.size());
          for (Map.Entry<Integer, Long> e : new TreeMap<>(s.offsets).entrySet()) {
            out.writeInt(e.getKey());
            out.writeLong(e.getValue());
          }
          out.writeInt(s.oneShotBelow.size());
          for (Map.Entry<Integer, Long> e : new TreeMap<>(s.oneShotBelow).entrySet()) {
            out.writeInt(e.getKey());
            out.writeLong(e.getValue());
          }
        } else {
          out.writeInt(s.partition);
          out.writeLong(s.offset());
        }
      }
      return bytes.toByteArray();
    }

    @Override
    public InputSplit deserialize(int version, byte[] bytes) throws IOException {
      if (version < 100) {
        // a split of Flink's Kafka source, the job's records source before
        KafkaPartitionSplit k = new KafkaPartitionSplitSerializer().deserialize(version, bytes);
        return records(k.getTopic(), k.getPartition(), k.getStartingOffset());
      }
      if (version > VERSION) {
        throw new IOException(
            "A split of the job's Kafka input of version "
                + version
                + " is newer than this job reads ("
                + VERSION
                + "): restore it with the job's version that wrote it");
      }
      try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
        int kind = in.readByte();
        String topic = in.readUTF();
        if (kind == 1) {
          int reader = in.readInt();
          int readers = in.readInt();
          int n = in.readInt();
          Map<Integer, Long> offsets = new TreeMap<>();
          for (int i = 0; i < n; i++) {
            offsets.put(in.readInt(), in.readLong());
          }
          Map<Integer, Long> oneShotBelow = new TreeMap<>();
          if (version >= 101) {
            int m = in.readInt();
            for (int i = 0; i < m; i++) {
              oneShotBelow.put(in.readInt(), in.readLong());
            }
          }
          return queries(topic, offsets, oneShotBelow, reader, readers);
        }
        if (kind != 0) {
          throw new IOException("unknown kind of split " + kind);
        }
        return records(topic, in.readInt(), in.readLong());
      }
    }
  }
}
