package io.spyglass.service.http;

import java.util.HashMap;
import java.util.Map;

/**
 * The memory that request bodies being read may hold, over all requests and per user ({@code
 * --max-request-body-memory}, {@code --max-request-body-memory-per-user}): the edge reserves a
 * body's declared length (or, for a body in chunks, the most its route takes) before it reads a
 * byte of it, and gives it back when the request completes. A body that does not fit is refused
 * from its head (429), so that neither many callers nor one caller with many connections can fill
 * the heap with bodies they send slowly. Thread-safe.
 */
final class BodyMemory {
  private final long max;
  private final long maxPerUser;
  private long used;
  private final Map<String, Long> perUser = new HashMap<>();

  BodyMemory(long max, long maxPerUser) {
    this.max = max;
    this.maxPerUser = maxPerUser;
  }

  /**
   * Holds {@code bytes} for a body of {@code user}'s until the returned handle is closed (once;
   * closing again does nothing).
   *
   * @throws ApiException 429 when the user's share or the whole is held by other bodies
   */
  AutoCloseable reserve(String user, long bytes) {
    synchronized (this) {
      long mine = perUser.getOrDefault(user, 0L);
      if (mine + bytes > maxPerUser) {
        throw full(
            user + "'s request bodies being read hold " + mine + " bytes",
            maxPerUser,
            "max-request-body-memory-per-user");
      }
      if (used + bytes > max) {
        throw full(
            "Request bodies being read hold " + used + " bytes", max, "max-request-body-memory");
      }
      perUser.put(user, mine + bytes);
      used += bytes;
    }
    return new AutoCloseable() {
      private boolean closed;

      @Override
      public void close() {
        synchronized (BodyMemory.this) {
          if (closed) {
            return;
          }
          closed = true;
          used -= bytes;
          long left = perUser.getOrDefault(user, 0L) - bytes;
          if (left <= 0) {
            perUser.remove(user);
          } else {
            perUser.put(user, left);
          }
        }
      }
    };
  }

  /** Bytes held now by bodies being read. */
  synchronized long used() {
    return used;
  }

  private static ApiException full(String held, long of, String limit) {
    return new ApiException(
            429,
            held
                + " of the "
                + of
                + " allowed (--"
                + limit
                + "): this body does not fit until some of them are read",
            "Send it again after Retry-After seconds, or fewer bodies at once")
        .with("limit", limit)
        .with("retryAfterSeconds", 1)
        .header("Retry-After", "1");
  }
}
