package io.spyglass.engine;

import io.spyglass.sources.RawBatch;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The engine's batches: a fixed pool of them, free or read and waiting for a worker. The reader
 * takes a free one (waiting when none is: workers that fall behind throttle it), fills it and puts
 * it in the ready queue; the next free worker takes the next ready batch and gives it back when it
 * has processed it. Memory stays flat whatever the source's speed.
 *
 * <p>Thread-safe.
 */
final class BatchPool {
  private final BlockingQueue<RawBatch> free;

  /** Batches read and waiting for a worker: the next free worker takes the next batch. */
  private final BlockingQueue<RawBatch> ready;

  private final int size;

  /**
   * {@code workers * (queueBatches + 2)} batches of {@code batchBytes} (and a little room) and
   * {@code batchRecords}: {@code queueBatches} per worker may wait, and each worker may hold two.
   */
  BatchPool(int workers, int queueBatches, int batchBytes, int batchRecords) {
    this.size = workers * (queueBatches + 2);
    this.free = new ArrayBlockingQueue<>(size);
    this.ready = new ArrayBlockingQueue<>(workers * queueBatches);
    for (int i = 0; i < size; i++) {
      free.add(new RawBatch(batchBytes + 4096, batchRecords));
    }
  }

  /** A free batch, emptied; waits until one is (the reader). */
  RawBatch takeFree() throws InterruptedException {
    RawBatch b = free.take();
    b.clear();
    return b;
  }

  /** Queues a batch read for the workers, waiting while the queue is full (the reader). */
  void ready(RawBatch b) throws InterruptedException {
    ready.put(b);
  }

  /** The next batch read, waiting at most {@code ms}; null when none came (a worker). */
  RawBatch next(long ms) throws InterruptedException {
    return ready.poll(ms, TimeUnit.MILLISECONDS);
  }

  /** The next batch read, or null at once (a worker draining the queue). */
  RawBatch nextNow() {
    return ready.poll();
  }

  /** Gives a batch back to the pool, emptied. */
  void recycle(RawBatch b) {
    b.clear();
    free.offer(b);
  }

  /** Whether every batch is back in the pool: every record read was processed by a worker. */
  boolean everyBatchReturned() {
    return free.size() == size;
  }

  /** Batches read and not yet taken by a worker: the engine's lag behind its source. */
  int queued() {
    return ready.size();
  }
}
