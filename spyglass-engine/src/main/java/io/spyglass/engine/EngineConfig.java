package io.spyglass.engine;

import io.spyglass.core.plan.QueryLimits;
import java.util.function.LongSupplier;

/**
 * Settings of an embedded {@link Engine}, validated when built. Every setting has a default; see
 * {@link #defaults()}.
 *
 * @param workers filter worker threads; default: one per available core
 * @param batchRecords most records a source poll puts in one batch
 * @param queueBatches batches waiting per worker before the reader blocks (backpressure)
 * @param tickMs how often time windows and durations are checked; 0 disables the timer, leaving
 *     ticks to {@link Engine#tick()} (tests)
 * @param maxQueries most queries running at once; more are refused with an error
 * @param resultQueue results a subscriber may leave unread before it is cut off
 * @param stopWhenSourceEnds whether the end of a bounded source finishes every query and stops
 * @param limits per-query defaults and maxima (durations, sizes, emit rate)
 * @param clock the engine clock in epoch milliseconds
 */
public record EngineConfig(
    int workers,
    int batchRecords,
    int queueBatches,
    long tickMs,
    int maxQueries,
    int resultQueue,
    boolean stopWhenSourceEnds,
    QueryLimits limits,
    LongSupplier clock) {

  public EngineConfig {
    require(workers >= 1 && workers <= 1024, "workers must be between 1 and 1024: " + workers);
    require(batchRecords >= 1, "batchRecords must be at least 1: " + batchRecords);
    require(queueBatches >= 1, "queueBatches must be at least 1: " + queueBatches);
    require(tickMs >= 0, "tickMs must not be negative: " + tickMs);
    require(maxQueries >= 1, "maxQueries must be at least 1: " + maxQueries);
    require(resultQueue >= 1, "resultQueue must be at least 1: " + resultQueue);
    require(limits != null && clock != null, "limits and clock are required");
  }

  private static void require(boolean ok, String message) {
    if (!ok) {
      throw new IllegalArgumentException(message);
    }
  }

  /** One worker per core, batches of 512, ticks every 100 ms, 20,000 queries at most. */
  public static EngineConfig defaults() {
    return new EngineConfig(
        Runtime.getRuntime().availableProcessors(),
        512,
        4,
        100,
        20_000,
        1_024,
        true,
        QueryLimits.DEFAULTS,
        System::currentTimeMillis);
  }

  public EngineConfig withWorkers(int n) {
    return new EngineConfig(
        n,
        batchRecords,
        queueBatches,
        tickMs,
        maxQueries,
        resultQueue,
        stopWhenSourceEnds,
        limits,
        clock);
  }

  public EngineConfig withTickMs(long ms) {
    return new EngineConfig(
        workers,
        batchRecords,
        queueBatches,
        ms,
        maxQueries,
        resultQueue,
        stopWhenSourceEnds,
        limits,
        clock);
  }

  public EngineConfig withMaxQueries(int n) {
    return new EngineConfig(
        workers,
        batchRecords,
        queueBatches,
        tickMs,
        n,
        resultQueue,
        stopWhenSourceEnds,
        limits,
        clock);
  }

  public EngineConfig withResultQueue(int n) {
    return new EngineConfig(
        workers,
        batchRecords,
        queueBatches,
        tickMs,
        maxQueries,
        n,
        stopWhenSourceEnds,
        limits,
        clock);
  }

  public EngineConfig withBatchRecords(int n) {
    return new EngineConfig(
        workers,
        n,
        queueBatches,
        tickMs,
        maxQueries,
        resultQueue,
        stopWhenSourceEnds,
        limits,
        clock);
  }

  public EngineConfig withStopWhenSourceEnds(boolean stop) {
    return new EngineConfig(
        workers, batchRecords, queueBatches, tickMs, maxQueries, resultQueue, stop, limits, clock);
  }

  public EngineConfig withLimits(QueryLimits l) {
    return new EngineConfig(
        workers,
        batchRecords,
        queueBatches,
        tickMs,
        maxQueries,
        resultQueue,
        stopWhenSourceEnds,
        l,
        clock);
  }

  public EngineConfig withClock(LongSupplier c) {
    return new EngineConfig(
        workers,
        batchRecords,
        queueBatches,
        tickMs,
        maxQueries,
        resultQueue,
        stopWhenSourceEnds,
        limits,
        c);
  }
}
