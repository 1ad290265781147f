package io.spyglass.engine;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The engine's threads: the reader, one per worker, the combiner and the ticker (when ticks are
 * timed). Daemons, whose death by an exception is a failure of the engine, reported to the handler
 * they are given (a tick that throws too, which a scheduled executor would swallow).
 */
final class EngineThreads {
  private final Thread.UncaughtExceptionHandler onFailure;
  private final Thread reader;
  private final Thread combiner;
  private final Thread[] workers;
  private final ScheduledExecutorService ticker;
  private final long tickMs;
  private final Runnable tick;

  /**
   * @param tickMs the time between two ticks; 0 or less for none (ticks asked for by hand)
   * @param tick what a tick does, on the ticker's thread
   * @param onFailure told of an exception that ends any of these threads
   */
  EngineThreads(
      Runnable reader,
      Runnable combiner,
      Runnable[] workers,
      long tickMs,
      Runnable tick,
      Thread.UncaughtExceptionHandler onFailure) {
    this.onFailure = onFailure;
    this.reader = thread(reader, "spyglass-reader");
    this.combiner = thread(combiner, "spyglass-combiner");
    this.workers = new Thread[workers.length];
    for (int i = 0; i < workers.length; i++) {
      this.workers[i] = thread(workers[i], "spyglass-worker-" + i);
    }
    this.tickMs = tickMs;
    this.tick = tick;
    this.ticker =
        tickMs > 0
            ? Executors.newSingleThreadScheduledExecutor(r -> thread(r, "spyglass-ticker"))
            : null;
  }

  private Thread thread(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    t.setUncaughtExceptionHandler(onFailure);
    return t;
  }

  /** Starts every thread but the reader: the engine runs, and reads nothing yet. */
  void start() {
    combiner.start();
    for (Thread t : workers) {
      t.start();
    }
    if (ticker != null) {
      ticker.scheduleAtFixedRate(this::timerTick, tickMs, tickMs, TimeUnit.MILLISECONDS);
    }
  }

  /** Starts the reader; once only. */
  void startReader() {
    reader.start();
  }

  /** A scheduled executor swallows what its tasks throw: report it as the engine's failure. */
  private void timerTick() {
    try {
      tick.run();
    } catch (RuntimeException | Error e) {
      onFailure.uncaughtException(Thread.currentThread(), e);
      throw e;
    }
  }

  /** Stops the ticks, and interrupts the reader and the workers, waiting for nothing. */
  void interrupt() {
    if (ticker != null) {
      ticker.shutdownNow();
    }
    reader.interrupt();
    for (Thread t : workers) {
      t.interrupt();
    }
  }

  /** Waits at most {@code ms} for the combiner thread to end. */
  void awaitCombiner(long ms) throws InterruptedException {
    combiner.join(ms);
  }
}
