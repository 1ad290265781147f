package io.spyglass.flink;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.api.common.state.BroadcastState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.BasicTypeInfo;

/**
 * Where a filter subtask is in the query topic. Query messages may carry their place in the topic
 * (partition and offset): a subtask skips a message it has taken before, so that a source may read
 * the topic again from an earlier place after a change of parallelism. The next offset of each
 * partition it has taken is kept with the queries, in broadcast state: after a change of
 * parallelism each subtask gets one former subtask's queries and positions.
 */
final class QueryPlaces {
  /**
   * The next offset of each partition of the query topic this subtask has taken the messages
   * before.
   */
  static final MapStateDescriptor<Integer, Long> POSITIONS =
      new MapStateDescriptor<>(
          "spyglass-query-positions", BasicTypeInfo.INT_TYPE_INFO, BasicTypeInfo.LONG_TYPE_INFO);

  /** The first byte of a query message that carries its place: then partition, offset, JSON. */
  private static final byte PLACED = 0;

  private static final int HEADER = 13;

  private final BroadcastState<Integer, Long> positions;
  private final Map<Integer, Long> taken = new HashMap<>();

  QueryPlaces(BroadcastState<Integer, Long> positions) {
    this.positions = positions;
  }

  /** Takes the positions back from a checkpoint. */
  void restore() throws Exception {
    positions.entries().forEach(e -> taken.put(e.getKey(), e.getValue()));
  }

  /** Writes the positions into the state before a checkpoint. */
  void snapshot() throws Exception {
    positions.clear();
    positions.putAll(taken);
  }

  /**
   * Whether the message at {@code offset} of {@code partition} (-1 when not known) is new here;
   * marks it taken.
   */
  boolean take(int partition, long offset) {
    if (partition >= 0) {
      Long next = taken.get(partition);
      if (next != null && offset < next) {
        return false;
      }
      taken.put(partition, offset + 1);
    }
    return true;
  }

  /** A query message with its place in the query topic, as {@link #parse} takes it. */
  static byte[] placed(byte[] json, int partition, long offset) {
    return ByteBuffer.allocate(HEADER + json.length)
        .put(PLACED)
        .putInt(partition)
        .putLong(offset)
        .put(json)
        .array();
  }

  /** A message of the query topic: the JSON, and its place when it carries one. */
  record Placed(byte[] json, int partition, long offset) {}

  /** A message (JSON), or one with its place ({@link #placed}). */
  static Placed parse(byte[] bytes) {
    if (bytes.length >= HEADER && bytes[0] == PLACED) {
      ByteBuffer b = ByteBuffer.wrap(bytes);
      b.get();
      int partition = b.getInt();
      long offset = b.getLong();
      return new Placed(Arrays.copyOfRange(bytes, HEADER, bytes.length), partition, offset);
    }
    return new Placed(bytes, -1, -1);
  }
}
