package io.spyglass.service.alerts;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.concurrent.CompletableFuture;

/**
 * Where an alert's events go: one sink (webhook, file or Kafka topic) as an alert uses it, one
 * document at a time. Its events wait in the alerts' outbox until it takes them: a failed attempt
 * is tried again later with the same key.
 */
public interface AlertSink extends AutoCloseable {
  /**
   * Sends one document. Returns at once; the future completes when the sink took it (a webhook's
   * 2xx, written to the file, acknowledged by Kafka), exceptionally when this attempt failed (its
   * message says why, for people).
   *
   * @param key what a receiver deduplicates on: the same for every attempt at one event
   * @param json the document, UTF-8
   */
  CompletableFuture<Void> send(String key, byte[] json);

  /** What it sends to, for people: {@code webhook https://...}. */
  String describe();

  /** Gives back what it holds. */
  @Override
  void close();

  /** Opens sinks from their definition, within what the operator allows. */
  interface Opener {
    /**
     * Opens the sink {@code sink} defines.
     *
     * @param field where it is in the request's body, for messages ({@code sink})
     * @throws Refused when the definition is not one, or names a target the operator does not
     *     allow
     */
    AlertSink open(JsonNode sink, String field) throws Refused;
  }

  /** A sink that cannot be used: which field, why, what to do. */
  final class Refused extends Exception {
    private static final long serialVersionUID = 1L;
    private final String field;
    private final String resolution;

    public Refused(String field, String message, String resolution) {
      super(message);
      this.field = field;
      this.resolution = resolution;
    }

    public String field() {
      return field;
    }

    public String resolution() {
      return resolution;
    }
  }
}
