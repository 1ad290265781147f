package io.spyglass.service.http;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.function.LongSupplier;

/**
 * Counts wrong tokens per client address, as a bucket of {@code perMinute} failures refilled over a
 * minute: a wrong token from an address whose bucket is empty is answered 429 (with when to try
 * again) instead of 401. Only failures are throttled: a valid token passes whatever its address
 * sent before, so that users who share an address (behind a proxy or a NAT) are never locked out by
 * someone else's wrong tokens.
 *
 * <p>At most {@code maxAddresses} addresses are remembered: past it the one that failed least
 * recently is forgotten, and an address whose bucket is full again is forgotten as soon as it is
 * the oldest. Every call is O(1). Thread-safe.
 */
final class FailureThrottle {
  /** Addresses remembered at most by default. */
  static final int MAX_ADDRESSES = 100_000;

  private final int perMinute;
  private final int maxAddresses;
  private final LongSupplier clock;
  // least recently failed first
  private final LinkedHashMap<String, Bucket> buckets;

  private final class Bucket {
    double failuresLeft = perMinute;
    long atMs;

    Bucket(long now) {
      atMs = now;
    }

    void refill(long now) {
      failuresLeft =
          Math.min(perMinute, failuresLeft + Math.max(0, now - atMs) * perMinute / 60_000.0);
      atMs = now;
    }
  }

  FailureThrottle(int perMinute, LongSupplier clock) {
    this(perMinute, MAX_ADDRESSES, clock);
  }

  FailureThrottle(int perMinute, int maxAddresses, LongSupplier clock) {
    if (perMinute < 1 || maxAddresses < 1) {
      throw new IllegalArgumentException("a throttle allows at least one failure and address");
    }
    this.perMinute = perMinute;
    this.maxAddresses = maxAddresses;
    this.clock = clock;
    this.buckets = new LinkedHashMap<>(16, 0.75f, true);
  }

  /**
   * Counts a wrong token from {@code address}, unless its allowance is used up.
   *
   * @return 0 when the failure was counted (answer 401); else the seconds until the address may
   *     fail again (answer 429 with them)
   */
  synchronized long failed(String address) {
    long now = clock.getAsLong();
    forgetOldestIfFull(now);
    Bucket b = buckets.get(address);
    if (b == null) {
      b = new Bucket(now);
      buckets.put(address, b);
      if (buckets.size() > maxAddresses) {
        Iterator<Bucket> oldest = buckets.values().iterator();
        oldest.next();
        oldest.remove(); // the address that failed least recently
      }
    }
    b.refill(now);
    if (b.failuresLeft < 1) {
      return Math.max(1, (long) Math.ceil((1 - b.failuresLeft) * 60.0 / perMinute));
    }
    b.failuresLeft -= 1;
    return 0;
  }

  /** Seconds until {@code address} may send a wrong token again without 429; 0 when it may now. */
  synchronized long blockedForSeconds(String address) {
    Bucket b = buckets.get(address);
    if (b == null) {
      return 0;
    }
    b.refill(clock.getAsLong());
    return b.failuresLeft >= 1
        ? 0
        : Math.max(1, (long) Math.ceil((1 - b.failuresLeft) * 60.0 / perMinute));
  }

  /** Addresses remembered now. */
  synchronized int size() {
    return buckets.size();
  }

  private void forgetOldestIfFull(long now) {
    Iterator<Bucket> it = buckets.values().iterator();
    if (it.hasNext()) {
      Bucket oldest = it.next();
      oldest.refill(now);
      if (oldest.failuresLeft >= perMinute) {
        it.remove();
      }
    }
  }
}
