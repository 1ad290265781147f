package io.spyglass.core.record;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/** Hashing UTF-8 bytes where they lie, eight at a time, for tables keyed by raw JSON values. */
public final class Utf8Bytes {
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private Utf8Bytes() {}

  /** A hash of {@code b[from, to)}; equal bytes hash equally wherever they lie. */
  public static int hash(byte[] b, int from, int to) {
    long h = (to - from) * 0x9E3779B97F4A7C15L;
    int p = from;
    for (; p + 8 <= to; p += 8) {
      h = (h ^ (long) LONGS.get(b, p)) * 0xBF58476D1CE4E5B9L;
      h ^= h >>> 31;
    }
    if (p < to) {
      long w = 0;
      for (int i = 0; p + i < to; i++) {
        w |= (b[p + i] & 0xFFL) << (8 * i);
      }
      h = (h ^ w) * 0xBF58476D1CE4E5B9L;
      h ^= h >>> 31;
    }
    h *= 0x94D049BB133111EBL;
    return (int) (h ^ (h >>> 32));
  }
}
