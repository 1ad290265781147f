package io.spyglass.service.http;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/** The open SSE streams, and the timer that sends them heartbeats and aborts dropped ones. */
final class Streams implements AutoCloseable {
  private final StreamSettings settings;
  private final Set<SseStream> open = ConcurrentHashMap.newKeySet();
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "spyglass-streams");
            t.setDaemon(true);
            return t;
          });

  Streams(StreamSettings settings) {
    this.settings = settings;
    long every = Math.max(1, Math.min(settings.heartbeatMs(), settings.slowClientMs() / 2));
    timer.scheduleWithFixedDelay(this::beat, every, every, TimeUnit.MILLISECONDS);
  }

  StreamSettings settings() {
    return settings;
  }

  void add(SseStream s) {
    open.add(s);
  }

  void remove(SseStream s) {
    open.remove(s);
  }

  int size() {
    return open.size();
  }

  void abortLater(SseStream s, long delayMs) {
    timer.schedule(s::abort, delayMs, TimeUnit.MILLISECONDS);
  }

  private void beat() {
    for (SseStream s : open) {
      s.heartbeat();
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
