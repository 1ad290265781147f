package io.spyglass.engine.source;

import java.util.Arrays;

/**
 * A batch of raw records as a source read them: the bytes of each record (one JSON object) in one
 * shared buffer, and, for sources that have them, each record's position (partition, offset, and
 * the source's timestamp). Parsing happens later, on the worker that filters the batch, so that
 * only the fields active queries need are built.
 *
 * <p>Batches are pooled and reused: {@link #clear()} empties one. Not thread-safe; handed from the
 * reading thread to one worker at a time.
 */
public final class RawBatch {
  private byte[] data;
  private int used;
  private int[] starts;
  private int[] lengths;
  private int[] partitions;
  private long[] offsets;
  private long[] timestamps;
  private int size;
  private boolean positioned;
  private long readTimeMs;

  public RawBatch() {
    this(64 * 1024, 256);
  }

  public RawBatch(int bytes, int records) {
    data = new byte[Math.max(16, bytes)];
    starts = new int[Math.max(4, records)];
    lengths = new int[starts.length];
    partitions = new int[starts.length];
    offsets = new long[starts.length];
    timestamps = new long[starts.length];
  }

  public void clear() {
    used = 0;
    size = 0;
    positioned = false;
    readTimeMs = 0;
  }

  public int size() {
    return size;
  }

  public boolean isEmpty() {
    return size == 0;
  }

  /** Bytes held, over all records. */
  public int bytes() {
    return used;
  }

  /** Appends a record's bytes (copied). */
  public void add(byte[] src, int offset, int length) {
    ensure(length);
    System.arraycopy(src, offset, data, used, length);
    starts[size] = used;
    lengths[size] = length;
    partitions[size] = -1;
    offsets[size] = -1;
    timestamps[size] = -1;
    used += length;
    size++;
  }

  /**
   * Appends a line of a file with its line number (1 for the first), so that a record that cannot
   * be read can be told by its place.
   */
  public void addLine(byte[] src, int offset, int length, long line) {
    add(src, offset, length);
    offsets[size - 1] = line;
  }

  /** Appends a record with its source position, e.g. a Kafka partition, offset and timestamp. */
  public void add(
      byte[] src, int offset, int length, int partition, long position, long timestamp) {
    add(src, offset, length);
    partitions[size - 1] = partition;
    offsets[size - 1] = position;
    timestamps[size - 1] = timestamp;
    positioned = true;
  }

  private void ensure(int length) {
    if (used + length > data.length) {
      data = Arrays.copyOf(data, Math.max(data.length * 2, used + length));
    }
    if (size == starts.length) {
      int n = size * 2;
      starts = Arrays.copyOf(starts, n);
      lengths = Arrays.copyOf(lengths, n);
      partitions = Arrays.copyOf(partitions, n);
      offsets = Arrays.copyOf(offsets, n);
      timestamps = Arrays.copyOf(timestamps, n);
    }
  }

  /** The shared buffer; record {@code i} is {@code data()[start(i) .. start(i)+length(i))}. */
  public byte[] data() {
    return data;
  }

  public int start(int i) {
    return starts[i];
  }

  public int length(int i) {
    return lengths[i];
  }

  /** Whether records carry a source position ({@link #partition}, {@link #offset}, ...). */
  public boolean positioned() {
    return positioned;
  }

  /** The record's source partition, or -1. */
  public int partition(int i) {
    return partitions[i];
  }

  /** The record's offset in its partition, its line number in a file, or -1. */
  public long offset(int i) {
    return offsets[i];
  }

  /** Where record {@code i} was, for people: {@code line 12}, {@code partition 0 offset 17}. */
  public String where(int i) {
    if (partitions[i] >= 0) {
      return "partition " + partitions[i] + " offset " + offsets[i];
    }
    return offsets[i] >= 0 ? "line " + offsets[i] : null;
  }

  /** The source's timestamp of the record (e.g. Kafka's), epoch ms, or -1. */
  public long timestamp(int i) {
    return timestamps[i];
  }

  /** When the batch was read, on the engine clock; set by whoever polls the source. */
  public long readTimeMs() {
    return readTimeMs;
  }

  public void readTimeMs(long ms) {
    this.readTimeMs = ms;
  }
}
