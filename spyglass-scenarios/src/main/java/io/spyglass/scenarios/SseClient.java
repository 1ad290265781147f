package io.spyglass.scenarios;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;

/**
 * One benchmark client reading a query's results from {@code spyglass serve} as Server-Sent Events,
 * without a thread of its own: the JDK's HTTP client hands it lines as they arrive. It keeps, for
 * each result event, its id, when it arrived and the result's emission time, and the data of the
 * records when asked to.
 */
final class SseClient implements Flow.Subscriber<String> {
  static final ObjectMapper JSON = new ObjectMapper();

  /** A result as this client received it. */
  record Received(long id, long receivedMs, long emitMs, boolean isFinal, JsonNode records) {}

  private final boolean keepRecords;
  private final List<Received> received = new ArrayList<>();
  private final CompletableFuture<Void> ended = new CompletableFuture<>();
  private volatile long connectedMs;
  private String id;
  private String event;
  private String data;
  private volatile String error;

  SseClient(boolean keepRecords) {
    this.keepRecords = keepRecords;
  }

  /**
   * Starts reading {@code url}; the future completes with the status when the response headers
   * arrived (the stream goes on).
   */
  CompletableFuture<Integer> open(HttpClient http, String url) {
    HttpRequest req =
        HttpRequest.newBuilder(URI.create(url)).header("Accept", "text/event-stream").build();
    CompletableFuture<Integer> headers = new CompletableFuture<>();
    HttpResponse.BodyHandler<Void> handler =
        info -> {
          connectedMs = System.currentTimeMillis();
          headers.complete(info.statusCode());
          if (info.statusCode() != 200) {
            error = "HTTP " + info.statusCode();
          }
          return HttpResponse.BodySubscribers.fromLineSubscriber(this);
        };
    http.sendAsync(req, handler)
        .whenComplete(
            (r, t) -> {
              if (t != null) {
                error = t.toString();
                headers.completeExceptionally(t);
              }
              ended.complete(null);
            });
    return headers;
  }

  @Override
  public void onSubscribe(Flow.Subscription s) {
    s.request(Long.MAX_VALUE);
  }

  @Override
  public void onNext(String line) {
    if (line.isEmpty()) {
      if ("result".equals(event) && data != null) {
        result(System.currentTimeMillis());
      } else if ("error".equals(event)) {
        error = data;
      }
      id = null;
      event = null;
      data = null;
    } else if (line.startsWith("id: ")) {
      id = line.substring(4);
    } else if (line.startsWith("event: ")) {
      event = line.substring(7);
    } else if (line.startsWith("data: ")) {
      data = line.substring(6);
    }
  }

  private void result(long now) {
    try {
      JsonNode r = JSON.readTree(data);
      JsonNode meta = r.get("meta");
      JsonNode window = meta.get("window");
      long emit =
          window != null
              ? window.get("emitTime").asLong()
              : meta.get("query").path("finishTime").asLong(now);
      synchronized (this) {
        received.add(
            new Received(
                Long.parseLong(id),
                now,
                emit,
                meta.get("final").asBoolean(),
                keepRecords ? r.get("records") : null));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void onError(Throwable t) {
    error = t.toString();
    ended.complete(null);
  }

  @Override
  public void onComplete() {
    ended.complete(null);
  }

  /** Completes when the stream ended (after the final result, an error or a dropped connection). */
  CompletableFuture<Void> ended() {
    return ended;
  }

  long connectedMs() {
    return connectedMs;
  }

  synchronized List<Received> received() {
    return new ArrayList<>(received);
  }

  /** Why the stream failed, or null. */
  String error() {
    return error;
  }

  /** A problem with what this client received, or null: ids 1..n without a gap, the last final. */
  synchronized String check() {
    if (error != null) {
      return error;
    }
    for (int i = 0; i < received.size(); i++) {
      if (received.get(i).id() != i + 1) {
        return "result " + (i + 1) + " has id " + received.get(i).id();
      }
    }
    if (received.isEmpty() || !received.get(received.size() - 1).isFinal()) {
      return "no final result among " + received.size();
    }
    return null;
  }
}
