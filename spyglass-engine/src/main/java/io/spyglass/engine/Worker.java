package io.spyglass.engine;

import io.spyglass.core.partial.Partial;
import io.spyglass.core.query.FilterSet;
import io.spyglass.core.query.PartialSink;
import io.spyglass.core.query.Query;
import io.spyglass.core.record.JsonRecordReader;
import io.spyglass.core.record.MalformedRecordException;
import io.spyglass.core.record.Record;
import io.spyglass.sources.RawBatch;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A filter worker: takes the next batch any worker may take from the engine's pool and reads each
 * record through its {@link FilterSet} ({@link FilterSet#read}: scanned, ruled out from its bytes
 * when no query can match it, else only the fields its queries need decoded), then offers it.
 * Partials go to the combiner's inbox as copies. Commands (add or remove a query, flush) are taken
 * between batches, so a batch is never interleaved with them.
 *
 * <p>It is given what it uses, not the engine: the batch pool, the combiner's inbox, the running
 * queries (their counters, and their places among {@link EngineConfig#maxQueries()}) and the
 * engine's counters; all final classes, so that the per-record loop calls nothing through an
 * interface it did not call before.
 *
 * <p>A query that throws here is dropped by the filter set and ended by the combiner with the
 * error; anything else thrown here is a failure of the engine (see {@link Engine#failure()}).
 */
final class Worker implements Runnable, PartialSink {
  /** Virtual field: when the engine read the record, epoch ms of the engine clock. */
  static final String READ_TIME = "_read_ms";

  static final String KAFKA_PARTITION = "_kafka_partition";
  static final String KAFKA_OFFSET = "_kafka_offset";
  static final String KAFKA_TIMESTAMP = "_kafka_timestamp";

  sealed interface Command {}

  record Add(Query query) implements Command {}

  /**
   * Drop a query; the last worker to do so counts down {@code workersLeft} to 0 and releases the
   * query's place among the engine's {@link EngineConfig#maxQueries()}.
   */
  record Remove(String queryId, AtomicInteger workersLeft) implements Command {}

  /** Flush every partial, publish statistics, then report {@code Flushed(tick)}. */
  record Flush(long tickMs) implements Command {}

  /** The source ended: process what is queued, flush, report, and stop. */
  record Drain() implements Command {}

  final int id;
  private final BatchPool batches;
  private final BlockingQueue<Command> commands;
  private final CombinerInbox combiner;
  private final RunningQueries queries;
  private final EngineStats stats;
  private final FilterSet filters;
  private final Record record = new Record(128);
  private volatile boolean stop;

  /**
   * @param maxRecordBytes the source's longest record ({@link
   *     io.spyglass.sources.Source#maxRecordBytes()})
   */
  Worker(
      int id,
      EngineConfig config,
      int maxRecordBytes,
      BatchPool batches,
      CombinerInbox combiner,
      RunningQueries queries,
      EngineStats stats) {
    this.id = id;
    this.batches = batches;
    this.combiner = combiner;
    this.queries = queries;
    this.stats = stats;
    this.commands = new ArrayBlockingQueue<>(commandCapacity(config.maxQueries()));
    this.filters =
        new FilterSet(
            config.limits(),
            JsonRecordReader.Limits.forRecordBytes(maxRecordBytes),
            config.clock(),
            this);
    filters.virtualFields(Set.of(READ_TIME, KAFKA_PARTITION, KAFKA_OFFSET, KAFKA_TIMESTAMP));
  }

  /**
   * Commands a worker may have waiting: an Add and a Remove for each query that counts as running
   * (a query counts until every worker removed it, so at most {@code maxQueries} do), one Flush
   * (the combiner asks for the next only when every worker answered) and one Drain.
   */
  static int commandCapacity(int maxQueries) {
    return 2 * maxQueries + 2;
  }

  /** Queues a command without waiting: the queue has room for every command there can be. */
  void command(Command c) {
    if (!commands.offer(c)) {
      throw new IllegalStateException(
          "worker " + id + " has " + commands.size() + " commands waiting, more than can be");
    }
  }

  void stop() {
    stop = true;
  }

  @Override
  public void accept(Query query, Partial partial) {
    Partial copy = partial.emptyCopy();
    copy.merge(partial);
    queries.partialStats(id, query.id(), filters.stats(query.id()));
    combiner.partial(query, copy);
  }

  @Override
  public void failed(Query query, Throwable error) {
    combiner.failed(query.id(), error);
  }

  @Override
  public void run() {
    try {
      while (!stop) {
        if (runCommands()) {
          return;
        }
        RawBatch batch = batches.next(5);
        if (batch != null) {
          process(batch);
          batches.recycle(batch);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Runs pending commands; returns true when the worker must end. */
  private boolean runCommands() throws InterruptedException {
    Command c;
    while ((c = commands.poll()) != null) {
      if (c instanceof Add) {
        filters.add(((Add) c).query());
        combiner.added(((Add) c).query().id());
      } else if (c instanceof Remove) {
        Remove r = (Remove) c;
        filters.remove(r.queryId());
        if (r.workersLeft().decrementAndGet() == 0) {
          queries.released();
        }
      } else if (c instanceof Flush) {
        filters.flush();
        publishStats();
        combiner.flushed(id, ((Flush) c).tickMs());
      } else if (c instanceof Drain) {
        RawBatch batch;
        while ((batch = batches.nextNow()) != null) {
          process(batch);
          batches.recycle(batch);
        }
        filters.flush();
        publishStats();
        combiner.drained(id);
        return true;
      }
    }
    return false;
  }

  private void publishStats() {
    queries.publishStats(id, filters.stats());
  }

  private void process(RawBatch batch) {
    long readMs = batch.readTimeMs();
    boolean positioned = batch.positioned();
    long malformed = 0;
    int n = batch.size();
    for (int i = 0; i < n; i++) {
      try {
        if (!filters.read(batch.array(i), batch.start(i), batch.length(i), record)) {
          continue; // no query can match it: ruled out from its bytes, never decoded
        }
      } catch (MalformedRecordException e) {
        malformed++;
        stats.badRecord(e.reason(), batch.where(i));
        continue;
      }
      record.putLong(READ_TIME, readMs);
      if (positioned) {
        record.putLong(KAFKA_PARTITION, batch.partition(i));
        record.putLong(KAFKA_OFFSET, batch.offset(i));
        record.putLong(KAFKA_TIMESTAMP, batch.timestamp(i));
      }
      filters.process(record);
    }
    filters.endOfBatch();
    stats.processed(n - malformed, malformed, readMs);
  }
}
