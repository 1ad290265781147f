package io.spyglass.engine;

import io.spyglass.core.partial.Partial;
import io.spyglass.core.query.FilterSet;
import io.spyglass.core.query.PartialSink;
import io.spyglass.core.query.Query;
import io.spyglass.core.query.QueryStats;
import io.spyglass.core.record.JsonRecordReader;
import io.spyglass.core.record.MalformedRecordException;
import io.spyglass.core.record.Record;
import io.spyglass.sources.RawBatch;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A filter worker: takes the next batch any worker may take from the engine's queue and reads each
 * record through its {@link FilterSet} ({@link FilterSet#read}: scanned, ruled out from its bytes
 * when no query can match it, else only the fields its queries need decoded), then offers it.
 * Partials go to the combiner as copies. Commands (add or remove a query, flush) are taken between
 * batches, so a batch is never interleaved with them.
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
  private final BlockingQueue<RawBatch> batches;
  private final BlockingQueue<Command> commands;
  private final Engine engine;
  private final FilterSet filters;
  private final Record record = new Record(128);
  private volatile boolean stop;

  Worker(int id, BlockingQueue<RawBatch> batches, Engine engine) {
    this.id = id;
    this.batches = batches;
    this.engine = engine;
    this.commands = new ArrayBlockingQueue<>(commandCapacity(engine.config().maxQueries()));
    this.filters =
        new FilterSet(
            engine.config().limits(),
            JsonRecordReader.Limits.forRecordBytes(engine.maxRecordBytes()),
            engine.config().clock(),
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
    engine.partialStats(id, query.id(), filters.stats(query.id()));
    engine.combiner().partial(query, copy);
  }

  @Override
  public void failed(Query query, Throwable error) {
    engine.combiner().failed(query.id(), error);
  }

  @Override
  public void run() {
    try {
      while (!stop) {
        if (runCommands()) {
          return;
        }
        RawBatch batch = batches.poll(5, TimeUnit.MILLISECONDS);
        if (batch != null) {
          process(batch);
          engine.recycle(batch);
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
        engine.combiner().added(((Add) c).query().id());
      } else if (c instanceof Remove) {
        Remove r = (Remove) c;
        filters.remove(r.queryId());
        if (r.workersLeft().decrementAndGet() == 0) {
          engine.released();
        }
      } else if (c instanceof Flush) {
        filters.flush();
        publishStats();
        engine.combiner().flushed(id, ((Flush) c).tickMs());
      } else if (c instanceof Drain) {
        RawBatch batch;
        while ((batch = batches.poll()) != null) {
          process(batch);
          engine.recycle(batch);
        }
        filters.flush();
        publishStats();
        engine.combiner().drained(id);
        return true;
      }
    }
    return false;
  }

  private void publishStats() {
    Map<String, QueryStats> stats = filters.stats();
    engine.publishStats(id, stats);
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
        engine.badRecord(e.reason(), batch.where(i));
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
    engine.processed(n - malformed, malformed, readMs);
  }
}
