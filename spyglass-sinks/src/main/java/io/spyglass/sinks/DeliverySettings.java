package io.spyglass.sinks;

/**
 * The bounds of delivery: what a sink may buffer, how long and how often a document is tried, and
 * how much is sent at once.
 *
 * @param maxDocuments documents one sink buffers (beside the one being sent); more drop the oldest,
 *     counted
 * @param maxBytes bytes of documents one sink buffers; more drop the oldest, counted
 * @param maxBytesTotal bytes of documents all sinks buffer together; a sink that offers more drops
 *     its own oldest, or the new one, counted
 * @param maxAttempts times a document is tried before it is given up (dropped, counted)
 * @param maxRetryMs how long a document is tried, from its first attempt, before it is given up
 * @param initialBackoffMs the most the first retry waits; each further retry waits up to twice as
 *     long (full jitter: a random time from 0 to that bound)
 * @param maxBackoffMs the most any retry waits (a receiver's {@code Retry-After} included)
 * @param requestTimeoutMs how long one attempt may take (a webhook's answer, Kafka's
 *     acknowledgement)
 * @param maxInFlight attempts under way at once, over all sinks (each sink has one at most)
 * @param threads the threads that send, shared by all sinks (never the engine's)
 * @param maxInFlightPerTarget attempts under way at once to one target (a webhook's scheme, host
 *     and port; a file; a Kafka cluster), over all its sinks: a slow target holds at most these of
 *     the {@code maxInFlight}, the others go on with the rest (and a receiver gets at most these
 *     connections)
 */
public record DeliverySettings(
    int maxDocuments,
    long maxBytes,
    long maxBytesTotal,
    int maxAttempts,
    long maxRetryMs,
    long initialBackoffMs,
    long maxBackoffMs,
    long requestTimeoutMs,
    int maxInFlight,
    int threads,
    int maxInFlightPerTarget) {

  public DeliverySettings {
    if (maxDocuments < 1 || maxBytes < 1 || maxBytesTotal < 1) {
      throw new IllegalArgumentException("a sink buffers at least one document");
    }
    if (maxAttempts < 1 || maxRetryMs < 0 || initialBackoffMs < 1 || maxBackoffMs < 1) {
      throw new IllegalArgumentException(
          "a document is tried at least once, and retries wait at least 1 ms");
    }
    if (requestTimeoutMs < 1 || maxInFlight < 1 || threads < 1 || maxInFlightPerTarget < 1) {
      throw new IllegalArgumentException("delivery needs a timeout, a slot and a thread");
    }
  }

  /** These bounds, a target taking up to a quarter of the attempts under way (at least one). */
  public DeliverySettings(
      int maxDocuments,
      long maxBytes,
      long maxBytesTotal,
      int maxAttempts,
      long maxRetryMs,
      long initialBackoffMs,
      long maxBackoffMs,
      long requestTimeoutMs,
      int maxInFlight,
      int threads) {
    this(
        maxDocuments,
        maxBytes,
        maxBytesTotal,
        maxAttempts,
        maxRetryMs,
        initialBackoffMs,
        maxBackoffMs,
        requestTimeoutMs,
        maxInFlight,
        threads,
        Math.max(1, maxInFlight / 4));
  }

  /**
   * 1,000 documents or 16 MiB per sink, 256 MiB over all sinks; a document tried up to 10 times
   * within 5 minutes, retries after up to 200 ms, doubling to up to 30 s; 10 s an attempt; 256
   * attempts at once on 2 threads, 64 of them to one target.
   */
  public static final DeliverySettings DEFAULTS =
      new DeliverySettings(
          1_000, 16L << 20, 256L << 20, 10, 300_000, 200, 30_000, 10_000, 256, 2, 64);

  /** These bounds with other retries. */
  public DeliverySettings withRetries(
      int attempts, long retryMs, long initialBackoff, long maxBackoff) {
    return new DeliverySettings(
        maxDocuments,
        maxBytes,
        maxBytesTotal,
        attempts,
        retryMs,
        initialBackoff,
        maxBackoff,
        requestTimeoutMs,
        maxInFlight,
        threads,
        maxInFlightPerTarget);
  }

  /** These bounds with other buffers. */
  public DeliverySettings withBuffers(int documents, long bytes, long bytesTotal) {
    return new DeliverySettings(
        documents,
        bytes,
        bytesTotal,
        maxAttempts,
        maxRetryMs,
        initialBackoffMs,
        maxBackoffMs,
        requestTimeoutMs,
        maxInFlight,
        threads,
        maxInFlightPerTarget);
  }

  /** These bounds with another attempt timeout. */
  public DeliverySettings withRequestTimeoutMs(long ms) {
    return new DeliverySettings(
        maxDocuments,
        maxBytes,
        maxBytesTotal,
        maxAttempts,
        maxRetryMs,
        initialBackoffMs,
        maxBackoffMs,
        ms,
        maxInFlight,
        threads,
        maxInFlightPerTarget);
  }

  /** These bounds with other numbers of attempts under way: over all sinks, and to one target. */
  public DeliverySettings withInFlight(int total, int perTarget) {
    return new DeliverySettings(
        maxDocuments,
        maxBytes,
        maxBytesTotal,
        maxAttempts,
        maxRetryMs,
        initialBackoffMs,
        maxBackoffMs,
        requestTimeoutMs,
        total,
        threads,
        perTarget);
  }
}
