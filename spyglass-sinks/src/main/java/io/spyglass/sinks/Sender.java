package io.spyglass.sinks;

import java.util.concurrent.CompletableFuture;

/**
 * Sends one document to one sink: a webhook, a file or a Kafka topic. Called on a delivery thread,
 * one document at a time per {@link Delivery}; must return at once (or after a short write) and
 * complete the future when the sink answered.
 */
interface Sender extends AutoCloseable {
  CompletableFuture<Outcome> send(SinkDocument doc);

  /** Gives back what it holds of its own (shared clients stay with {@link Sinks}). */
  @Override
  default void close() {}

  /**
   * What an attempt came to.
   *
   * @param kind delivered, to retry, or given up
   * @param error what went wrong, for people; null when delivered
   * @param retryAfterMs the receiver's {@code Retry-After}, or 0
   */
  record Outcome(Kind kind, String error, long retryAfterMs) {
    enum Kind {
      DELIVERED,
      RETRY,
      GIVE_UP
    }

    static final Outcome DELIVERED = new Outcome(Kind.DELIVERED, null, 0);

    static Outcome retry(String error) {
      return new Outcome(Kind.RETRY, error, 0);
    }

    static Outcome retry(String error, long retryAfterMs) {
      return new Outcome(Kind.RETRY, error, retryAfterMs);
    }

    static Outcome giveUp(String error) {
      return new Outcome(Kind.GIVE_UP, error, 0);
    }
  }

  /** What an exception says, for people: its class and message. */
  static String describe(Throwable t) {
    Throwable c = t;
    while ((c instanceof java.util.concurrent.CompletionException
            || c instanceof java.util.concurrent.ExecutionException)
        && c.getCause() != null) {
      c = c.getCause();
    }
    String m = c.getMessage();
    return m == null || m.isBlank()
        ? c.getClass().getSimpleName()
        : c.getClass().getSimpleName() + ": " + m;
  }
}
