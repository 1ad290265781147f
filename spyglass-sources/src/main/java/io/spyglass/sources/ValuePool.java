package io.spyglass.sources;

import java.nio.charset.StandardCharsets;

/** Pre-encoded values and a lookup table that draws them with a Zipf-like skew. */
final class ValuePool {
  private static final int TABLE_BITS = 12;
  private final byte[][] values;
  private final byte[] table;

  private ValuePool(byte[][] values, double skew) {
    this.values = values;
    double[] weights = new double[values.length];
    double total = 0;
    for (int i = 0; i < values.length; i++) {
      weights[i] = 1 / Math.pow(i + 1, skew);
      total += weights[i];
    }
    table = new byte[1 << TABLE_BITS];
    int slot = 0;
    double cumulative = 0;
    for (int i = 0; i < values.length; i++) {
      cumulative += weights[i];
      int upTo =
          i == values.length - 1
              ? table.length
              : (int) Math.max(slot + 1, Math.round(cumulative / total * table.length));
      while (slot < upTo && slot < table.length) {
        table[slot++] = (byte) i;
      }
    }
  }

  static ValuePool strings(double skew, String... values) {
    byte[][] encoded = new byte[values.length][];
    for (int i = 0; i < values.length; i++) {
      encoded[i] = JsonBuffer.quoted(values[i]);
    }
    return new ValuePool(encoded, skew);
  }

  static ValuePool numbers(double skew, long... values) {
    byte[][] encoded = new byte[values.length][];
    for (int i = 0; i < values.length; i++) {
      encoded[i] = Long.toString(values[i]).getBytes(StandardCharsets.US_ASCII);
    }
    return new ValuePool(encoded, skew);
  }

  int size() {
    return values.length;
  }

  int pick(long random) {
    return table[(int) (random >>> (64 - TABLE_BITS))];
  }

  void write(JsonBuffer o, long random) {
    o.raw(values[pick(random)]);
  }

  void writeAt(JsonBuffer o, int index) {
    o.raw(values[index]);
  }

  /** Without the quotes, to splice a string value into a longer one. */
  void writeUnquoted(JsonBuffer o, long random) {
    byte[] v = values[pick(random)];
    o.raw(v, 1, v.length - 2);
  }
}
