package io.spyglass.service.http;

import io.spyglass.core.SpyglassClock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The open SSE streams, and the timer that sends them heartbeats (spread over the period) and
 * aborts dropped ones; the slow-client policy they share with WebSocket sockets.
 */
final class Streams implements AutoCloseable {
  private final StreamSettings settings;
  private final SlowClients slowClients;

  /** The service's clock: a wait for the streams to end is timed on its monotonic count. */
  private final SpyglassClock clock;

  /**
   * The open streams: a list threaded through the streams themselves ({@link SseStream#openPrev},
   * {@link SseStream#openNext}; two fields in each rather than a set's entry for each of ten
   * thousand). Guarded by this object's lock; never held while a stream is called.
   */
  private SseStream head;

  private int size;

  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "spyglass-streams");
            t.setDaemon(true);
            return t;
          });

  /**
   * The heartbeat period is cut into this many phases, each stream beating in one of them: 10,000
   * streams beat 500 at a time, not all at once (a burst of 10,000 writes every 10 s that requests
   * such as {@code GET /api/health} waited behind).
   */
  static final int PHASES = 20;

  private int phase;

  Streams(SlowClients slowClients, SpyglassClock clock) {
    this.clock = clock;
    this.slowClients = slowClients;
    this.settings = slowClients.settings();
    long every = Math.max(1, Math.min(settings.heartbeatMs(), settings.slowClientMs() / 2));
    long tick = Math.max(1, every / PHASES);
    timer.scheduleWithFixedDelay(this::beat, tick, tick, TimeUnit.MILLISECONDS);
  }

  StreamSettings settings() {
    return settings;
  }

  /** The slow-client policy and the service's clock. */
  SlowClients slowClients() {
    return slowClients;
  }

  synchronized void add(SseStream s) {
    if (s.openPrev != null || head == s) {
      return;
    }
    s.openNext = head;
    if (head != null) {
      head.openPrev = s;
    }
    head = s;
    size++;
  }

  synchronized void remove(SseStream s) {
    if (s.openPrev == null && head != s) {
      return; // not (or no longer) here
    }
    if (s.openPrev != null) {
      s.openPrev.openNext = s.openNext;
    } else {
      head = s.openNext;
    }
    if (s.openNext != null) {
      s.openNext.openPrev = s.openPrev;
    }
    s.openPrev = null;
    s.openNext = null;
    size--;
  }

  synchronized int size() {
    return size;
  }

  void abortLater(SseStream s, long delayMs) {
    timer.schedule(s::abort, delayMs, TimeUnit.MILLISECONDS);
  }

  /**
   * Waits until every stream ended (each delivers its query's final result, then ends); true if
   * none is left within {@code timeoutMs}.
   */
  boolean awaitEnded(long timeoutMs) throws InterruptedException {
    long deadline = clock.deadlineIn(timeoutMs);
    while (size() > 0) {
      if (clock.nanos() - deadline >= 0) {
        return false;
      }
      Thread.sleep(10);
    }
    return true;
  }

  /** Beats the streams of this tick's phase (each stream once a period). */
  private void beat() {
    int p = phase;
    phase = (phase + 1) % PHASES;
    List<SseStream> due = new ArrayList<>();
    synchronized (this) {
      for (SseStream s = head; s != null; s = s.openNext) {
        if (Math.floorMod(System.identityHashCode(s), PHASES) == p) {
          due.add(s);
        }
      }
    }
    for (SseStream s : due) {
      s.heartbeat();
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
