package io.spyglass.sources;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** The word-at-a-time newline search finds what a byte-by-byte search finds, at every alignment. */
class NewlineSearchTest {
  @Test
  void findsTheFirstLineFeedAsAByteLoopDoes() {
    Random random = new Random(3);
    byte[] interesting = {'\n', '\r', 0, 9, 11, (byte) 0x8A, (byte) 0xFF, 'a', 0x0B, 0x0A};
    for (int trial = 0; trial < 20_000; trial++) {
      byte[] b = new byte[random.nextInt(80)];
      for (int i = 0; i < b.length; i++) {
        b[i] =
            random.nextInt(6) == 0
                ? interesting[random.nextInt(interesting.length)]
                : (byte) random.nextInt(256);
      }
      int from = b.length == 0 ? 0 : random.nextInt(b.length + 1);
      int to = from + random.nextInt(b.length - from + 1);
      int expected = -1;
      for (int i = from; i < to; i++) {
        if (b[i] == '\n') {
          expected = i;
          break;
        }
      }
      assertThat(FileSource.indexOfNewline(b, from, to)).isEqualTo(expected);
    }
  }
}
