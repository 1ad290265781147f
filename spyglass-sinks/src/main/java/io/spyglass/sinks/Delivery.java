package io.spyglass.sinks;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The delivery of one query's documents (or one alert's) to one sink: a bounded buffer, one
 * document sent at a time in the order offered, each tried until the sink takes it or its attempts
 * or time run out, with exponential backoff and full jitter between attempts.
 *
 * <p>{@link #offer} only buffers and returns: the caller (the engine's thread) never waits for the
 * sink. When the buffer is full the oldest buffered document is dropped (counted). Sending happens
 * on the threads of {@link Sinks}, shared by every sink.
 *
 * <p>Thread-safe.
 */
public final class Delivery {
  private final Sinks hub;
  private final SinkSpec spec;
  private final String target;
  private final Sender sender;
  private final DeliverySettings settings;
  private final ArrayDeque<SinkDocument> queue = new ArrayDeque<>();
  private long queuedBytes;

  /** The document being sent or waiting for its next attempt; null when none. */
  private SinkDocument current;

  private int attempts;
  private long firstAttemptNanos;

  /** Whether it is with the hub: waiting for a slot, being sent, or waiting for a retry. */
  private boolean scheduled;

  private boolean closed;
  private boolean released;
  private long delivered;
  private long retried;
  private long dropped;
  private boolean failing;
  private String lastError;

  Delivery(Sinks hub, SinkSpec spec, String target, Sender sender, DeliverySettings settings) {
    this.hub = hub;
    this.spec = spec;
    this.target = target;
    this.sender = sender;
    this.settings = settings;
  }

  /** The sink, as it was given. */
  public SinkSpec spec() {
    return spec;
  }

  /** What it shares the bound on attempts under way with ({@link Sinks#targetOf}). */
  String target() {
    return target;
  }

  /**
   * Buffers a document to send; returns at once. When the buffer is full, the oldest document
   * buffered is dropped (counted); after {@link #close()} the document is dropped.
   */
  public void offer(SinkDocument doc) {
    boolean start;
    synchronized (this) {
      if (closed) {
        drop(1, "the sink was closed");
        return;
      }
      int size = doc.size();
      while (!queue.isEmpty()
          && (queue.size() >= settings.maxDocuments()
              || queuedBytes + size > settings.maxBytes())) {
        dropOldest("its buffer was full");
      }
      while (!hub.reserve(size)) {
        if (queue.isEmpty()) {
          drop(1, "the buffers of all sinks were full (" + settings.maxBytesTotal() + " bytes)");
          return;
        }
        dropOldest("the buffers of all sinks were full");
      }
      queue.addLast(doc);
      queuedBytes += size;
      start = !scheduled;
      scheduled = true;
    }
    if (start) {
      hub.ready(this);
    }
  }

  private void dropOldest(String why) {
    SinkDocument d = queue.pollFirst();
    queuedBytes -= d.size();
    hub.release(d.size());
    drop(1, why);
  }

  private void drop(long n, String why) {
    dropped += n;
    hub.counted(spec.type(), Sinks.Count.DROPPED, n);
    if (!failing) { // a failing sink keeps why it fails: what made its buffer overflow
      lastError = "documents dropped: " + why;
    }
  }

  /** Sends the next document, on a thread of the hub that holds a slot for it. */
  void attempt() {
    SinkDocument doc;
    synchronized (this) {
      if (current == null) {
        current = queue.pollFirst();
        if (current != null) {
          queuedBytes -= current.size();
          attempts = 0;
          firstAttemptNanos = hub.nanoTime();
        }
      }
      if (current == null) {
        scheduled = false;
        doc = null;
      } else {
        doc = current;
        attempts++;
      }
    }
    if (doc == null) {
      hub.done(this, false);
      return;
    }
    CompletableFuture<Sender.Outcome> f;
    try {
      f = sender.send(doc);
    } catch (RuntimeException e) {
      f = CompletableFuture.completedFuture(Sender.Outcome.retry(Sender.describe(e)));
    }
    f.whenComplete(
        (o, t) -> finished(doc, t != null ? Sender.Outcome.retry(Sender.describe(t)) : o));
  }

  private void finished(SinkDocument doc, Sender.Outcome o) {
    long retryInMs = -1;
    boolean more = false;
    synchronized (this) {
      if (current == doc) { // else abandoned meanwhile (the hub stopped), counted as dropped
        retryInMs = outcome(doc, o);
        more = current != null || !queue.isEmpty();
      }
      if (!more) {
        scheduled = false;
      }
    }
    hub.done(this, more && retryInMs < 0);
    if (retryInMs >= 0) {
      hub.retryLater(this, retryInMs);
    }
  }

  /**
   * Counts an attempt's outcome; returns how long to wait before the document's next attempt, or -1
   * when it is done with (delivered, refused or given up). Guarded by this.
   */
  private long outcome(SinkDocument doc, Sender.Outcome o) {
    switch (o.kind()) {
      case DELIVERED -> {
        delivered++;
        failing = false;
        hub.counted(spec.type(), Sinks.Count.DELIVERED, 1);
        done(doc);
        return -1;
      }
      case GIVE_UP -> {
        failing = true;
        drop(1, "refused");
        lastError = o.error();
        done(doc);
        return -1;
      }
      default -> {
        failing = true;
        long elapsedMs = (hub.nanoTime() - firstAttemptNanos) / 1_000_000;
        if (attempts >= settings.maxAttempts() || elapsedMs >= settings.maxRetryMs()) {
          drop(1, "given up");
          lastError =
              o.error()
                  + " (given up after "
                  + attempts
                  + (attempts == 1 ? " attempt" : " attempts")
                  + " in "
                  + elapsedMs
                  + " ms)";
          done(doc);
          return -1;
        }
        retried++;
        hub.counted(spec.type(), Sinks.Count.RETRIED, 1);
        lastError = o.error();
        return backoffMs(attempts, o.retryAfterMs());
      }
    }
  }

  private void done(SinkDocument doc) {
    hub.release(doc.size());
    current = null;
  }

  /**
   * How long to wait before attempt {@code attempts + 1}: a random time up to the initial backoff
   * doubled at each attempt, capped (full jitter); at least what the receiver asked for.
   */
  private long backoffMs(int attempts, long retryAfterMs) {
    int shift = Math.min(30, attempts - 1);
    long bound = Math.min(settings.maxBackoffMs(), settings.initialBackoffMs() << shift);
    long wait = ThreadLocalRandom.current().nextLong(bound + 1);
    return Math.max(wait, Math.min(retryAfterMs, settings.maxBackoffMs()));
  }

  /** Its counters now. */
  public synchronized SinkStats stats() {
    return new SinkStats(
        spec,
        delivered,
        retried,
        dropped,
        failing,
        lastError,
        queue.size() + (current != null ? 1 : 0));
  }

  /** Whether its last attempt failed (until one succeeds). */
  public synchronized boolean failing() {
    return failing;
  }

  /** Whether it has nothing buffered or being sent. */
  public synchronized boolean idle() {
    return !scheduled && current == null && queue.isEmpty();
  }

  /** Takes no more documents; what is buffered is still sent, within the bounds. */
  public synchronized void close() {
    closed = true;
  }

  /**
   * Forgets it once it has delivered what it holds (its query was forgotten): its counters leave
   * the hub's gauges then.
   */
  public void release() {
    boolean now;
    synchronized (this) {
      released = true;
      now = !scheduled;
    }
    if (now) {
      hub.forget(this);
    }
  }

  synchronized boolean released() {
    return released;
  }

  /** Drops what it still holds (the hub stops): returns how many documents. */
  int abandon() {
    synchronized (this) {
      closed = true;
      int n = queue.size() + (current != null ? 1 : 0);
      while (!queue.isEmpty()) {
        SinkDocument d = queue.pollFirst();
        hub.release(d.size());
      }
      queuedBytes = 0;
      if (current != null) {
        hub.release(current.size());
        current = null;
      }
      if (n > 0) {
        drop(n, "the service stopped before they could be delivered");
      }
      return n;
    }
  }

  Sender sender() {
    return sender;
  }
}
