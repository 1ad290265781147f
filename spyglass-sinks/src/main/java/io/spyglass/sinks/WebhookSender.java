package io.spyglass.sinks;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * POSTs each document to a webhook ({@code Content-Type: application/json}, the document's key in
 * {@code Idempotency-Key}): a 2xx delivers it; 408, 429 and 5xx, a timeout or a refused connection
 * are tried again (after the receiver's {@code Retry-After} when it gives one); a redirect is not
 * followed (it could lead past the allow-list) and gives the document up, as any other 4xx does. A
 * plain {@code http} webhook goes through {@link Http1Client} (connections kept alive, no thread
 * hand-off per request), an {@code https} one through the JDK's client (TLS).
 */
final class WebhookSender implements Sender {
  private final HttpClient client;
  private final Http1Client plain;
  private final URI uri;
  private final Duration timeout;

  /**
   * @param plain the client of plain {@code http} webhooks; null to send every webhook through
   *     {@code client}
   */
  WebhookSender(HttpClient client, Http1Client plain, URI uri, long timeoutMs) {
    this.client = client;
    this.plain = plain != null && Http1Client.takes(uri) ? plain : null;
    this.uri = uri;
    this.timeout = Duration.ofMillis(timeoutMs);
  }

  @Override
  public CompletableFuture<Outcome> send(SinkDocument doc) {
    if (plain != null) {
      return plain
          .post(
              uri,
              List.of(
                  "Content-Type",
                  "application/json",
                  "Idempotency-Key",
                  doc.key(),
                  "User-Agent",
                  "Spyglass"),
              doc.json(),
              timeout.toMillis())
          .handle(
              (a, t) ->
                  t != null
                      ? Outcome.retry(Sender.describe(t))
                      : outcome(a.status(), a.retryAfter()));
    }
    HttpRequest request =
        HttpRequest.newBuilder(uri)
            .timeout(timeout)
            .header("Content-Type", "application/json")
            .header("Idempotency-Key", doc.key())
            .header("User-Agent", "Spyglass")
            .POST(HttpRequest.BodyPublishers.ofByteArray(doc.json()))
            .build();
    return client
        .sendAsync(request, HttpResponse.BodyHandlers.discarding())
        .handle((r, t) -> t != null ? Outcome.retry(Sender.describe(t)) : outcome(r));
  }

  static Outcome outcome(HttpResponse<?> r) {
    return outcome(r.statusCode(), r.headers().firstValue("Retry-After").orElse(null));
  }

  static Outcome outcome(int s, String retryAfter) {
    if (s >= 200 && s < 300) {
      return Outcome.DELIVERED;
    }
    String error = "the webhook answered " + s;
    if (s == 408 || s == 429 || s >= 500) {
      return Outcome.retry(error, retryAfterMs(retryAfter));
    }
    if (s >= 300 && s < 400) {
      return Outcome.giveUp(error + " (a redirect, which is not followed: give the final URL)");
    }
    return Outcome.giveUp(error + " (the document is not sent again)");
  }

  /** {@code Retry-After} in seconds as ms; 0 when absent or a date (the backoff applies then). */
  static long retryAfterMs(String value) {
    if (value == null) {
      return 0;
    }
    try {
      long s = Long.parseLong(value.strip());
      return s <= 0 ? 0 : Math.min(s, 86_400) * 1000;
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
