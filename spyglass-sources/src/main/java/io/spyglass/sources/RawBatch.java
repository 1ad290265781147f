package io.spyglass.sources;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;

/**
 * A batch of raw records as a source read them: the bytes of each record (one JSON object), and,
 * for sources that have them, each record's position (partition, offset, and the source's
 * timestamp). Parsing happens later, on the worker that filters the batch, so that only the fields
 * active queries need are built.
 *
 * <p>A record's bytes are either copied into the batch's shared buffer ({@link #add}) or, for a
 * source that holds them in memory already (e.g. the Kafka consumer's fetched data), referenced
 * where they are ({@link #addReferenced}): record {@code i} is {@code array(i)[start(i) ..
 * start(i)+length(i))} either way. {@link #data()} gives every record in the one shared buffer,
 * copying referenced ones there first.
 *
 * <p>Batches are pooled and reused: {@link #clear()} empties one and lets go of the arrays it
 * referenced. Not thread-safe; handed from the reading thread to one worker at a time.
 */
public final class RawBatch {
  private byte[] data;
  private int used;

  /** Bytes of every record, copied or referenced. */
  private int bytes;

  /** Per record: the array it is referenced in, or null when it is in {@link #data}. */
  private byte[][] arrays;

  private int referenced;
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
    arrays = new byte[starts.length][];
    lengths = new int[starts.length];
    partitions = new int[starts.length];
    offsets = new long[starts.length];
    timestamps = new long[starts.length];
  }

  public void clear() {
    if (referenced > 0) {
      Arrays.fill(arrays, 0, size, null);
      referenced = 0;
    }
    used = 0;
    bytes = 0;
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

  /** Bytes of the records, over all of them (copied and referenced). */
  public int bytes() {
    return bytes;
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
    bytes += length;
    size++;
  }

  /**
   * Appends a record with its source position, its bytes referenced where they are, not copied:
   * {@code src} must hold them unchanged until the batch is {@link #clear() cleared}.
   */
  public void addReferenced(
      byte[] src, int offset, int length, int partition, long position, long timestamp) {
    Objects.checkFromIndexSize(offset, length, src.length);
    ensure(0);
    arrays[size] = src;
    starts[size] = offset;
    lengths[size] = length;
    partitions[size] = partition;
    offsets[size] = position;
    timestamps[size] = timestamp;
    bytes += length;
    referenced++;
    positioned = true;
    size++;
  }

  /**
   * Appends a record's bytes, the buffer's remaining ones (copied; the buffer's position does not
   * move), with its source position.
   */
  public void add(ByteBuffer src, int partition, long position, long timestamp) {
    int length = src.remaining();
    ensure(length);
    src.get(src.position(), data, used, length);
    starts[size] = used;
    lengths[size] = length;
    used += length;
    bytes += length;
    size++;
    partitions[size - 1] = partition;
    offsets[size - 1] = position;
    timestamps[size - 1] = timestamp;
    positioned = true;
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
      arrays = Arrays.copyOf(arrays, n);
      lengths = Arrays.copyOf(lengths, n);
      partitions = Arrays.copyOf(partitions, n);
      offsets = Arrays.copyOf(offsets, n);
      timestamps = Arrays.copyOf(timestamps, n);
    }
  }

  /**
   * The shared buffer, with every record in it: record {@code i} is {@code data()[start(i) ..
   * start(i)+length(i))}. Records added by reference are copied into it first (once); readers that
   * take each record from {@link #array(int)} copy nothing.
   */
  public byte[] data() {
    if (referenced > 0) {
      gather();
    }
    return data;
  }

  /** The array record {@code i} is in: the shared buffer, or the one it is referenced in. */
  public byte[] array(int i) {
    byte[] a = arrays[i];
    return a != null ? a : data;
  }

  /** Puts every record into the shared buffer, in order, one after the other. */
  private void gather() {
    // every record referenced: the shared buffer holds none, and is written over
    byte[] all =
        referenced == size && data.length >= bytes ? data : new byte[Math.max(data.length, bytes)];
    int at = 0;
    for (int i = 0; i < size; i++) {
      byte[] a = arrays[i] != null ? arrays[i] : data;
      System.arraycopy(a, starts[i], all, at, lengths[i]);
      starts[i] = at;
      at += lengths[i];
      arrays[i] = null;
    }
    data = all;
    used = at;
    referenced = 0;
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
