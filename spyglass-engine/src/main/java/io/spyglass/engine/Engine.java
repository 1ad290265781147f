package io.spyglass.engine;

import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.query.Query;
import io.spyglass.core.query.QueryCombiner;
import io.spyglass.core.run.CheckedQuery;
import io.spyglass.core.syntax.BqlException;
import io.spyglass.sources.BadInput;
import io.spyglass.sources.Source;
import java.io.IOException;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Spyglass in one process: a reader thread polls the {@link Source} into small batches (about 64
 * KiB), which wait in one queue for the next free filter worker (one per core by default); a worker
 * parses and filters a batch against every running query, and a combiner thread merges partials,
 * closes windows and hands results to each query's {@link QueryHandle}.
 *
 * <pre>{@code
 * try (Engine engine = Engine.start(Sources.open("gen"), EngineConfig.defaults())) {
 *   QueryHandle q = engine.submit("SELECT COUNT(*) FROM STREAM(5s, TIME)");
 *   Result r = q.poll(10, TimeUnit.SECONDS);
 * }
 * }</pre>
 *
 * <p>Bounded everywhere, so memory stays flat whatever the source's speed: a fixed pool of batches
 * throttles the reader when workers fall behind; workers wait when the combiner's inbox is full;
 * each query's results wait in a queue bounded in results and records, whose subscriber is cut off
 * when it leaves it full or, with {@link EngineConfig#resultBackPressure()}, holds up the reader
 * until it catches up. Commands to workers are bounded by the number of queries.
 *
 * <p>The engine is the façade: it builds its parts, each given what it uses and never the engine
 * ({@link Reader}, {@link Worker}s, {@link Combiner}, {@link Barriers}, each {@link QueryHandle}
 * through a {@link QueryContext}), wires them, owns their threads, and answers for them.
 *
 * <p>Thread-safe.
 */
public final class Engine implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Engine.class);

  /**
   * The logger of source failures, apart from the engine's own so that a program that reports
   * {@link #sourceError()} itself can silence it.
   */
  public static final String SOURCE_LOGGER = Reader.SOURCE_LOGGER;

  private final EngineConfig config;
  private final Source source;
  private final Closing closing = new Closing();
  private final EngineStats stats;
  private final SourceStatus sourceStatus;
  private final RunningQueries queries;
  private final CombinerInbox inbox;
  private final BatchPool batches;
  private final QueryContext queryContext;
  private final Workers workers;
  private final Combiner combiner;
  private final Barriers barriers;
  private final Reader reader;
  private final AtomicLong nextId = new AtomicLong();
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final EngineThreads threads;
  private boolean readerStarted;
  private volatile Throwable failure;
  private volatile String failedThread;

  private Engine(Source source, EngineConfig config) {
    this.config = config;
    this.source = source;
    int n = config.workers();
    this.stats = new EngineStats(source, config.clock());
    this.sourceStatus = new SourceStatus(source);
    this.queries = new RunningQueries(n, config.maxQueries());
    this.inbox = new CombinerInbox(n);
    Backlog backlog = new Backlog(closing);
    this.queryContext = new QueryContext(inbox, queries, backlog, config.clock());
    this.batches =
        new BatchPool(n, config.queueBatches(), config.batchBytes(), config.batchRecords());
    Worker[] each = new Worker[n];
    for (int i = 0; i < n; i++) {
      each[i] = new Worker(i, config, source.maxRecordBytes(), batches, inbox, queries, stats);
    }
    this.workers = new Workers(each);
    this.combiner =
        new Combiner(config, inbox, workers, queries, stats, sourceStatus, this::sourceDrained);
    this.barriers = new Barriers(closing, batches, source, inbox);
    this.reader =
        new Reader(
            config, source, sourceStatus, batches, stats, barriers, backlog, workers, closing);
    this.threads =
        new EngineThreads(
            reader, combiner, each, config.tickMs(), () -> inbox.tick(false), this::failed);
  }

  /**
   * A failure of the engine itself (not of one query: those end with an error result and the others
   * go on): every running query ends with a final result carrying the error, and the engine stops.
   */
  private void failed(Thread where, Throwable error) {
    synchronized (this) {
      if (failure != null || stopped.getCount() == 0) {
        LOG.error("after the engine stopped, {} failed", where.getName(), error);
        return;
      }
      failure = error;
      failedThread = where.getName();
    }
    LOG.error("the engine failed in {}; every query is stopped", where.getName(), error);
    // final results first: whatever the combiner emits after them is dropped
    String message = "The engine failed (" + describe(error) + " in " + where.getName() + ")";
    for (QueryHandle h : queries.handles()) {
      h.abort(message);
    }
    shutdown();
  }

  private static String describe(Throwable e) {
    return e.getMessage() == null
        ? e.getClass().getSimpleName()
        : e.getClass().getSimpleName() + ": " + e.getMessage();
  }

  /**
   * Why the engine failed, or null: an exception that was not one query's (those end only their
   * query), thrown by the reader, a worker, the combiner or the ticker. The engine has then
   * stopped, and every query that was running ended with a final result carrying the error. A
   * process embedding the engine should report it and exit with a non-zero status.
   */
  public Throwable failure() {
    return failure;
  }

  /** The failure, as one line for people; null when the engine did not fail. */
  public String failureMessage() {
    Throwable f = failure;
    return f == null ? null : describe(f) + " in " + failedThread;
  }

  /** Starts an engine reading {@code source}. The engine owns the source and closes it. */
  public static Engine start(Source source, EngineConfig config) {
    Engine e = startPaused(source, config);
    e.resume();
    return e;
  }

  /**
   * Starts an engine that does not read its source until {@link #resume()}: submit the first
   * queries, {@link QueryHandle#awaitRunning await} them, then resume, and no record is read before
   * they run (a short file is not over before its queries start).
   */
  public static Engine startPaused(Source source, EngineConfig config) {
    Engine e = new Engine(source, config);
    e.threads.start();
    return e;
  }

  /** Starts reading the source, if not already. */
  public synchronized void resume() {
    if (!readerStarted) {
      readerStarted = true;
      barriers.readerStarted();
      threads.startReader();
    }
  }

  public EngineConfig config() {
    return config;
  }

  /**
   * Starts a query over the records read from now on.
   *
   * @throws BqlException when the text is not a valid query (with positions and resolutions)
   * @throws IllegalStateException when {@link EngineConfig#maxQueries()} queries are running, or
   *     the engine has stopped
   */
  public QueryHandle submit(String bql) {
    return submit("q" + nextId.incrementAndGet(), bql);
  }

  /** Starts a query with a chosen id, which must not be running already. */
  public QueryHandle submit(String id, String bql) {
    return submit(id, bql, SubmitOptions.DEFAULTS);
  }

  /**
   * How a query starts: now and empty (the defaults), or going on from a saved state.
   *
   * @param receiveTimeMs when the query started, on the engine clock; -1 for now. A query that goes
   *     on from a saved state keeps its first start
   * @param restore a {@link io.spyglass.core.query.QueryCombiner#snapshot()} of the same query to
   *     go on from (e.g. from a {@link Checkpoint}); null to start empty. A state that does not fit
   *     the query ends it with an error saying so
   * @param backPressure whether this query's results are never dropped: the engine stops reading
   *     its source while they wait unread (see {@link EngineConfig#resultBackPressure()}, which
   *     sets it for every query)
   * @param limits the limits this query's text is checked and run with (e.g. fewer exact groups
   *     than others); null for the engine's ({@link EngineConfig#limits()}). A {@link CheckedQuery}
   *     brings its own
   */
  public record SubmitOptions(
      long receiveTimeMs, byte[] restore, boolean backPressure, QueryLimits limits) {
    public static final SubmitOptions DEFAULTS = new SubmitOptions(-1, null, false);

    /** Under the engine's limits. */
    public SubmitOptions(long receiveTimeMs, byte[] restore, boolean backPressure) {
      this(receiveTimeMs, restore, backPressure, null);
    }
  }

  /**
   * Starts a query with a chosen id, which must not be running already, as {@code options} say: its
   * text is checked here under {@link SubmitOptions#limits()} (or the engine's).
   *
   * @throws BqlException when the text is not a valid query
   * @throws IllegalStateException when too many queries run, or the engine has stopped
   */
  public QueryHandle submit(String id, String bql, SubmitOptions options) {
    requireRunning();
    QueryLimits limits = options.limits() != null ? options.limits() : config.limits();
    return submit(id, CheckedQuery.check(bql, limits), options);
  }

  /** Starts a checked query with a chosen id, which must not be running already. */
  public QueryHandle submit(String id, CheckedQuery query) {
    return submit(id, query, SubmitOptions.DEFAULTS);
  }

  /**
   * Starts a checked query with a chosen id, which must not be running already, as {@code options}
   * say: its plan runs as it is, under its own limits ({@link SubmitOptions#limits()} is not used),
   * without compiling its text again.
   *
   * @throws IllegalStateException when too many queries run, or the engine has stopped
   */
  public QueryHandle submit(String id, CheckedQuery checked, SubmitOptions options) {
    requireRunning();
    long receivedMs =
        options.receiveTimeMs() >= 0 ? options.receiveTimeMs() : config.clock().getAsLong();
    Query query = checked.toQuery(id, receivedMs);
    QueryHandle h = new QueryHandle(query, config, queryContext, options.backPressure());
    queries.admit(h);
    stats.started();
    inbox.start(h, options.restore());
    return h;
  }

  private void requireRunning() {
    if (closing.isSet() || stopped.getCount() == 0) {
      throw new IllegalStateException("The engine has stopped; start a new one to run queries");
    }
  }

  /**
   * A consistent cut of the stream: every record the source handed out before {@code position} was
   * processed and merged into the saved states, and none after it.
   *
   * @param position the source's {@link Source#position()} at the cut (-1 for a source that has
   *     none)
   * @param queries each query's state at the cut, by id
   */
  public record Checkpoint(long position, Map<String, QueryState> queries) {}

  /**
   * One query's state at a {@link Checkpoint}.
   *
   * @param snapshot its {@link io.spyglass.core.query.QueryCombiner#snapshot()}, to {@link
   *     SubmitOptions#restore()} it from
   * @param emitted the results its handle had been offered by then ({@link QueryHandle#emitted()}):
   *     results up to this count came from records before the cut
   */
  public record QueryState(byte[] snapshot, long emitted) {}

  /** What a checkpoint does at its cut, on the reader thread: which queries to save. */
  @FunctionalInterface
  public interface AtCut {
    /**
     * Called while reading is paused at {@code position}, with every record before it processed:
     * the place to start queries that must begin exactly there (they see the records after it).
     *
     * @return the ids of the queries whose state to save
     */
    Collection<String> at(long position);
  }

  /**
   * Takes a checkpoint: reading pauses between two polls of the source, the workers finish every
   * batch read, {@code atCut} runs, every partial is merged, the queries it names are saved, and
   * reading resumes. The pause lasts a flush of the workers (a few milliseconds).
   *
   * <p>Restarting from a checkpoint: open the source again at {@link Checkpoint#position()}, and
   * submit each saved query with {@link SubmitOptions#restore()} before reading resumes ({@link
   * #startPaused}); every record is then counted once.
   *
   * @return completes with the checkpoint, or fails when the engine stops first
   */
  public CompletableFuture<Checkpoint> checkpoint(AtCut atCut) {
    return barriers.checkpoint(atCut);
  }

  /**
   * Runs {@code look} on a query's combiner once the partials of every record processed so far are
   * merged (after a flush of the workers; reading goes on meanwhile), on the combiner thread: e.g.
   * to read its open windows. The combiner must not be kept beyond the call.
   *
   * @return completes with what {@code look} returns, with null when the query is not running, or
   *     fails when the engine stops first
   */
  public <T> CompletableFuture<T> inspect(String queryId, Function<QueryCombiner, T> look) {
    return barriers.inspect(queryId, look);
  }

  /**
   * Sees raw records as they are read, one in {@code everyN}: for example to infer the stream's
   * fields. Replaces any sampler set before; null stops sampling.
   *
   * @param everyN at least 1
   * @param sampler called on the reader thread with one record's bytes, valid only during the call;
   *     it must return at once (copy the bytes and hand them to another thread)
   */
  public void sampleRecords(int everyN, RecordSampler sampler) {
    if (everyN < 1) {
      throw new IllegalArgumentException("everyN must be at least 1: " + everyN);
    }
    reader.sampleRecords(everyN, sampler);
  }

  /** Sees one record's bytes, on the reader thread. */
  @FunctionalInterface
  public interface RecordSampler {
    void sample(byte[] data, int offset, int length);
  }

  /** Runs a tick now: flushes workers, closes due windows, ends expired queries. */
  public void tick() {
    inbox.tick(false);
  }

  /** Ends every running query now; each emits its final result. */
  public void finishAll() {
    inbox.tick(true);
  }

  /**
   * Input skipped since the engine started, by reason, with the places of the first few: what the
   * source skipped (lines over its size limit) and what the workers could not read as records.
   */
  public BadInput.Snapshot badInput() {
    return stats.badInput();
  }

  private void sourceDrained() {
    LOG.debug("source {} ended; every query finished", source.describe());
    shutdown();
  }

  /**
   * What keeps the source from reading now (a broker that does not answer, a topic deleted), or
   * null; see {@link Source#problem()}. Every result emitted while it lasts carries it as a
   * non-fatal error.
   */
  public String sourceProblem() {
    return sourceStatus.problem();
  }

  /**
   * Why the source stopped with an error, or null. The engine then stops, and every query that was
   * running ended with a final result carrying this error.
   */
  public String sourceError() {
    return sourceStatus.error();
  }

  /**
   * Whether the source has ended (a file read to its end, stdin closed) or failed: no record will
   * be read any more. An engine that does not {@link EngineConfig#stopWhenSourceEnds() stop when
   * its source ends} goes on taking queries, which see nothing.
   */
  public boolean sourceEnded() {
    return sourceStatus.hasEnded();
  }

  /** The mean size of the records read so far, in bytes of JSON; 1 KiB before the first. */
  public long meanRecordBytes() {
    return stats.meanRecordBytes();
  }

  /** A snapshot of the engine's counters. */
  public EngineMetrics metrics() {
    return stats.metrics(batches.queued(), queries.count(), queries.summed());
  }

  /** Queries running now. */
  public List<Query> running() {
    return queries.queries();
  }

  /** Waits until the engine stops (its bounded source ended, or it was closed). */
  public boolean awaitStopped(long timeout, TimeUnit unit) throws InterruptedException {
    return stopped.await(timeout, unit);
  }

  public boolean isStopped() {
    return stopped.getCount() == 0;
  }

  private synchronized void shutdown() {
    if (stopped.getCount() == 0) {
      return;
    }
    closing.set();
    workers.stop();
    threads.interrupt();
    combiner.stop();
    barriers.failAll();
    try {
      source.close();
    } catch (IOException e) {
      LOG.warn("closing source {}: {}", source.describe(), e.toString());
    }
    stopped.countDown();
  }

  /** Stops the engine at once; running queries end without a final result. */
  @Override
  public void close() {
    shutdown();
    try {
      threads.awaitCombiner(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
