package io.spyglass.cli;

import java.util.Locale;

/**
 * The values the commands' options take, read and checked in one place for every option and every
 * layer they come from (a flag, a variable, the configuration file): durations ({@code TIME}),
 * sizes ({@code BYTES}, {@code SIZE}), rates ({@code BYTES/s}) and counts with a least value. An
 * error is an {@link IllegalArgumentException} that names the option and says what to write.
 */
final class OptionValues {
  private OptionValues() {}

  /**
   * A duration of option {@code flag} in milliseconds: {@code 1500ms}, {@code 30s}, {@code 5m},
   * {@code 12h}, {@code 7d}, or plain milliseconds; 0 is allowed (each option says what it means).
   */
  static long duration(String flag, String text) {
    long ms = signedDuration(flag, text);
    if (ms < 0) {
      throw notADuration(flag, text);
    }
    return ms;
  }

  /** As {@link #duration}, for an option whose duration must be longer than zero. */
  static long positiveDuration(String flag, String text) {
    long ms = signedDuration(flag, text);
    if (ms <= 0) {
      throw new IllegalArgumentException(
          flag + " " + text + " must be longer than zero: write e.g. 30s, 5m or 1h");
    }
    return ms;
  }

  private static long signedDuration(String flag, String text) {
    String t = text.strip().toLowerCase(Locale.ROOT);
    long unit = 1;
    for (String[] u :
        new String[][] {
          {"ms", "1"}, {"s", "1000"}, {"m", "60000"}, {"h", "3600000"}, {"d", "86400000"}
        }) {
      if (t.endsWith(u[0])) {
        unit = Long.parseLong(u[1]);
        t = t.substring(0, t.length() - u[0].length()).strip();
        break;
      }
    }
    try {
      return Math.multiplyExact(Long.parseLong(t), unit);
    } catch (NumberFormatException | ArithmeticException e) {
      throw notADuration(flag, text);
    }
  }

  private static IllegalArgumentException notADuration(String flag, String text) {
    return new IllegalArgumentException(
        flag + " " + text + " is not a duration: write e.g. 1500ms, 30s, 5m, 12h or 7d");
  }

  /** Bytes, plain or with a KiB, MiB or GiB suffix; one that does not fit in a long is refused. */
  static long parseBytes(String text) {
    String t = text.strip();
    long unit = 1;
    String suffix = "";
    for (String[] u : new String[][] {{"KiB", "1024"}, {"MiB", "1048576"}, {"GiB", "1073741824"}}) {
      if (t.endsWith(u[0])) {
        unit = Long.parseLong(u[1]);
        suffix = u[0];
        t = t.substring(0, t.length() - 3).strip();
      }
    }
    long v;
    try {
      v = Long.parseLong(t);
      if (v < 0) {
        throw new NumberFormatException();
      }
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "a size is bytes, or a number with KiB, MiB or GiB: '" + text + "' is not");
    }
    try {
      return Math.multiplyExact(v, unit);
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException(
          "the size '"
              + text
              + "' is too large: a size is at most "
              + Long.MAX_VALUE / unit
              + (suffix.isEmpty() ? " bytes" : suffix));
    }
  }

  /** Bytes a second: a size ({@link #parseBytes}) with or without {@code /s} after it. */
  static long rate(String text) {
    String t = text.strip();
    return parseBytes(t.endsWith("/s") ? t.substring(0, t.length() - 2) : t);
  }

  /** {@code value} of option {@code flag}, which must be at least {@code least}. */
  static int atLeast(String flag, int value, int least) {
    if (value < least) {
      throw new IllegalArgumentException(flag + " must be at least " + least + ", not " + value);
    }
    return value;
  }
}
