package io.spyglass.scenarios;

import org.HdrHistogram.Histogram;

/**
 * Delays in milliseconds, possibly negative (a record read just before its query was received), in
 * an HdrHistogram shifted by a fixed offset.
 */
final class Delays {
  private static final long OFFSET = 600_000;
  private final Histogram histogram = new Histogram(4 * OFFSET, 3);

  void record(long ms) {
    histogram.recordValue(Math.max(0, Math.min(4 * OFFSET - 1, ms + OFFSET)));
  }

  long count() {
    return histogram.getTotalCount();
  }

  double mean() {
    return count() == 0 ? Double.NaN : histogram.getMean() - OFFSET;
  }

  double percentile(double p) {
    return count() == 0 ? Double.NaN : histogram.getValueAtPercentile(p) - OFFSET;
  }

  double max() {
    return count() == 0 ? Double.NaN : histogram.getMaxValue() - OFFSET;
  }

  /** Cells: mean, p50, p99, max. */
  Object[] cells() {
    return new Object[] {
      Table.num(mean(), 2),
      Table.num(percentile(50), 0),
      Table.num(percentile(99), 0),
      Table.num(max(), 0)
    };
  }
}
