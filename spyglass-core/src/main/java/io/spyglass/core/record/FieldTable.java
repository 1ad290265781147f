package io.spyglass.core.record;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * Field names by slot, found from their UTF-8 bytes without making a string: an open-addressing
 * table hashed on the name's length and first eight bytes, which tell most names apart without
 * comparing the rest. Immutable.
 */
final class FieldTable {
  static final FieldTable EMPTY = new FieldTable(java.util.List.of());

  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private final String[] names;

  /** Slots by name. */
  private final Map<String, Integer> slots = new HashMap<>();

  private final byte[][] utf8;

  /** Per slot: the name's first eight bytes as {@link #prefix} reads them. */
  private final long[] prefixes;

  /** Slot + 1 per table entry; 0 is empty. */
  private final int[] table;

  private final int mask;

  /**
   * Bit {@code n} set when some name is {@code n} bytes long (bit 63: 63 or more): most names of a
   * record are not looked up at all, their length rules them out.
   */
  private final long lengths;

  /**
   * @param names distinct names; slots are given in iteration order
   */
  FieldTable(Collection<String> names) {
    this.names = new String[names.size()];
    this.utf8 = new byte[names.size()][];
    this.prefixes = new long[names.size()];
    int i = 0;
    for (String name : names) {
      this.names[i] = name.intern();
      slots.put(name, i);
      // a name with an unpaired surrogate has no UTF-8 form: its generalised one is never in a
      // valid record's bytes, and such a name is found only written with escapes (slot(String))
      this.utf8[i] = Surrogates.encode(name);
      i++;
    }
    int size = Integer.highestOneBit(Math.max(4, this.names.length * 4 - 1)) << 1;
    this.table = new int[size];
    this.mask = size - 1;
    long lengths = 0;
    for (int slot = 0; slot < utf8.length; slot++) {
      byte[] u = utf8[slot];
      lengths |= lengthBit(u.length);
      prefixes[slot] = prefix(u, 0, u.length);
      int h = hash(prefixes[slot], u.length) & mask;
      while (table[h] != 0) {
        h = (h + 1) & mask;
      }
      table[h] = slot + 1;
    }
    this.lengths = lengths;
  }

  private static long lengthBit(int length) {
    return 1L << Math.min(length, 63);
  }

  int size() {
    return names.length;
  }

  /** The name of {@code slot}, interned. */
  String name(int slot) {
    return names[slot];
  }

  /**
   * The slot of {@code name}, or -1: compared as a string, so that a name holding an unpaired
   * surrogate (which has no UTF-8 form) is told apart from the name its UTF-8 encoding would give.
   */
  int slot(String name) {
    Integer slot = slots.get(name);
    return slot == null ? -1 : slot;
  }

  /** The slot of the name whose UTF-8 bytes are {@code b[from, to)}, or -1. */
  int slot(byte[] b, int from, int to) {
    int len = to - from;
    if ((lengths & lengthBit(len)) == 0) {
      return -1;
    }
    long w = prefix(b, from, len);
    int h = hash(w, len) & mask;
    while (true) {
      int s = table[h] - 1;
      if (s < 0) {
        return -1;
      }
      // a name of at most eight bytes is told by its prefix and length alone
      if (prefixes[s] == w
          && utf8[s].length == len
          && (len <= 8 || Arrays.equals(utf8[s], 8, len, b, from + 8, to))) {
        return s;
      }
      h = (h + 1) & mask;
    }
  }

  /** The first eight bytes of {@code b[from, from + len)} (fewer when shorter, the rest zero). */
  private static long prefix(byte[] b, int from, int len) {
    long w;
    if (from + 8 <= b.length) {
      w = (long) LONGS.get(b, from);
      if (len < 8) {
        w &= len == 0 ? 0 : -1L >>> (64 - 8 * len);
      }
    } else {
      w = 0;
      for (int i = 0, n = Math.min(len, 8); i < n; i++) {
        w |= (b[from + i] & 0xFFL) << (8 * i);
      }
    }
    return w;
  }

  private static int hash(long prefix, int len) {
    long h = (prefix ^ len) * 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 29));
  }
}
