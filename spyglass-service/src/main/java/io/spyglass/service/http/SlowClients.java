package io.spyglass.service.http;

import java.util.function.LongSupplier;

/**
 * The slow-client policy of both result transports, SSE streams and WebSocket sockets: how much a
 * client whose connection does not take what it is sent may have waiting, and when it is dropped.
 *
 * <ul>
 *   <li>A client is handed what its connection takes, at most {@link
 *       StreamSettings#bufferResults()} messages at a time ({@link #hasRoom}: a WebSocket's frames
 *       in flight; an SSE stream hands one write at a time); the rest waits in its query's result
 *       log, which every client of the query shares, so that a client that does not read holds no
 *       more than that of its own.
 *   <li>A client whose connection is full (it holds what was handed to it) is dropped, by its
 *       transport, with a last error message, when more than {@code bufferResults} results arrived
 *       for it while it was full, or when it stayed full for longer than {@link
 *       StreamSettings#slowClientMs()} ({@link Watch#full}).
 *   <li>A connection that takes what it holds is no longer full ({@link Watch#free}): the count and
 *       the time start over.
 * </ul>
 *
 * <p>One instance per server holds the settings and the service's clock; each WebSocket client has
 * a {@link Watch} of its own, used under the client's lock; an SSE stream keeps the same state in
 * itself and asks {@link #tooSlow}.
 */
final class SlowClients {
  private final StreamSettings settings;
  private final LongSupplier clock;

  /**
   * @param clock the service's clock (epoch milliseconds)
   */
  SlowClients(StreamSettings settings, LongSupplier clock) {
    this.settings = settings;
    this.clock = clock;
  }

  StreamSettings settings() {
    return settings;
  }

  /** The time now on the service's clock, in epoch milliseconds. */
  long now() {
    return clock.getAsLong();
  }

  /** Whether a client with {@code inFlight} messages not yet taken may be handed one more. */
  boolean hasRoom(int inFlight) {
    return inFlight < settings.bufferResults();
  }

  /**
   * Whether a client whose connection has been full since {@code fullSinceMs}, when {@code
   * arrivedThen} results had arrived for it, must be dropped now that {@code arrived} have: more
   * than {@code bufferResults} arrived meanwhile, or it stayed full longer than {@code
   * slowClientMs}.
   */
  boolean tooSlow(long fullSinceMs, long arrivedThen, long arrived) {
    return arrived - arrivedThen > settings.bufferResults()
        || clock.getAsLong() - fullSinceMs > settings.slowClientMs();
  }

  /** A client's watch: not full. */
  Watch watch() {
    return new Watch();
  }

  /**
   * One client: whether its connection is full, since when, and how many results had arrived for it
   * then. Not thread-safe: its client's lock guards it.
   */
  final class Watch {
    private boolean full;
    private long fullSinceMs;
    private long arrivedThen;

    private Watch() {}

    /** Its connection took what was in flight: it is not full (or no longer). */
    void free() {
      full = false;
    }

    /**
     * Its connection is full now, {@code arrived} results having arrived for the client so far (a
     * count that only grows: the last result's number in its log, the times it was woken): true
     * when it must be dropped. The first call after {@link #free} starts the watch and is false.
     */
    boolean full(long arrived) {
      if (!full) {
        full = true;
        fullSinceMs = clock.getAsLong();
        arrivedThen = arrived;
        return false;
      }
      return tooSlow(fullSinceMs, arrivedThen, arrived);
    }
  }
}
