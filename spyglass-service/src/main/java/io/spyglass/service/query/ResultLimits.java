package io.spyglass.service.query;

import java.util.Locale;

/**
 * How much memory the results the service keeps may take: every query's {@link ResultLog} (for late
 * and reconnecting clients, while it runs and for {@code --keep} after it ended) and the answers of
 * {@code POST /api/query} being gathered. See {@link ResultMemory}.
 *
 * @param maxBytes all kept results together, over all users ({@code --max-result-memory})
 * @param maxBytesPerUser one user's kept results, of running and of ended queries ({@code
 *     --max-result-memory-per-user})
 * @param maxResultBytes one result's JSON; a larger one keeps the records that fit and says so in
 *     {@code meta.errors} ({@code --max-result-size})
 */
public record ResultLimits(long maxBytes, long maxBytesPerUser, long maxResultBytes) {
  /** The smallest a result may be cut to: its metadata must fit. */
  public static final long MIN_RESULT_BYTES = 64 << 10;

  /** The size of one result at most, unless the per-user share is smaller: 8 MiB. */
  public static final long DEFAULT_RESULT_BYTES = 8L << 20;

  public ResultLimits {
    if (maxResultBytes < MIN_RESULT_BYTES) {
      throw new IllegalArgumentException(
          "--max-result-size must be at least 64KiB: " + maxResultBytes + " bytes");
    }
    if (maxBytesPerUser < maxResultBytes) {
      throw new IllegalArgumentException(
          "--max-result-memory-per-user ("
              + maxBytesPerUser
              + " bytes) must hold at least one result of --max-result-size ("
              + maxResultBytes
              + " bytes)");
    }
    if (maxBytes < maxBytesPerUser) {
      throw new IllegalArgumentException(
          "--max-result-memory ("
              + maxBytes
              + " bytes) must be at least --max-result-memory-per-user ("
              + maxBytesPerUser
              + " bytes)");
    }
  }

  /**
   * The defaults for a heap of {@code maxHeapBytes}: a quarter of it for all kept results, a
   * quarter of that per user, results of 8 MiB at most (less when a user's share is smaller).
   */
  public static ResultLimits forHeap(long maxHeapBytes) {
    return forBudget(Math.max(16 * MIN_RESULT_BYTES, maxHeapBytes / 4));
  }

  /** A budget of {@code maxBytes}, a quarter of it per user, results of 8 MiB at most. */
  public static ResultLimits forBudget(long maxBytes) {
    if (maxBytes < MIN_RESULT_BYTES) {
      throw new IllegalArgumentException(
          "--max-result-memory must be at least 64KiB: " + maxBytes + " bytes");
    }
    long perUser = Math.max(maxBytes / 4, MIN_RESULT_BYTES);
    return new ResultLimits(maxBytes, perUser, Math.min(DEFAULT_RESULT_BYTES, perUser));
  }

  /** The defaults for this JVM's heap ({@code -Xmx}). */
  public static ResultLimits defaults() {
    return forHeap(Runtime.getRuntime().maxMemory());
  }

  /** A size for people: {@code 8 MiB}, {@code 256 KiB}, {@code 1507.5 MiB}. */
  public static String size(long bytes) {
    if (bytes >= 1L << 30 && bytes % (1L << 30) == 0) {
      return (bytes >> 30) + " GiB";
    }
    if (bytes % (1 << 20) == 0) {
      return (bytes >> 20) + " MiB";
    }
    if (bytes < 1 << 20 && bytes % 1024 == 0) {
      return (bytes >> 10) + " KiB";
    }
    return bytes < 1 << 20
        ? bytes + " bytes"
        : String.format(Locale.ROOT, "%.1f MiB", bytes / (double) (1 << 20));
  }
}
