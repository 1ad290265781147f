package io.spyglass.core.partial;

import io.spyglass.core.record.Surrogates;
import java.util.Arrays;

/**
 * Reads what a {@link PartialWriter} wrote (same byte order and varints). Every read checks that
 * enough bytes remain, and every declared length or count is checked against the bytes that remain
 * before anything is allocated, so bad input fails with a {@link PartialFormatException}, never an
 * out-of-memory error. Not thread-safe.
 */
public final class PartialReader {
  private final byte[] buf;
  private final int limit;
  private int pos;

  public PartialReader(byte[] bytes) {
    this(bytes, 0, bytes.length);
  }

  public PartialReader(byte[] bytes, int offset, int length) {
    if (offset < 0 || length < 0 || offset > bytes.length - length) {
      throw new IndexOutOfBoundsException("offset " + offset + ", length " + length);
    }
    this.buf = bytes;
    this.pos = offset;
    this.limit = offset + length;
  }

  public int position() {
    return pos;
  }

  public int remaining() {
    return limit - pos;
  }

  public int readByte() {
    need(1);
    return buf[pos++] & 0xFF;
  }

  public boolean readBoolean() {
    int b = readByte();
    if (b > 1) {
      throw new PartialFormatException("bad boolean byte " + b + " at offset " + (pos - 1));
    }
    return b == 1;
  }

  public int readInt() {
    need(4);
    int v = 0;
    for (int i = 0; i < 4; i++) {
      v |= (buf[pos++] & 0xFF) << (8 * i);
    }
    return v;
  }

  public long readLong() {
    need(8);
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v |= (buf[pos++] & 0xFFL) << (8 * i);
    }
    return v;
  }

  public float readFloat() {
    return Float.intBitsToFloat(readInt());
  }

  public double readDouble() {
    return Double.longBitsToDouble(readLong());
  }

  public long readVarLong() {
    long v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      int b = readByte();
      v |= (long) (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return v;
      }
    }
    throw new PartialFormatException("varint longer than 10 bytes at offset " + pos);
  }

  public long readSignedVarLong() {
    long v = readVarLong();
    return (v >>> 1) ^ -(v & 1);
  }

  /** An unsigned varint that must fit in a non-negative int. */
  public int readVarInt() {
    long v = readVarLong();
    if (v < 0 || v > Integer.MAX_VALUE) {
      throw new PartialFormatException("count out of range: " + Long.toUnsignedString(v));
    }
    return (int) v;
  }

  /**
   * A count of elements each taking at least {@code minBytesEach} bytes; fails when the remaining
   * bytes cannot hold that many, so callers may allocate {@code count} slots safely.
   */
  public int readCount(int minBytesEach) {
    int n = readVarInt();
    if ((long) n * Math.max(1, minBytesEach) > remaining()) {
      throw new PartialFormatException(
          "declared count " + n + " does not fit in the " + remaining() + " remaining bytes");
    }
    return n;
  }

  public byte[] readBytes() {
    int n = readVarInt();
    need(n);
    byte[] out = Arrays.copyOfRange(buf, pos, pos + n);
    pos += n;
    return out;
  }

  public String readString() {
    int n = readVarInt();
    need(n);
    String s = Surrogates.decode(buf, pos, n);
    pos += n;
    return s;
  }

  /** Fails unless every byte has been read. */
  public void requireEnd() {
    if (pos != limit) {
      throw new PartialFormatException(remaining() + " unexpected trailing bytes");
    }
  }

  private void need(int n) {
    if (n < 0 || n > limit - pos) {
      throw new PartialFormatException(
          "truncated: need " + n + " bytes at offset " + pos + ", " + (limit - pos) + " remain");
    }
  }
}
