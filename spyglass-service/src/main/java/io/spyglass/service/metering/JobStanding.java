package io.spyglass.service.metering;

import io.spyglass.core.query.QueryStats;
import io.spyglass.core.result.Meta;
import io.spyglass.core.result.Result;
import io.spyglass.core.run.CheckedQuery;
import io.spyglass.engine.ingest.IngestLog;
import io.spyglass.service.health.Health;
import io.spyglass.service.runtime.CheckpointCut;
import io.spyglass.service.runtime.CheckpointMarker;
import io.spyglass.service.runtime.OpenWindows;
import io.spyglass.service.runtime.QueryRuntime;
import io.spyglass.service.runtime.ResultListener;
import io.spyglass.service.runtime.RuntimeStats;
import io.spyglass.service.runtime.StandingOptions;
import io.spyglass.service.runtime.StandingStart;
import io.spyglass.sinks.SinkSpec;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runtime of {@code serve --runtime flink --source http}: standing queries run on the Flink job
 * over the ingest log's files ({@code MeteringRun}, on a mini cluster in this process), other
 * queries on the runtime it wraps (the embedded engine over the same documents).
 *
 * <p>A standing query is submitted to the job once, at the cut of the checkpoint that defines it,
 * from the ingest log's committed end then (the documents acknowledged after its definition); it
 * lives in the job's checkpoints and control log from then on, so a restart does not submit it
 * again, and a deletion kills it there. Its id on the job is its id and when it was defined ({@code
 * standing-NAME@CREATED_MS}): a name deleted and defined again is another query there, and what the
 * job still sends of the former one is not written. The job's replies go to the database as they
 * come ({@link JobReplies}: each final window once by its start, each late update once), not
 * through the checkpoints of the service, whose cut is the log position of the job's last completed
 * checkpoint: the ingest log keeps every segment from there on. A report's open windows are a look
 * at the job ({@link Job#inspect}: every filter subtask flushes what it holds of the query, the
 * combiner answers with its open windows), not kept anywhere.
 */
public final class JobStanding implements QueryRuntime {
  private static final Logger LOG = LoggerFactory.getLogger(JobStanding.class);

  /** The job as the service sees it: what {@code MeteringRun} does. */
  public interface Job extends AutoCloseable {
    /** Runs a query from ingest log position {@code fromPosition} on; durable when it returns. */
    void submit(String id, CheckedQuery query, long receiveTimeMs, long fromPosition)
        throws IOException;

    /** Stops a query for good; durable when it returns. */
    void kill(String id) throws IOException;

    /**
     * Asks for a look at a query's open windows as of what the job has read: its replies bring them
     * ({@link JobReplies.Reply.Kind#OPEN}), then the answer ({@link JobReplies.Reply.Kind#LOOKED})
     * with the returned number. Not durable: it may go unanswered.
     *
     * @return the look's number; -1 for a job that shows no open window (a report then holds the
     *     final windows only)
     */
    default long inspect(String id, boolean windows) {
      return -1;
    }

    /** How far the job has read the ingest log; -1 when not known. */
    default long readPosition() {
      return -1;
    }

    /** The ingest log position the job's last completed checkpoint covers; -1 before the first. */
    long checkpointedPosition() throws IOException;

    /** A short description for people. */
    String describe();

    @Override
    void close() throws IOException;
  }

  /**
   * Starts the job over the ingest log's folder, with its own folder, its replies to a consumer.
   */
  @FunctionalInterface
  public interface Starter {
    /**
     * @param committedEnd the committed end of the log's writer in this process
     */
    Job start(
        Path ingestDir, Path jobDir, Consumer<JobReplies.Reply> replies, LongSupplier committedEnd)
        throws Exception;

    /**
     * The standing queries the job's folder {@code jobDir} knows, by id on the job: true for one
     * that runs there, false for one killed or ended there; empty when the folder holds none
     * (deleted, or never used); null when it cannot tell. Read before the job starts, changing
     * nothing.
     */
    default Map<String, Boolean> queries(Path jobDir) throws IOException {
      return null;
    }
  }

  private final QueryRuntime other;
  private final IngestLog log;
  private final JobReplies replies;
  private volatile Job job;

  /** The listeners of the standing queries running on the job, by id. */
  private final Map<String, ResultListener> standing = new ConcurrentHashMap<>();

  /** Their ids on the job ({@link JobReplies#jobId}), by id. */
  private final Map<String, String> jobIds = new ConcurrentHashMap<>();

  /** Delivers markers and ends to the standing queries' listeners, in order. */
  private final ExecutorService delivery =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "spyglass-job-standing");
            t.setDaemon(true);
            return t;
          });

  private final AtomicLong checkpoints = new AtomicLong();

  /** Looks at open windows asked for and not answered yet, by number. */
  private final Map<Long, CompletableFuture<List<Result>>> looks = new ConcurrentHashMap<>();

  /** The open windows of the look being answered, by query id on the job. */
  private final Map<String, List<Result>> looking = new ConcurrentHashMap<>();

  /** The event time of each standing query as the last look showed it, by id. */
  private final Map<String, Meta.EventTimeMeta> eventTimes = new ConcurrentHashMap<>();

  private final Metering metering;

  private JobStanding(QueryRuntime other, IngestLog log, Metering metering) {
    this.metering = metering;
    StandingStore store = metering.store();
    this.other = other;
    this.log = log;
    this.replies =
        new JobReplies(store, jobId -> jobId.equals(jobIds.get(JobReplies.serviceId(jobId))));
  }

  /**
   * Starts the job with {@code starter} over {@code dataDir/ingest}, its folder {@code
   * dataDir/flink}, and serves the standing queries of {@code metering} on it, the other queries on
   * {@code other} (which this closes).
   */
  public static JobStanding start(
      QueryRuntime other, Metering metering, Path dataDir, Starter starter) throws Exception {
    IngestLog log = metering.ingestor().log();
    Path jobDir = dataDir.resolve("flink");
    Map<String, Boolean> onJob = starter.queries(jobDir);
    Map<String, StandingStore.Stored> inDatabase = new java.util.LinkedHashMap<>();
    for (StandingStore.Stored q : metering.store().list()) {
      if (q.error() == null) {
        inDatabase.put(JobReplies.jobId(StandingQuery.ID_PREFIX + q.name(), q.createdMs()), q);
      }
    }
    if (onJob != null) {
      refuseLost(jobDir, onJob, inDatabase);
    }
    JobStanding s = new JobStanding(other, log, metering);
    s.job = starter.start(dataDir.resolve("ingest"), jobDir, s::reply, log::committedEnd);
    // --ingest-backlog bounds how far the job is behind the log as well as the engine
    Job job = s.job;
    metering.ingestor().alsoReadBy(job::readPosition);
    if (onJob != null) {
      s.reconcile(onJob, inDatabase);
    }
    return s;
  }

  /**
   * Refuses to start when the database runs standing queries the job's folder does not know (it was
   * deleted, or replaced by an older copy): their counts since their last windows are lost with it,
   * and starting them afresh would write windows short of documents as if whole.
   */
  private static void refuseLost(
      Path jobDir, Map<String, Boolean> onJob, Map<String, StandingStore.Stored> inDatabase)
      throws IOException {
    List<String> lost = new ArrayList<>();
    inDatabase.forEach(
        (jobId, q) -> {
          if (!onJob.containsKey(jobId)) {
            lost.add(q.name());
          }
        });
    if (!lost.isEmpty()) {
      throw new IOException(
          "the standing queries' database runs "
              + lost.size()
              + " standing "
              + (lost.size() == 1 ? "query" : "queries")
              + " "
              + lost
              + " that the Flink job's folder "
              + jobDir
              + " does not know ("
              + (onJob.isEmpty()
                  ? "it has no control log: deleted, or never used with this database"
                  : "its control log is older than the database")
              + "): their counts of the documents of their open windows are lost with it."
              + " Restore "
              + jobDir
              + " from the copy taken with the database (keep --data/flink, --data/ingest and the"
              + " database together); or move the database away and start with"
              + " --reset-standing-queries, then define them again (they count what is"
              + " acknowledged from then on). Standing queries defined with --runtime embedded run"
              + " there: start with --runtime embedded");
    }
  }

  /**
   * At the start: a query running on the job that the database does not hold (the service stopped
   * between submitting it and saving it: its definition was never answered 201) is killed there;
   * one the job ended that the database still runs (the service stopped before writing its end) is
   * marked failed.
   */
  private void reconcile(Map<String, Boolean> onJob, Map<String, StandingStore.Stored> inDatabase)
      throws IOException {
    for (Map.Entry<String, Boolean> e : onJob.entrySet()) {
      if (e.getValue() && !inDatabase.containsKey(e.getKey())) {
        LOG.warn(
            "standing query {} runs on the Flink job but is not in the standing queries' database"
                + " (the service stopped between submitting it and saving it, before its 201):"
                + " killed on the job",
            e.getKey());
        job.kill(e.getKey());
      }
    }
    inDatabase.forEach(
        (jobId, q) -> {
          if (Boolean.FALSE.equals(onJob.get(jobId))) {
            String error =
                "It ended on the Flink job (its control log says so) while the service was"
                    + " stopping; its windows are as the job last sent them. Define it again to"
                    + " go on counting";
            LOG.warn("standing query {} ended on the Flink job: marked failed", q.name());
            replies.markFailed(q.name(), error);
          }
        });
  }

  /** A reply of the job, on the thread of its sink: written before it returns. */
  private void reply(JobReplies.Reply r) {
    switch (r.kind()) {
      case OPEN -> {
        looking.computeIfAbsent(r.queryId(), k -> new ArrayList<>()).add(r.result());
        return;
      }
      case LOOKED -> {
        List<Result> open = looking.remove(r.queryId());
        CompletableFuture<List<Result>> look;
        synchronized (looks) {
          look = looks.remove(r.number());
        }
        if (look != null) {
          look.complete(open == null ? List.of() : open);
        }
        return;
      }
      case SAVED -> {
        measured(r.queryId(), r.number());
        return;
      }
      default -> {}
    }
    replies.reply(r);
    if (r.kind() == JobReplies.Reply.Kind.RESULT) {
      toSinks(r);
    }
    if (r.result() == null && r.error() != null) {
      String id = JobReplies.serviceId(r.queryId());
      ResultListener l =
          jobIds.remove(id, r.queryId()) ? standing.remove(id) : null; // not of a former one
      if (l != null) {
        delivery.execute(() -> l.onEnd(r.error(), null));
      }
    }
  }

  /**
   * Hands a final window or late update of the current query of its name to the query's sinks (at
   * least once: a reply the job sends again after a restore comes again, with the same key).
   */
  private void toSinks(JobReplies.Reply r) {
    String id = JobReplies.serviceId(r.queryId());
    if (!r.queryId().equals(jobIds.get(id))) {
      return; // of a former query of the name
    }
    StandingQuery q = StandingActor.queryOf(standing.get(id));
    if (q != null && q.sinks != null) {
      q.sinks.offer(r.result());
    }
  }

  /**
   * The size of a query's state on the job, as the look at the service's last checkpoint measured
   * it: one over {@code --max-standing-state} stops for good, as on the embedded runtime.
   */
  private void measured(String jobId, long bytes) {
    String id = JobReplies.serviceId(jobId);
    if (!jobId.equals(jobIds.get(id))) {
      return;
    }
    ResultListener l = standing.get(id);
    StandingQuery q = StandingActor.queryOf(l);
    if (q != null) {
      q.stateBytes = bytes;
    }
    StandingQueries queries = metering.standing();
    long max = queries == null ? Long.MAX_VALUE : queries.limits().maxStateBytes();
    if (bytes <= max || !jobIds.remove(id, jobId) || standing.remove(id) == null) {
      return;
    }
    String error =
        "Its state on the Flink job grew to "
            + bytes
            + " bytes, over the "
            + max
            + " a standing query may keep (--max-standing-state): it stopped at "
            + java.time.Instant.ofEpochMilli(metering.clock().millis())
            + "; its final windows are kept, its open windows ended with it. Define it again with"
            + " fewer groups (a narrower GROUP BY) or shorter windows, or ask the operator to raise"
            + " the bound";
    LOG.warn("standing query {} stopped: {}", JobReplies.name(jobId), error);
    try {
      job.kill(jobId);
    } catch (IOException e) {
      LOG.error("standing query {} could not be killed on the Flink job: {}", id, e.toString());
    }
    replies.markFailed(JobReplies.name(jobId), error);
    delivery.execute(() -> l.onEnd(error, null));
  }

  /** Final windows and late updates written so far. */
  public JobReplies replies() {
    return replies;
  }

  @Override
  public void submit(String id, CheckedQuery query, ResultListener listener) {
    other.submit(id, query, listener);
  }

  @Override
  public List<SinkSpec> ownSinks(List<SinkSpec> sinks) {
    return other.ownSinks(sinks);
  }

  @Override
  public void submit(String id, CheckedQuery query, ResultListener listener, List<SinkSpec> own) {
    other.submit(id, query, listener, own);
  }

  @Override
  public void kill(String id) {
    if (!standing.containsKey(id)) {
      other.kill(id);
    }
  }

  /** Ends the other queries: the standing ones live on in the job's checkpoints. */
  @Override
  public void killAll() {
    other.killAll();
  }

  @Override
  public Map<String, QueryStats> progress() {
    return other.progress();
  }

  @Override
  public Optional<QueryStats> progress(String id) {
    return other.progress(id);
  }

  @Override
  public RuntimeStats stats() {
    return other.stats();
  }

  @Override
  public void sampleRecords(int everyN, RecordSampler sampler) {
    other.sampleRecords(everyN, sampler);
  }

  @Override
  public long recordBytesHeld() {
    return other.recordBytesHeld();
  }

  @Override
  public List<Health.Problem> problems() {
    return other.problems();
  }

  /** A standing query restored: it runs on the job already (not submitted again). */
  @Override
  public void submitStanding(
      String id, CheckedQuery query, StandingOptions options, ResultListener listener) {
    jobIds.put(id, JobReplies.jobId(id, options.createdMs()));
    standing.put(id, listener);
  }

  /**
   * Starts {@code startAtCut} on the job from the ingest log's committed end; the cut is the log
   * position of the job's last completed checkpoint. The running queries' states are the job's:
   * none is taken here (their windows were written as they came).
   */
  @Override
  public CompletableFuture<CheckpointCut> checkpoint(
      Collection<String> save, List<StandingStart> startAtCut) {
    long position;
    try {
      position = job.checkpointedPosition();
    } catch (IOException e) {
      return CompletableFuture.failedFuture(
          new IllegalStateException(
              "the Flink job's checkpoint cannot be read: " + e.getMessage()));
    }
    // before its first checkpoint the job reads the log from its start
    position = Math.max(position, log.start());
    // each running query's state measured on the job (--max-standing-state): its answer comes
    // with the replies
    jobIds.values().forEach(jobId -> job.inspect(jobId, false));
    long n = checkpoints.incrementAndGet();
    Set<String> saved = new HashSet<>();
    for (StandingStart s : startAtCut) {
      try {
        String jobId = JobReplies.jobId(s.id(), s.options().createdMs());
        jobIds.put(s.id(), jobId);
        standing.put(s.id(), s.listener());
        job.submit(jobId, s.query(), s.options().createdMs(), log.committedEnd());
        saved.add(s.id());
      } catch (IOException | RuntimeException e) {
        standing.remove(s.id());
        jobIds.remove(s.id());
        for (String started : saved) {
          cancel(started);
        }
        return CompletableFuture.failedFuture(
            new IllegalStateException(
                "the Flink job could not take the query: " + e.getMessage(), e));
      }
    }
    CheckpointMarker marker = new CheckpointMarker(n, position, null);
    for (StandingStart s : startAtCut) {
      delivery.execute(() -> s.listener().onCheckpoint(marker));
    }
    return CompletableFuture.completedFuture(new CheckpointCut(n, position, saved));
  }

  /**
   * A look at a standing query's open windows on the job, as of every document it has read: they
   * come with its replies. Without windows, the event time as the last look showed it (the job is
   * not asked: the listing looks after every checkpoint).
   */
  @Override
  public CompletableFuture<OpenWindows> inspect(String id, long nowMs, boolean windows) {
    String jobId = jobIds.get(id);
    if (jobId == null || !standing.containsKey(id)) {
      return other.inspect(id, nowMs, windows);
    }
    if (!windows) {
      return CompletableFuture.completedFuture(
          new OpenWindows(List.of(), Optional.ofNullable(eventTimes.get(id))));
    }
    CompletableFuture<List<Result>> look = new CompletableFuture<>();
    long n;
    synchronized (looks) {
      n = job.inspect(jobId, true);
      if (n >= 0) {
        looks.put(n, look);
      }
    }
    if (n < 0) {
      return CompletableFuture.completedFuture(new OpenWindows(List.of(), Optional.empty()));
    }
    look.orTimeout(LOOK_TIMEOUT_SECONDS, TimeUnit.SECONDS).whenComplete((r, e) -> looks.remove(n));
    return look.thenApply(
        open -> {
          Optional<Meta.EventTimeMeta> time =
              open.stream()
                  .map(r -> r.meta().eventTime())
                  .flatMap(Optional::stream)
                  .reduce((a, b) -> b);
          time.ifPresent(t -> eventTimes.put(id, t));
          return new OpenWindows(open, time.or(() -> Optional.ofNullable(eventTimes.get(id))));
        });
  }

  /** How long a look at open windows on the job is waited for. */
  static final long LOOK_TIMEOUT_SECONDS = 20;

  @Override
  public boolean awaitRunning(String id, long timeout, TimeUnit unit) throws InterruptedException {
    return standing.containsKey(id) || other.awaitRunning(id, timeout, unit);
  }

  @Override
  public void resumeDelivery(String id) {
    if (!standing.containsKey(id)) {
      other.resumeDelivery(id);
    }
  }

  /** Stops a query: a standing one is killed on the job, for good. */
  @Override
  public void cancel(String id) {
    ResultListener l = standing.remove(id);
    String jobId = jobIds.remove(id);
    if (l == null) {
      other.cancel(id);
      return;
    }
    try {
      job.kill(jobId);
    } catch (IOException e) {
      LOG.error("standing query {} could not be killed on the Flink job: {}", id, e.toString());
    }
    delivery.execute(() -> l.onEnd(null, null));
  }

  @Override
  public String describe() {
    return other.describe() + "; standing queries on " + job.describe();
  }

  /** Stops the job (its checkpoints stay: a start goes on from them) and the other runtime. */
  @Override
  public void close() {
    try {
      job.close();
    } catch (IOException e) {
      LOG.warn("stopping the Flink job: {}", e.toString());
    }
    other.close();
    delivery.shutdown();
  }
}
