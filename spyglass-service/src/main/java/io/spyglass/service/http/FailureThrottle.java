package io.spyglass.service.http;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Counts wrong tokens and tickets per client address, as a bucket of {@code perMinute} failures
 * refilled over a minute: an address that empties it gets 429 for every request that carries a
 * token until the bucket refills, so tokens cannot be guessed at speed. Thread-safe; forgets
 * addresses whose bucket is full again.
 */
final class FailureThrottle {
  /** Addresses remembered at most; past it the fullest buckets are forgotten first. */
  static final int MAX_ADDRESSES = 100_000;

  private final int perMinute;
  private final LongSupplier clock;
  private final Map<String, Bucket> buckets = new ConcurrentHashMap<>();

  private final class Bucket {
    double failuresLeft = perMinute;
    long atMs;

    Bucket(long now) {
      atMs = now;
    }

    void refill(long now) {
      failuresLeft = Math.min(perMinute, failuresLeft + (now - atMs) * perMinute / 60_000.0);
      atMs = now;
    }
  }

  FailureThrottle(int perMinute, LongSupplier clock) {
    this.perMinute = perMinute;
    this.clock = clock;
  }

  /** Seconds until {@code address} may try a token again; 0 when it may now. */
  long blockedForSeconds(String address) {
    Bucket b = buckets.get(address);
    if (b == null) {
      return 0;
    }
    synchronized (b) {
      b.refill(clock.getAsLong());
      if (b.failuresLeft >= 1) {
        return 0;
      }
      return Math.max(1, (long) Math.ceil((1 - b.failuresLeft) * 60.0 / perMinute));
    }
  }

  /** Counts a wrong token or ticket from {@code address}. */
  void failed(String address) {
    long now = clock.getAsLong();
    if (buckets.size() >= MAX_ADDRESSES) {
      forgetFull(now);
    }
    Bucket b = buckets.computeIfAbsent(address, a -> new Bucket(now));
    synchronized (b) {
      b.refill(now);
      b.failuresLeft = Math.max(0, b.failuresLeft - 1);
    }
  }

  private void forgetFull(long now) {
    buckets
        .values()
        .removeIf(
            b -> {
              synchronized (b) {
                b.refill(now);
                return b.failuresLeft >= perMinute - 1;
              }
            });
  }
}
