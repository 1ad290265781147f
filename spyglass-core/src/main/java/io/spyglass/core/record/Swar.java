package io.spyglass.core.record;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The scan's searches a word at a time (SWAR: SIMD within a register): one {@code long} read from
 * the bytes and compared at once against what the scan looks for (the loops of {@link JsonWalk}
 * take two at a time for strings).
 */
final class Swar {
  private Swar() {}

  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long ONES = 0x0101010101010101L;
  private static final long HIGHS = 0x8080808080808080L;
  private static final long BACKSLASHES = 0x5C5C5C5C5C5C5C5CL;
  private static final long TWOS = 0x0202020202020202L;
  private static final long BELOW_QUOTE = 0x2121212121212121L;
  private static final long HIGH_NIBBLES = 0xF0F0F0F0F0F0F0F0L;
  private static final long DIGIT_NIBBLES = 0x3030303030303030L;
  private static final long SIXES = 0x0606060606060606L;

  /**
   * The index of the first byte from {@code p} that a string's scan must look at (a quote, a
   * backslash, a control character or a byte of a multi-byte UTF-8 sequence), or {@code end}.
   */
  static int toLook(byte[] b, int p, int end) {
    while (p + 8 <= end) {
      long m = stringFlags(b, p);
      if (m != 0) {
        return p + (Long.numberOfTrailingZeros(m) >>> 3);
      }
      p += 8;
    }
    while (p < end) {
      byte c = b[p];
      if (c == '"' || c == '\\' || c < 0x20) { // c < 0 for bytes above 0x7F
        return p;
      }
      p++;
    }
    return end;
  }

  /**
   * The eight bytes at {@code p} as a string's scan sees them: the high bit of each byte that needs
   * a look (>= 0x80, or < 0x20, or a quote, or a backslash). Only the lowest flagged byte is exact
   * (borrows flag bytes above a true match), and only it may be used.
   *
   * <p>Control characters and the quote are found by one subtraction: xored with 0x02, the quote
   * (0x22) becomes 0x20 and the bytes below 0x20 stay below it, while every other byte of ASCII
   * becomes 0x21 or more, so subtracting 0x21 borrows exactly for those. The backslash is the byte
   * that xored with it is zero (subtracting one borrows). Bytes beyond ASCII have their high bit
   * set in the word itself. No byte below the lowest flagged one is flagged: such a byte is ASCII
   * (its high bit clear, and so that of the bytes xored with 0x02 or a backslash), at least 0x21
   * after the first xor and not zero after the second, so neither subtraction borrows from it.
   */
  static long stringFlags(byte[] b, int p) {
    long w = (long) LONGS.get(b, p);
    return (((w ^ TWOS) - BELOW_QUOTE) | ((w ^ BACKSLASHES) - ONES) | w) & HIGHS;
  }

  /**
   * The index of the first byte from {@code p} that is not an ASCII digit (or {@code end}), eight
   * bytes at a time: a byte is a digit when its high nibble is 3 and adding 6 keeps it so. A carry
   * out of a byte (only from 0xFA and above, not a digit) can only spoil the bytes above it, so the
   * lowest flagged byte is exact.
   */
  static int digits(byte[] b, int p, int end) {
    while (p + 8 <= end) {
      long w = (long) LONGS.get(b, p);
      long notDigit =
          ((w & HIGH_NIBBLES) ^ DIGIT_NIBBLES) | (((w + SIXES) & HIGH_NIBBLES) ^ DIGIT_NIBBLES);
      if (notDigit != 0) {
        return p + (Long.numberOfTrailingZeros(notDigit) >>> 3);
      }
      p += 8;
    }
    while (p < end && b[p] >= '0' && b[p] <= '9') {
      p++;
    }
    return p;
  }

  /** The eight bytes at {@code p} as a little-endian word: the first is the lowest. */
  static long word(byte[] b, int p) {
    return (long) LONGS.get(b, p);
  }

  /** How many ASCII digits the word {@code w} starts with (its lowest bytes), 0 to 8. */
  static int digitCount(long w) {
    long notDigit =
        ((w & HIGH_NIBBLES) ^ DIGIT_NIBBLES) | (((w + SIXES) & HIGH_NIBBLES) ^ DIGIT_NIBBLES);
    return Long.numberOfTrailingZeros(notDigit) >>> 3;
  }

  static int hex(byte c) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    int lower = c | 0x20;
    return lower >= 'a' && lower <= 'f' ? lower - 'a' + 10 : -1;
  }
}
