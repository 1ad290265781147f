package io.spyglass.engine;

import io.spyglass.core.query.QueryStats;
import io.spyglass.core.record.BadRecord;
import io.spyglass.sources.BadInput;
import io.spyglass.sources.RawBatch;
import io.spyglass.sources.Source;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * The engine's shared counters: what the reader read, what the workers processed and what they
 * could not read (by reason, with the places of the first few), the queries started and the results
 * emitted; and, from them, the {@link EngineMetrics}. Written by the reader, the workers, the
 * combiner and {@link Engine#submit}; read by anyone.
 *
 * <p>Thread-safe: adders for what many threads count, a lock only for the rate.
 */
final class EngineStats {
  private final Source source;
  private final LongSupplier clock;
  private final long startMs;
  private final LongAdder recordsRead = new LongAdder();
  private final LongAdder bytesRead = new LongAdder();
  private final LongAdder recordsProcessed = new LongAdder();
  private final LongAdder malformed = new LongAdder();

  /** What the workers could not read; the source counts what it skipped itself. */
  private final BadInput workerBadInput = new BadInput();

  private final LongAdder started = new LongAdder();
  private final LongAdder emitted = new LongAdder();
  private volatile long lastReadToProcessedMs;

  // guarded by this
  private long lastSnapshotMs;
  private long lastSnapshotRecords;
  private double lastRate = -1;

  /**
   * @param source the source read, for what it skipped itself
   * @param clock the engine clock
   */
  EngineStats(Source source, LongSupplier clock) {
    this.source = source;
    this.clock = clock;
    this.startMs = clock.getAsLong();
    this.lastSnapshotMs = startMs;
  }

  /** The reader read a batch. */
  void read(RawBatch b) {
    recordsRead.add(b.size());
    bytesRead.add(b.bytes());
  }

  /** A worker processed a batch read at {@code readMs}: so many records, so many bad. */
  void processed(long records, long bad, long readMs) {
    recordsProcessed.add(records);
    malformed.add(bad);
    lastReadToProcessedMs = Math.max(0, clock.getAsLong() - readMs);
  }

  /** A worker could not read a record, at {@code where} in the input. */
  void badRecord(BadRecord reason, String where) {
    workerBadInput.add(reason, where);
  }

  void started() {
    started.increment();
  }

  void emitted() {
    emitted.increment();
  }

  /** See {@link Engine#badInput()}. */
  BadInput.Snapshot badInput() {
    return source.badInput().plus(workerBadInput.snapshot());
  }

  /** See {@link Engine#meanRecordBytes()}. */
  long meanRecordBytes() {
    long n = recordsRead.sum();
    return n == 0 ? 1024 : Math.max(1, bytesRead.sum() / n);
  }

  /**
   * A snapshot of the counters, with what the engine's other parts know now: batches waiting for a
   * worker, queries running, and each running query's counters.
   */
  synchronized EngineMetrics metrics(
      int queuedBatches, int runningQueries, Map<String, QueryStats> queries) {
    long now = clock.getAsLong();
    long processed = recordsProcessed.sum();
    if (now - lastSnapshotMs >= 1000 || lastRate < 0) {
      // the rate over the last second or more; callers within the same second share it
      lastRate =
          now > lastSnapshotMs
              ? (processed - lastSnapshotRecords) * 1000.0 / (now - lastSnapshotMs)
              : 0;
      lastSnapshotMs = now;
      lastSnapshotRecords = processed;
    }
    return new EngineMetrics(
        now - startMs,
        lastRate,
        recordsRead.sum(),
        bytesRead.sum(),
        processed,
        malformed.sum(),
        source.skipped(),
        queuedBatches,
        lastReadToProcessedMs,
        runningQueries,
        started.sum(),
        emitted.sum(),
        queries,
        badInput().byKey());
  }
}
