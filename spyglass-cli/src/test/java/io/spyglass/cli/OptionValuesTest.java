package io.spyglass.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The option values every command reads alike: durations, sizes, rates and least counts. */
class OptionValuesTest {
  @Test
  void durationsTakeTheSameUnitsForEveryOption() {
    assertThat(OptionValues.duration("--grace", "1500ms")).isEqualTo(1_500);
    assertThat(OptionValues.duration("--grace", " 30S ")).isEqualTo(30_000);
    assertThat(OptionValues.duration("--grace", "5m")).isEqualTo(300_000);
    assertThat(OptionValues.duration("--grace", "7d")).isEqualTo(7 * 86_400_000L);
    assertThat(OptionValues.duration("--grace", "0")).isZero();
    // query --duration reads them as serve's options do
    assertThat(OptionValues.positiveDuration("--duration", "12h")).isEqualTo(12 * 3_600_000L);
    assertThatThrownBy(() -> OptionValues.duration("--grace", "30x"))
        .hasMessage("--grace 30x is not a duration: write e.g. 1500ms, 30s, 5m, 12h or 7d");
    assertThatThrownBy(() -> OptionValues.duration("--grace", "-5s"))
        .hasMessageContaining("--grace -5s is not a duration");
    assertThatThrownBy(() -> OptionValues.duration("--grace", "9999999999999999d"))
        .hasMessageContaining("is not a duration");
  }

  @Test
  void aDurationThatMustBeLongerThanZeroSaysSo() {
    for (String none : new String[] {"0s", "0", "-5s", " -1m"}) {
      assertThatThrownBy(() -> OptionValues.positiveDuration("--duration", none))
          .hasMessage("--duration " + none + " must be longer than zero: write e.g. 30s, 5m or 1h");
    }
    assertThatThrownBy(() -> OptionValues.positiveDuration("--keep", "-abc"))
        .hasMessageContaining("--keep -abc is not a duration");
  }

  @Test
  void sizesRatesAndLeastCounts() {
    assertThat(OptionValues.parseBytes("64MiB")).isEqualTo(64L << 20);
    assertThat(OptionValues.rate("64KiB/s")).isEqualTo(64L << 10);
    assertThat(OptionValues.rate(" 100 ")).isEqualTo(100);
    assertThatThrownBy(() -> OptionValues.rate("fast/s")).hasMessageContaining("'fast' is not");
    assertThat(OptionValues.atLeast("--sink-buffer", 1, 1)).isEqualTo(1);
    assertThatThrownBy(() -> OptionValues.atLeast("--max-queries", 0, 1))
        .hasMessage("--max-queries must be at least 1, not 0");
  }
}
