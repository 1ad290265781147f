package io.spyglass.core.record;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The word searches of {@link Swar} find the first byte a slow search would, for every byte value
 * at every place of a word, whatever bytes precede it (those that need no look) and follow it
 * (anything: borrows and carries spoil only the bytes above the first found).
 */
class SwarTest {
  private static final int ROUNDS = 64;

  @Test
  void aStringsSearchStopsAtTheFirstByteToLookAt() {
    Random random = new Random(7);
    byte[] b = new byte[24];
    for (int at = 0; at < 8; at++) {
      for (int v = 0; v < 256; v++) {
        for (int round = 0; round < ROUNDS; round++) {
          fill(b, random, at, (byte) v, false);
          int expected = firstToLook(b, 0, 8);
          long flags = Swar.stringFlags(b, 0);
          int found = flags == 0 ? 8 : Long.numberOfTrailingZeros(flags) >>> 3;
          assertThat(found).as("byte 0x%02x at %d in %s", v, at, hex(b)).isEqualTo(expected);
          assertThat(Swar.toLook(b, 0, b.length)).isEqualTo(firstToLook(b, 0, b.length));
        }
      }
    }
  }

  @Test
  void digitsAreCountedToTheFirstByteThatIsNoDigit() {
    Random random = new Random(11);
    byte[] b = new byte[24];
    for (int at = 0; at < 8; at++) {
      for (int v = 0; v < 256; v++) {
        for (int round = 0; round < ROUNDS; round++) {
          fill(b, random, at, (byte) v, true);
          int expected = firstNotDigit(b, 0, 8);
          assertThat(Swar.digitCount(Swar.word(b, 0)))
              .as("byte 0x%02x at %d in %s", v, at, hex(b))
              .isEqualTo(expected);
          assertThat(Swar.digits(b, 0, b.length)).isEqualTo(firstNotDigit(b, 0, b.length));
        }
      }
    }
  }

  /**
   * Bytes before {@code at} that a search passes (digits, or ASCII a string holds as it is), the
   * byte {@code v} at {@code at}, and after it any byte, often one of the edges of the tests.
   */
  private static void fill(byte[] b, Random random, int at, byte v, boolean digits) {
    for (int i = 0; i < at; i++) {
      b[i] = digits ? (byte) ('0' + random.nextInt(10)) : passed(random);
    }
    b[at] = v;
    byte[] edges = {0, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x2F, 0x30, 0x39, 0x3A, 0x5B, 0x5C, 0x5D};
    for (int i = at + 1; i < b.length; i++) {
      b[i] =
          random.nextBoolean()
              ? edges[random.nextInt(edges.length)]
              : random.nextBoolean()
                  ? (byte) (0x80 + random.nextInt(128))
                  : (byte) random.nextInt();
    }
  }

  private static byte passed(Random random) {
    while (true) {
      byte c = (byte) (0x20 + random.nextInt(0x60));
      if (c != '"' && c != '\\') {
        return c;
      }
    }
  }

  private static int firstToLook(byte[] b, int from, int to) {
    for (int i = from; i < to; i++) {
      byte c = b[i];
      if (c == '"' || c == '\\' || c < 0x20) { // c < 0 beyond ASCII
        return i;
      }
    }
    return to;
  }

  private static int firstNotDigit(byte[] b, int from, int to) {
    for (int i = from; i < to; i++) {
      if (b[i] < '0' || b[i] > '9') {
        return i;
      }
    }
    return to;
  }

  private static String hex(byte[] b) {
    StringBuilder s = new StringBuilder();
    for (byte c : b) {
      s.append(String.format("%02x", c & 0xFF));
    }
    return s.toString();
  }
}
