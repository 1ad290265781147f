package io.spyglass.scenarios;

import java.util.Arrays;

/**
 * Delays in milliseconds relative to an event, possibly negative (a record read just before its
 * query was received). Few samples (one per query), kept exactly: percentiles by nearest rank.
 */
public final class Delays {
  private long[] values = new long[128];
  private int count;

  public void record(long ms) {
    if (count == values.length) {
      values = Arrays.copyOf(values, count * 2);
    }
    values[count++] = ms;
  }

  public long count() {
    return count;
  }

  /** Forgets every delay recorded. */
  public void clear() {
    count = 0;
  }

  public double mean() {
    if (count == 0) {
      return Double.NaN;
    }
    double sum = 0;
    for (int i = 0; i < count; i++) {
      sum += values[i];
    }
    return sum / count;
  }

  public double percentile(double p) {
    if (count == 0) {
      return Double.NaN;
    }
    long[] sorted = Arrays.copyOf(values, count);
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(p / 100 * count);
    return sorted[Math.max(0, Math.min(count - 1, rank - 1))];
  }

  public double max() {
    return percentile(100);
  }

  /** Cells: mean, p50, p99, max. */
  public Object[] cells() {
    return new Object[] {
      Table.num(mean(), 2),
      Table.num(percentile(50), 0),
      Table.num(percentile(99), 0),
      Table.num(max(), 0)
    };
  }
}
