package io.spyglass.scenarios;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class CompilerQuietTest {
  @AfterEach
  void clear() {
    System.clearProperty(CompilerQuiet.PROPERTY);
  }

  @Test
  void waitsHalfASecondOfQuietByDefaultAndNoneForZero() {
    assertThat(CompilerQuiet.quietMs()).isEqualTo(500);
    System.setProperty(CompilerQuiet.PROPERTY, "0");
    assertThat(CompilerQuiet.quietMs()).isZero();
    System.setProperty(CompilerQuiet.PROPERTY, " 250 ");
    assertThat(CompilerQuiet.quietMs()).isEqualTo(250);
  }

  @Test
  void aBadWindowSaysWhatTheOptionTakes() {
    for (String bad : new String[] {"-1", "half a second"}) {
      System.setProperty(CompilerQuiet.PROPERTY, bad);
      assertThatThrownBy(CompilerQuiet::quietMs)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("-D" + CompilerQuiet.PROPERTY)
          .hasMessageContaining("milliseconds")
          .hasMessageContaining(bad);
    }
  }

  @Test
  void noWindowStartsTheClockAtOnce() throws InterruptedException {
    assertThat(CompilerQuiet.await(0)).isZero();
  }

  /**
   * The clock starts once the compiler threads have been (nearly) idle for a whole window: the
   * compilations queued by the work just done (here: code run for the first time) are not left for
   * the measured read.
   */
  @Test
  void theClockStartsAfterAWholeQuietWindow() throws InterruptedException {
    long sum = 0;
    for (int i = 0; i < 200_000; i++) {
      sum += Long.toString(i).hashCode();
    }
    assertThat(sum).isNotZero();
    long waited = CompilerQuiet.await(200);
    assertThat(waited).isBetween(200L, CompilerQuiet.MAX_WAIT_MS + 1_000);
  }
}
