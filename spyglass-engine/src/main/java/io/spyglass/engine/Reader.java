package io.spyglass.engine;

import io.spyglass.engine.Engine.RecordSampler;
import io.spyglass.sources.RawBatch;
import io.spyglass.sources.Source;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reader thread: polls the source into free batches of about {@link EngineConfig#batchBytes()}
 * and queues them for the workers; between two polls it serves the checkpoints' barriers and waits
 * while a subscriber under back-pressure is behind. When the source ends (or fails) it tells the
 * workers to drain.
 *
 * <p>It is given what it uses, not the engine: the source and what became of it, the batch pool,
 * the engine's counters, the barriers, the back-pressure, the workers (to drain them) and whether
 * the engine closes.
 */
final class Reader implements Runnable {
  /** See {@link Engine#SOURCE_LOGGER}. */
  static final String SOURCE_LOGGER = "io.spyglass.engine.Engine.source";

  private static final Logger LOG = LoggerFactory.getLogger(Reader.class);
  private static final Logger SOURCE_LOG = LoggerFactory.getLogger(SOURCE_LOGGER);

  private final EngineConfig config;
  private final Source source;
  private final SourceStatus status;
  private final BatchPool batches;
  private final EngineStats stats;
  private final Barriers barriers;
  private final Backlog backlog;
  private final Workers workers;
  private final Closing closing;
  private volatile Sampling sampler;
  private long recordsSeenBySampler;
  private long nextSample;

  Reader(
      EngineConfig config,
      Source source,
      SourceStatus status,
      BatchPool batches,
      EngineStats stats,
      Barriers barriers,
      Backlog backlog,
      Workers workers,
      Closing closing) {
    this.config = config;
    this.source = source;
    this.status = status;
    this.batches = batches;
    this.stats = stats;
    this.barriers = barriers;
    this.backlog = backlog;
    this.workers = workers;
    this.closing = closing;
  }

  private record Sampling(int everyN, RecordSampler sampler) {}

  /** See {@link Engine#sampleRecords}: {@code everyN} checked, null stops sampling. */
  void sampleRecords(int everyN, RecordSampler s) {
    this.sampler = s == null ? null : new Sampling(everyN, s);
  }

  @Override
  public void run() {
    try {
      readSource();
    } finally {
      barriers.readerEnded();
    }
  }

  private void readSource() {
    // records per batch for about batchBytes a batch, by a moving average of the record size
    double recordBytes = 1024;
    int perBatch = recordsPerBatch(recordBytes);
    try {
      while (!closing.isSet()) {
        barriers.serveWaiting();
        backlog.awaitSubscribers();
        RawBatch b = batches.takeFree();
        boolean more = source.poll(b, perBatch, 50);
        if (b.isEmpty()) {
          batches.recycle(b);
        } else {
          b.readTimeMs(config.clock().getAsLong());
          stats.read(b);
          recordBytes += ((double) b.bytes() / b.size() - recordBytes) / 8;
          sample(b);
          perBatch = recordsPerBatch(recordBytes);
          batches.ready(b);
        }
        if (!more) {
          status.ended();
          if (config.stopWhenSourceEnds()) {
            workers.broadcast(new Worker.Drain());
          }
          return;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException | RuntimeException e) {
      if (closing.isSet()) {
        // a source closed under a poll may throw (Kafka's InterruptException): a normal end
        LOG.debug("source {} ended on close: {}", source.describe(), e.toString());
        return;
      }
      status.failed(e.getMessage() == null ? e.toString() : e.getMessage());
      SOURCE_LOG.error("source {} failed: {}", source.describe(), e.toString());
      // nothing more will come: every query ends with what it has and the error, and the engine
      // stops, whether or not it stops at a normal end of its source
      workers.broadcast(new Worker.Drain());
    }
  }

  private int recordsPerBatch(double recordBytes) {
    return (int) Math.max(1, Math.min(config.batchRecords(), config.batchBytes() / recordBytes));
  }

  /** Hands the sampler every {@code everyN}-th record of a batch just read. */
  private void sample(RawBatch b) {
    Sampling s = sampler;
    if (s == null) {
      return;
    }
    long first = recordsSeenBySampler;
    long end = first + b.size();
    long next = Math.max(nextSample, first);
    for (; next < end; next += s.everyN()) {
      int i = (int) (next - first);
      s.sampler().sample(b.array(i), b.start(i), b.length(i));
    }
    nextSample = next;
    recordsSeenBySampler = end;
  }
}
