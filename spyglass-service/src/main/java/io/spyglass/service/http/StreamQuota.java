package io.spyglass.service.http;

import io.spyglass.service.auth.User;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Result streams (SSE streams and WebSockets) open per user, within {@code max}: each holds a
 * connection and a descriptor, so one user's idle streams must not use up what everyone needs.
 * Thread-safe.
 */
final class StreamQuota {
  private final int max;
  private final Map<String, Integer> open = new ConcurrentHashMap<>();

  StreamQuota(int max) {
    this.max = max;
  }

  /** One stream of a user; closing it (once or more) frees its place. */
  final class Permit implements AutoCloseable {
    private final String user;
    private final AtomicBoolean closed = new AtomicBoolean();

    private Permit(String user) {
      this.user = user;
    }

    @Override
    public void close() {
      if (closed.compareAndSet(false, true)) {
        release(user);
      }
    }
  }

  /** A place for one more stream of {@code user}; 429 when the user has {@code max} open. */
  Permit acquire(User user) {
    take(user);
    return new Permit(user.name());
  }

  /**
   * As {@link #acquire}, for a holder that gives the place back itself, once, with {@link #release}
   * (a stream that holds no permit object of its own).
   */
  void take(User user) {
    boolean[] taken = {false};
    open.compute(
        user.name(),
        (u, n) -> {
          int now = n == null ? 0 : n;
          if (now >= max) {
            return n;
          }
          taken[0] = true;
          return now + 1;
        });
    if (!taken[0]) {
      throw refused(user);
    }
  }

  /** Gives back one of {@code user}'s places (taken with {@link #take}). */
  void release(String user) {
    open.computeIfPresent(user, (u, n) -> n <= 1 ? null : n - 1);
  }

  /** Refuses at once when {@code user} has no place left (before a WebSocket is upgraded). */
  void check(User user) {
    if (open.getOrDefault(user.name(), 0) >= max) {
      throw refused(user);
    }
  }

  int open(User user) {
    return open.getOrDefault(user.name(), 0);
  }

  private ApiException refused(User user) {
    return new ApiException(
            429,
            user.name() + " has " + max + " result streams open, the most allowed per user",
            "Close streams you no longer read (an EventSource, a WebSocket), or follow several"
                + " queries over one WebSocket; the limit is --max-streams-per-user")
        .with("limit", "max-streams-per-user")
        .with("retryAfterSeconds", 10)
        .header("Retry-After", "10");
  }
}
