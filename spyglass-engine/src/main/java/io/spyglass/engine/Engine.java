package io.spyglass.engine;

import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.query.Query;
import io.spyglass.core.query.QueryCombiner;
import io.spyglass.core.query.QueryStats;
import io.spyglass.core.record.BadRecord;
import io.spyglass.core.run.CheckedQuery;
import io.spyglass.core.syntax.BqlException;
import io.spyglass.sources.BadInput;
import io.spyglass.sources.RawBatch;
import io.spyglass.sources.Source;
import java.io.IOException;
import java.util.AbstractMap;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
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
 * <p>Thread-safe.
 */
public final class Engine implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Engine.class);

  /**
   * The logger of source failures, apart from the engine's own so that a program that reports
   * {@link #sourceError()} itself can silence it.
   */
  public static final String SOURCE_LOGGER = Engine.class.getName() + ".source";

  private static final Logger SOURCE_LOG = LoggerFactory.getLogger(SOURCE_LOGGER);

  private final EngineConfig config;
  private final Source source;
  private final Worker[] workers;
  private final Combiner combiner;
  private final BlockingQueue<RawBatch> free;

  /** Batches read and waiting for a worker: the next free worker takes the next batch. */
  private final BlockingQueue<RawBatch> ready;

  private final Map<Integer, Map<String, QueryStats>> stats = new ConcurrentHashMap<>();

  /**
   * The running queries; each handle keeps, by worker, the query's counters when the worker last
   * handed on a partial of it, fresher than the last tick's for a query that ends between two ticks
   * (a LIMIT reached).
   */
  private final Map<String, QueryHandle> handles = new ConcurrentHashMap<>();

  /** Queries counted against maxQueries: from submission until every worker dropped them. */
  private final AtomicInteger running = new AtomicInteger();

  /** Subscribers with a full result queue, under back-pressure; the reader waits while any is. */
  private int backlogged;

  private final Object backlogLock = new Object();
  private final AtomicLong nextId = new AtomicLong();
  private final LongAdder recordsRead = new LongAdder();
  private final LongAdder bytesRead = new LongAdder();
  private final LongAdder recordsProcessed = new LongAdder();
  private final LongAdder malformed = new LongAdder();

  /** What the workers could not read; the source counts what it skipped itself. */
  private final BadInput workerBadInput = new BadInput();

  private final LongAdder started = new LongAdder();
  private final LongAdder emitted = new LongAdder();
  private volatile long lastReadToProcessedMs;
  private final long startMs;
  private long lastSnapshotMs;
  private long lastSnapshotRecords;
  private double lastRate = -1;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final int poolSize;
  private final Barriers barriers;
  private final ScheduledExecutorService ticker;
  private final Thread readerThread;
  private final Thread combinerThread;
  private final Thread[] workerThreads;
  private volatile boolean closing;
  private boolean readerStarted;
  private volatile String sourceError;
  private volatile boolean sourceEnded;
  private volatile Throwable failure;
  private volatile String failedThread;
  private volatile Sampling sampler;
  private long recordsSeenBySampler;
  private long nextSample;

  private Engine(Source source, EngineConfig config) {
    this.config = config;
    this.source = source;
    this.startMs = config.clock().getAsLong();
    this.lastSnapshotMs = startMs;
    this.workers = new Worker[config.workers()];
    this.combiner = new Combiner(this, workers.length);
    this.barriers = new Barriers(this, source, combiner);
    int pool = workers.length * (config.queueBatches() + 2);
    this.poolSize = pool;
    this.free = new ArrayBlockingQueue<>(pool);
    this.ready = new ArrayBlockingQueue<>(workers.length * config.queueBatches());
    for (int i = 0; i < pool; i++) {
      free.add(new RawBatch(config.batchBytes() + 4096, config.batchRecords()));
    }
    this.workerThreads = new Thread[workers.length];
    for (int i = 0; i < workers.length; i++) {
      workers[i] = new Worker(i, ready, this);
      workerThreads[i] = thread(workers[i], "spyglass-worker-" + i);
    }
    this.combinerThread = thread(combiner, "spyglass-combiner");
    this.readerThread = thread(this::read, "spyglass-reader");
    this.ticker =
        config.tickMs() > 0
            ? Executors.newSingleThreadScheduledExecutor(r -> thread(r, "spyglass-ticker"))
            : null;
  }

  /** An engine thread: a daemon whose death by an exception is a failure of the engine. */
  private Thread thread(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    t.setUncaughtExceptionHandler(this::failed);
    return t;
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
    for (QueryHandle h : handles.values()) {
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
    e.combinerThread.start();
    for (Thread t : e.workerThreads) {
      t.start();
    }
    if (e.ticker != null) {
      e.ticker.scheduleAtFixedRate(
          e::timerTick, config.tickMs(), config.tickMs(), TimeUnit.MILLISECONDS);
    }
    return e;
  }

  /** A scheduled executor swallows what its tasks throw: report it as the engine's failure. */
  private void timerTick() {
    try {
      combiner.tick(false);
    } catch (RuntimeException | Error e) {
      failed(Thread.currentThread(), e);
      throw e;
    }
  }

  /** Starts reading the source, if not already. */
  public synchronized void resume() {
    if (!readerStarted) {
      readerStarted = true;
      barriers.readerStarted();
      readerThread.start();
    }
  }

  public EngineConfig config() {
    return config;
  }

  Combiner combiner() {
    return combiner;
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
    if (running.incrementAndGet() > config.maxQueries()) {
      running.decrementAndGet();
      throw new IllegalStateException(
          "Too many queries: "
              + config.maxQueries()
              + " are running; wait for some to finish, or raise the limit"
              + " (EngineConfig.withMaxQueries; spyglass query --max-queries)");
    }
    QueryHandle h = new QueryHandle(query, config, this, options.backPressure());
    if (handles.putIfAbsent(id, h) != null) {
      running.decrementAndGet();
      throw new IllegalArgumentException("A query with id " + id + " is already running");
    }
    started.increment();
    combiner.start(h, options.restore());
    return h;
  }

  private void requireRunning() {
    if (closing || stopped.getCount() == 0) {
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
  public <T> CompletableFuture<T> inspect(
      String queryId, java.util.function.Function<QueryCombiner, T> look) {
    return barriers.inspect(queryId, look);
  }

  void kill(String id) {
    combiner.kill(id);
  }

  void finish(String id) {
    combiner.finish(id);
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
    this.sampler = sampler == null ? null : new Sampling(everyN, sampler);
  }

  /** Sees one record's bytes, on the reader thread. */
  @FunctionalInterface
  public interface RecordSampler {
    void sample(byte[] data, int offset, int length);
  }

  private record Sampling(int everyN, RecordSampler sampler) {}

  /** Hands the sampler every {@code everyN}-th record of a batch just read (reader thread). */
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

  /** Runs a tick now: flushes workers, closes due windows, ends expired queries. */
  public void tick() {
    combiner.tick(false);
  }

  /** Ends every running query now; each emits its final result. */
  public void finishAll() {
    combiner.tick(true);
  }

  void broadcast(Worker.Command c) {
    for (Worker w : workers) {
      w.command(c);
    }
  }

  /** Whether every batch is back in the pool: every record read was processed by a worker. */
  boolean everyBatchReturned() {
    return free.size() == poolSize;
  }

  boolean closing() {
    return closing;
  }

  void recycle(RawBatch b) {
    b.clear();
    free.offer(b);
  }

  void processed(long records, long bad, long readMs) {
    recordsProcessed.add(records);
    malformed.add(bad);
    lastReadToProcessedMs = Math.max(0, config.clock().getAsLong() - readMs);
  }

  void badRecord(BadRecord reason, String where) {
    workerBadInput.add(reason, where);
  }

  int maxRecordBytes() {
    return source.maxRecordBytes();
  }

  /**
   * Input skipped since the engine started, by reason, with the places of the first few: what the
   * source skipped (lines over its size limit) and what the workers could not read as records.
   */
  public BadInput.Snapshot badInput() {
    return source.badInput().plus(workerBadInput.snapshot());
  }

  void emitted() {
    emitted.increment();
  }

  void publishStats(int worker, Map<String, QueryStats> s) {
    stats.put(worker, s);
  }

  /**
   * A worker's counters of a query as it hands on a partial of it: call before the partial goes to
   * the combiner, so that the combiner's thread sees them when the query ends.
   */
  void partialStats(int worker, String id, QueryStats s) {
    QueryHandle h = handles.get(id);
    if (h != null && s != null) {
      h.partialStats(worker, workers.length, s);
    }
  }

  /**
   * A query's counters summed over the workers, each as of its last tick or its last partial of the
   * query, whichever saw more; null when no worker has counted it.
   */
  QueryStats stats(String id) {
    QueryHandle h = handles.get(id);
    QueryStats sum = null;
    for (int w = 0; w < workers.length; w++) {
      Map<String, QueryStats> published = stats.get(w);
      QueryStats st = published == null ? null : published.get(id);
      QueryStats p = h == null ? null : h.partialStats(w);
      if (st == null || (p != null && p.seen() > st.seen())) {
        st = p;
      }
      if (st != null) {
        sum = sum == null ? st : sum.plus(st);
      }
    }
    return sum;
  }

  void queryEnded(String id) {
    handles.remove(id);
  }

  /** Every worker dropped a query that ended: it no longer counts against maxQueries. */
  void released() {
    running.decrementAndGet();
  }

  /** A subscriber's result queue became full ({@code +1}), or not any more ({@code -1}). */
  void backlog(int delta) {
    synchronized (backlogLock) {
      backlogged += delta;
      if (backlogged == 0) {
        backlogLock.notifyAll();
      }
    }
  }

  /** Waits while a subscriber under back-pressure has a full result queue. */
  private void awaitSubscribers() throws InterruptedException {
    synchronized (backlogLock) {
      while (backlogged > 0 && !closing) {
        backlogLock.wait(100);
      }
    }
  }

  void sourceDrained() {
    LOG.debug("source {} ended; every query finished", source.describe());
    shutdown();
  }

  private void read() {
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
      while (!closing) {
        barriers.serveWaiting();
        awaitSubscribers();
        RawBatch b = free.take();
        b.clear();
        boolean more = source.poll(b, perBatch, 50);
        if (b.isEmpty()) {
          free.offer(b);
        } else {
          b.readTimeMs(config.clock().getAsLong());
          recordsRead.add(b.size());
          bytesRead.add(b.bytes());
          recordBytes += ((double) b.bytes() / b.size() - recordBytes) / 8;
          sample(b);
          perBatch = recordsPerBatch(recordBytes);
          ready.put(b);
        }
        if (!more) {
          sourceEnded = true;
          if (config.stopWhenSourceEnds()) {
            broadcast(new Worker.Drain());
          }
          return;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException | RuntimeException e) {
      if (closing) {
        // a source closed under a poll may throw (Kafka's InterruptException): a normal end
        LOG.debug("source {} ended on close: {}", source.describe(), e.toString());
        return;
      }
      sourceError = e.getMessage() == null ? e.toString() : e.getMessage();
      sourceEnded = true;
      SOURCE_LOG.error("source {} failed: {}", source.describe(), e.toString());
      // nothing more will come: every query ends with what it has and the error, and the engine
      // stops, whether or not it stops at a normal end of its source
      broadcast(new Worker.Drain());
    }
  }

  private int recordsPerBatch(double recordBytes) {
    return (int) Math.max(1, Math.min(config.batchRecords(), config.batchBytes() / recordBytes));
  }

  /**
   * What keeps the source from reading now (a broker that does not answer, a topic deleted), or
   * null; see {@link Source#problem()}. Every result emitted while it lasts carries it as a
   * non-fatal error.
   */
  public String sourceProblem() {
    return source.problem();
  }

  /**
   * Why the source stopped with an error, or null. The engine then stops, and every query that was
   * running ended with a final result carrying this error.
   */
  public String sourceError() {
    return sourceError;
  }

  /**
   * Whether the source has ended (a file read to its end, stdin closed) or failed: no record will
   * be read any more. An engine that does not {@link EngineConfig#stopWhenSourceEnds() stop when
   * its source ends} goes on taking queries, which see nothing.
   */
  public boolean sourceEnded() {
    return sourceEnded;
  }

  /** The mean size of the records read so far, in bytes of JSON; 1 KiB before the first. */
  public long meanRecordBytes() {
    long n = recordsRead.sum();
    return n == 0 ? 1024 : Math.max(1, bytesRead.sum() / n);
  }

  public synchronized EngineMetrics metrics() {
    long now = config.clock().getAsLong();
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
    double rate = lastRate;
    Map<String, QueryStats> perQuery = new QueriesSummed();
    int queued = ready.size();
    return new EngineMetrics(
        now - startMs,
        rate,
        recordsRead.sum(),
        bytesRead.sum(),
        processed,
        malformed.sum(),
        source.skipped(),
        queued,
        lastReadToProcessedMs,
        running.get(),
        started.sum(),
        emitted.sum(),
        perQuery,
        badInput().byKey());
  }

  /**
   * {@link EngineMetrics#queries}: each running query's counters summed over the workers, summed at
   * its first read. The health check and the gauges read a snapshot's other counters only: with ten
   * thousand queries, a sum made for each of them was a map of ten thousand entries each time.
   */
  private final class QueriesSummed extends AbstractMap<String, QueryStats> {
    private Map<String, QueryStats> sum;

    private synchronized Map<String, QueryStats> sum() {
      if (sum == null) {
        Map<String, QueryStats> perQuery = new HashMap<>();
        for (Map<String, QueryStats> s : stats.values()) {
          s.forEach((id, st) -> perQuery.merge(id, st, QueryStats::plus));
        }
        perQuery.keySet().retainAll(handles.keySet());
        sum = Collections.unmodifiableMap(perQuery);
      }
      return sum;
    }

    @Override
    public Set<Map.Entry<String, QueryStats>> entrySet() {
      return sum().entrySet();
    }

    @Override
    public QueryStats get(Object id) {
      return sum().get(id);
    }

    @Override
    public boolean containsKey(Object id) {
      return sum().containsKey(id);
    }

    @Override
    public int size() {
      return sum().size();
    }
  }

  /** Queries running now. */
  public List<Query> running() {
    return handles.values().stream().map(QueryHandle::query).toList();
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
    closing = true;
    if (ticker != null) {
      ticker.shutdownNow();
    }
    readerThread.interrupt();
    for (int i = 0; i < workers.length; i++) {
      workers[i].stop();
      workerThreads[i].interrupt();
    }
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
      combinerThread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
