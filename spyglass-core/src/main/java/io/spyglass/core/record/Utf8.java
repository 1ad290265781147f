package io.spyglass.core.record;

/**
 * Well-formed UTF-8, as the Unicode standard defines it (table 3-7): no overlong forms, no
 * surrogates, nothing above U+10FFFF. What the scan checks every string of a record with, and what
 * says whether a refused record's bytes are UTF-8 at all.
 */
final class Utf8 {
  private Utf8() {}

  private static final int FAIL = -1;

  /**
   * A multi-byte UTF-8 sequence at {@code p}, well formed (no overlong forms, no surrogates, at
   * most U+10FFFF); returns the index after it.
   */
  static int sequence(byte[] b, int p, int end) {
    int c = b[p] & 0xFF;
    if (c < 0xC2) {
      return FAIL;
    }
    if (c < 0xE0) {
      return p + 1 < end && cont(b[p + 1]) ? p + 2 : FAIL;
    }
    if (c < 0xF0) {
      if (p + 2 >= end) {
        return FAIL;
      }
      int b1 = b[p + 1] & 0xFF;
      if (!cont(b[p + 1])
          || !cont(b[p + 2])
          || (c == 0xE0 && b1 < 0xA0)
          || (c == 0xED && b1 > 0x9F)) {
        return FAIL;
      }
      return p + 3;
    }
    if (c < 0xF5) {
      if (p + 3 >= end) {
        return FAIL;
      }
      int b1 = b[p + 1] & 0xFF;
      if (!cont(b[p + 1])
          || !cont(b[p + 2])
          || !cont(b[p + 3])
          || (c == 0xF0 && b1 < 0x90)
          || (c == 0xF4 && b1 > 0x8F)) {
        return FAIL;
      }
      return p + 4;
    }
    return FAIL;
  }

  /**
   * Whether the bytes from {@code p} to {@code end} are the start of a well-formed multi-byte
   * sequence that the end cuts short (a line cut inside a character), rather than bytes that are
   * not UTF-8.
   */
  static boolean cutShort(byte[] b, int p, int end) {
    int c = b[p] & 0xFF;
    int need =
        c >= 0xC2 && c < 0xE0 ? 2 : c >= 0xE0 && c < 0xF0 ? 3 : c >= 0xF0 && c < 0xF5 ? 4 : 0;
    if (need == 0 || p + need <= end) {
      return false;
    }
    for (int i = p + 1; i < end; i++) {
      if (!cont(b[i])) {
        return false;
      }
    }
    if (p + 1 < end) {
      int b1 = b[p + 1] & 0xFF;
      if ((c == 0xE0 && b1 < 0xA0)
          || (c == 0xED && b1 > 0x9F)
          || (c == 0xF0 && b1 < 0x90)
          || (c == 0xF4 && b1 > 0x8F)) {
        return false;
      }
    }
    return true;
  }

  /**
   * The index of the first byte of {@code b[from, to)} that is not part of well-formed UTF-8, or -1
   * when there is none (a character cut short by {@code to} is not counted: see {@link #cutShort}).
   */
  static int firstInvalid(byte[] b, int from, int to) {
    int p = from;
    while (p < to) {
      if (b[p] >= 0) {
        p++;
        continue;
      }
      int q = sequence(b, p, to);
      if (q < 0) {
        return cutShort(b, p, to) ? -1 : p;
      }
      p = q;
    }
    return -1;
  }

  private static boolean cont(byte c) {
    return (c & 0xC0) == 0x80;
  }
}
