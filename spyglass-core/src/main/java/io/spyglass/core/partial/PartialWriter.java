package io.spyglass.core.partial;

import io.spyglass.core.record.Surrogates;
import java.util.Arrays;

/**
 * A growable byte buffer for encoding partials. Fixed-width numbers are written little-endian (the
 * byte order of DataSketches' own images); counts and lengths are unsigned LEB128 varints; signed
 * integers are zigzag varints. Not thread-safe.
 */
public final class PartialWriter {
  private static final int MAX_ARRAY = Integer.MAX_VALUE - 16;

  private byte[] buf;
  private int size;
  private boolean keepJson;

  public PartialWriter() {
    this(64);
  }

  public PartialWriter(int initialCapacity) {
    buf = new byte[Math.max(16, initialCapacity)];
  }

  /**
   * Whether records kept as their JSON are written as their bytes (format 2 of the partials, see
   * {@link Partials#encode(Partial, boolean)}); false unless set.
   */
  public boolean keepsJson() {
    return keepJson;
  }

  /** Sets {@link #keepsJson()}. */
  public PartialWriter keepJson(boolean keep) {
    this.keepJson = keep;
    return this;
  }

  /** Bytes written so far. */
  public int size() {
    return size;
  }

  /** A copy of the bytes written so far. */
  public byte[] toByteArray() {
    return Arrays.copyOf(buf, size);
  }

  public PartialWriter writeByte(int b) {
    ensure(1);
    buf[size++] = (byte) b;
    return this;
  }

  public PartialWriter writeBoolean(boolean b) {
    return writeByte(b ? 1 : 0);
  }

  /** Four bytes, little-endian. */
  public PartialWriter writeInt(int v) {
    ensure(4);
    for (int i = 0; i < 4; i++) {
      buf[size++] = (byte) (v >>> (8 * i));
    }
    return this;
  }

  /** Eight bytes, little-endian. */
  public PartialWriter writeLong(long v) {
    ensure(8);
    for (int i = 0; i < 8; i++) {
      buf[size++] = (byte) (v >>> (8 * i));
    }
    return this;
  }

  public PartialWriter writeFloat(float v) {
    return writeInt(Float.floatToRawIntBits(v));
  }

  public PartialWriter writeDouble(double v) {
    return writeLong(Double.doubleToRawLongBits(v));
  }

  /** An unsigned varint; {@code v} must not be negative. */
  public PartialWriter writeVarInt(int v) {
    if (v < 0) {
      throw new IllegalArgumentException("negative count: " + v);
    }
    return writeVarLong(v);
  }

  /** An unsigned varint of the 64 bits of {@code v} (1 to 10 bytes). */
  public PartialWriter writeVarLong(long v) {
    ensure(10);
    while ((v & ~0x7FL) != 0) {
      buf[size++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    buf[size++] = (byte) v;
    return this;
  }

  /** A signed value as a zigzag varint. */
  public PartialWriter writeSignedVarLong(long v) {
    return writeVarLong((v << 1) ^ (v >> 63));
  }

  /** A varint length, then the bytes. */
  public PartialWriter writeBytes(byte[] bytes) {
    writeVarInt(bytes.length);
    return writeRaw(bytes, 0, bytes.length);
  }

  /**
   * A varint length, then the UTF-8 bytes; an unpaired surrogate (which UTF-8 has no bytes for) in
   * the three bytes its code point would take, so that it is read back as it was ({@link
   * Surrogates#encode}).
   */
  public PartialWriter writeString(String s) {
    return writeBytes(Surrogates.encode(s));
  }

  public PartialWriter writeRaw(byte[] bytes, int offset, int length) {
    ensure(length);
    System.arraycopy(bytes, offset, buf, size, length);
    size += length;
    return this;
  }

  private void ensure(int extra) {
    long needed = (long) size + extra;
    if (needed <= buf.length) {
      return;
    }
    if (needed > MAX_ARRAY) {
      throw new IllegalStateException("encoded partial larger than " + MAX_ARRAY + " bytes");
    }
    long grown = Math.max(needed, Math.min((long) buf.length * 2, MAX_ARRAY));
    buf = Arrays.copyOf(buf, (int) grown);
  }
}
