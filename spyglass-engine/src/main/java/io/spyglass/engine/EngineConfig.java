package io.spyglass.engine;

import io.spyglass.core.SpyglassClock;
import io.spyglass.core.plan.QueryLimits;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Settings of an embedded {@link Engine}, validated when built. Every setting has a default; see
 * {@link #defaults()}.
 *
 * @param workers filter worker threads; default: one per available core
 * @param batchRecords most records in one batch
 * @param batchBytes about how many bytes of records one batch holds: the reader sizes batches by a
 *     moving average of the size of the records it reads. A worker hands a batch's results on when
 *     it has filtered the whole batch, so small batches keep latency low; 64 KiB is about half a
 *     millisecond of work for a core
 * @param queueBatches batches waiting for a worker, per worker, before the reader blocks
 *     (back-pressure)
 * @param tickMs how often time windows and durations are checked; 0 disables the timer, leaving
 *     ticks to {@link Engine#tick()} (tests)
 * @param maxQueries most queries running at once; more are refused with an error
 * @param resultQueue results a subscriber may leave unread (see {@code resultBackPressure})
 * @param resultQueueRecords records, over all its unread results, a subscriber may leave unread; a
 *     single result of more records is accepted when nothing else waits
 * @param resultBackPressure what happens when a subscriber leaves more than {@code resultQueue}
 *     results or {@code resultQueueRecords} records unread. False (a service, many subscribers): it
 *     is cut off, its query stopped with an error, so that one slow client never holds up the
 *     others. True (one process, one reader, like the command line): the engine stops reading its
 *     source until the subscriber catches up, so memory stays bounded whatever the source's speed;
 *     a subscriber that leaves twice as much unread (it stopped reading) is cut off all the same
 * @param stopWhenSourceEnds whether the end of a bounded source finishes every query and stops
 * @param limits per-query defaults and maxima (durations, sizes, emit rate)
 * @param clock the engine clock (the one {@link SpyglassClock} of whoever builds the engine): epoch
 *     milliseconds, and a monotonic count for waits (a {@link LongSupplier} of epoch milliseconds
 *     alone is taken with the machine's monotonic clock)
 */
public record EngineConfig(
    int workers,
    int batchRecords,
    int batchBytes,
    int queueBatches,
    long tickMs,
    int maxQueries,
    int resultQueue,
    int resultQueueRecords,
    boolean resultBackPressure,
    boolean stopWhenSourceEnds,
    QueryLimits limits,
    SpyglassClock clock) {

  public EngineConfig {
    require(workers >= 1 && workers <= 1024, "workers must be between 1 and 1024: " + workers);
    require(batchRecords >= 1, "batchRecords must be at least 1: " + batchRecords);
    require(batchBytes >= 1, "batchBytes must be at least 1: " + batchBytes);
    require(queueBatches >= 1, "queueBatches must be at least 1: " + queueBatches);
    require(tickMs >= 0, "tickMs must not be negative: " + tickMs);
    require(maxQueries >= 1, "maxQueries must be at least 1: " + maxQueries);
    require(resultQueue >= 1, "resultQueue must be at least 1: " + resultQueue);
    require(
        resultQueueRecords >= 1, "resultQueueRecords must be at least 1: " + resultQueueRecords);
    require(limits != null && clock != null, "limits and clock are required");
  }

  /** The settings before {@code resultQueueRecords} and {@code resultBackPressure} existed. */
  public EngineConfig(
      int workers,
      int batchRecords,
      int batchBytes,
      int queueBatches,
      long tickMs,
      int maxQueries,
      int resultQueue,
      boolean stopWhenSourceEnds,
      QueryLimits limits,
      LongSupplier clock) {
    this(
        workers,
        batchRecords,
        batchBytes,
        queueBatches,
        tickMs,
        maxQueries,
        resultQueue,
        DEFAULT_RESULT_QUEUE_RECORDS,
        false,
        stopWhenSourceEnds,
        limits,
        clock == null ? null : SpyglassClock.ofWall(clock));
  }

  private static final int DEFAULT_RESULT_QUEUE_RECORDS = 32_768;

  private static void require(boolean ok, String message) {
    if (!ok) {
      throw new IllegalArgumentException(message);
    }
  }

  /**
   * One worker per core, batches of 64 KiB (at most 512 records), 4 batches queued per worker,
   * ticks every 100 ms, 20,000 queries at most, 1,024 unread results and 32,768 unread records per
   * subscriber, which is cut off beyond.
   */
  public static EngineConfig defaults() {
    return new EngineConfig(
        Runtime.getRuntime().availableProcessors(),
        512,
        64 * 1024,
        4,
        100,
        20_000,
        1_024,
        DEFAULT_RESULT_QUEUE_RECORDS,
        false,
        true,
        QueryLimits.DEFAULTS,
        SpyglassClock.system());
  }

  public EngineConfig withWorkers(int n) {
    return edit(b -> b.workers = n);
  }

  public EngineConfig withTickMs(long ms) {
    return edit(b -> b.tickMs = ms);
  }

  public EngineConfig withMaxQueries(int n) {
    return edit(b -> b.maxQueries = n);
  }

  public EngineConfig withResultQueue(int n) {
    return edit(b -> b.resultQueue = n);
  }

  public EngineConfig withBatchRecords(int n) {
    return edit(b -> b.batchRecords = n);
  }

  public EngineConfig withBatchBytes(int n) {
    return edit(b -> b.batchBytes = n);
  }

  public EngineConfig withQueueBatches(int n) {
    return edit(b -> b.queueBatches = n);
  }

  public EngineConfig withResultQueueRecords(int n) {
    return edit(b -> b.resultQueueRecords = n);
  }

  public EngineConfig withResultBackPressure(boolean backPressure) {
    return edit(b -> b.resultBackPressure = backPressure);
  }

  public EngineConfig withStopWhenSourceEnds(boolean stop) {
    return edit(b -> b.stopWhenSourceEnds = stop);
  }

  public EngineConfig withLimits(QueryLimits l) {
    return edit(b -> b.limits = l);
  }

  /** The engine clock; the machine's monotonic clock for waits. */
  public EngineConfig withClock(LongSupplier c) {
    return withClock(SpyglassClock.ofWall(c));
  }

  public EngineConfig withClock(SpyglassClock c) {
    return edit(b -> b.clock = c);
  }

  private EngineConfig edit(Consumer<Editor> change) {
    Editor e = new Editor(this);
    change.accept(e);
    return e.build();
  }

  /** The settings, mutable, for the {@code with} methods. */
  private static final class Editor {
    int workers;
    int batchRecords;
    int batchBytes;
    int queueBatches;
    long tickMs;
    int maxQueries;
    int resultQueue;
    int resultQueueRecords;
    boolean resultBackPressure;
    boolean stopWhenSourceEnds;
    QueryLimits limits;
    SpyglassClock clock;

    Editor(EngineConfig c) {
      workers = c.workers;
      batchRecords = c.batchRecords;
      batchBytes = c.batchBytes;
      queueBatches = c.queueBatches;
      tickMs = c.tickMs;
      maxQueries = c.maxQueries;
      resultQueue = c.resultQueue;
      resultQueueRecords = c.resultQueueRecords;
      resultBackPressure = c.resultBackPressure;
      stopWhenSourceEnds = c.stopWhenSourceEnds;
      limits = c.limits;
      clock = c.clock;
    }

    EngineConfig build() {
      return new EngineConfig(
          workers,
          batchRecords,
          batchBytes,
          queueBatches,
          tickMs,
          maxQueries,
          resultQueue,
          resultQueueRecords,
          resultBackPressure,
          stopWhenSourceEnds,
          limits,
          clock);
    }
  }
}
