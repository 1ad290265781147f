package io.spyglass.service.metering;

import io.spyglass.core.SpyglassClock;
import io.spyglass.core.plan.QueryLimits;
import io.spyglass.engine.Engine;
import io.spyglass.engine.ingest.IngestLog;
import io.spyglass.engine.ingest.IngestSource;
import io.spyglass.engine.ingest.Ingestor;
import io.spyglass.service.runtime.EmbeddedRuntime;
import io.spyglass.service.runtime.QueryRuntime;
import io.spyglass.sources.Source;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ingestion over HTTP and standing queries, durably, under the data folder: the ingest log ({@code
 * ingest/}) is the source of truth, the database holds the standing queries' states with the log
 * position they cover. Opened before the runtime (its {@link #source()} starts where the last
 * checkpoint ended), then {@link #start} restores the standing queries on the runtime before
 * reading begins.
 *
 * <pre>{@code
 * Metering m = Metering.open(dataDir, Metering.Settings.DEFAULTS);
 * EmbeddedRuntime runtime = EmbeddedRuntime.startPaused(m.source(), config);
 * m.start(runtime, limits, UsageLimits.DEFAULTS.standing(), sinks);
 * runtime.resume();
 * }</pre>
 */
public final class Metering implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Metering.class);

  /**
   * @param idField the top-level field that holds a document's id
   * @param ingest the ingest log's settings: backlog bound, id horizon, segment size
   * @param checkpointEveryMs how often standing queries' states are written
   * @param databaseUrl a JDBC URL for the standing queries' database; null for SQLite under the
   *     data folder
   */
  public record Settings(
      String idField, Ingestor.Options ingest, long checkpointEveryMs, String databaseUrl) {
    /** Id field {@code id}, the ingest log's defaults, a checkpoint a second, SQLite. */
    public static final Settings DEFAULTS =
        new Settings("id", Ingestor.Options.DEFAULTS, 1000, null);

    public Settings {
      if (idField == null || idField.isEmpty()) {
        throw new IllegalArgumentException("--id-field must name a field");
      }
      if (checkpointEveryMs < 10) {
        throw new IllegalArgumentException("checkpoints must be at least 10 ms apart");
      }
    }
  }

  /** Largest request body taken, as sent and once decompressed: 10 MiB. */
  public static final int MAX_BODY_BYTES = 10 << 20;

  private final Settings settings;
  private final Ingestor ingestor;
  private final StandingStore store;
  private final long replayFrom;
  private final SpyglassClock clock;
  private final AtomicLong rejected = new AtomicLong();
  private final AtomicLong forwardedAccepted = new AtomicLong();
  private final AtomicLong forwardedDuplicates = new AtomicLong();
  private StandingQueries standing;

  /** Where accepted documents go instead of the ingest log; null: to the log. */
  private volatile Forward forward;

  /** The runtime {@link #start(Engine, QueryLimits, StandingQueries.Limits)} made; or null. */
  private EmbeddedRuntime over;

  private Metering(
      Settings settings,
      Ingestor ingestor,
      StandingStore store,
      long replayFrom,
      SpyglassClock clock) {
    this.clock = clock;
    this.settings = settings;
    this.ingestor = ingestor;
    this.store = store;
    this.replayFrom = replayFrom;
  }

  /**
   * Opens the ingest log under {@code dataDir} and the database, and finds where replay starts.
   *
   * @throws IOException when either cannot be read; the message says which and what to do
   */
  public static Metering open(Path dataDir, Settings settings) throws IOException {
    return open(dataDir, settings, RecoveryOptions.DEFAULTS);
  }

  /**
   * As {@link #open(Path, Settings)}: the database first (checked), then the ingest log, recovered
   * knowing the database's checkpoint (never cut before it). Refuses, changing nothing, when the
   * database has no checkpoint but the log shows there were some (the database was lost or
   * replaced), unless {@code recovery} says to start the standing queries afresh.
   */
  public static Metering open(Path dataDir, Settings settings, RecoveryOptions recovery)
      throws IOException {
    return open(dataDir, settings, recovery, SpyglassClock.system());
  }

  /**
   * As {@link #open(Path, Settings, RecoveryOptions)}, taking the time (of acknowledgements,
   * checkpoints, standing queries) from {@code clock}.
   */
  public static Metering open(
      Path dataDir, Settings settings, RecoveryOptions recovery, SpyglassClock clock)
      throws IOException {
    Path dir = dataDir.resolve("ingest");
    Path file = dataDir.resolve(StandingStore.FILE);
    // a lost SQLite file is refused before opening it would create an empty one
    boolean missing = settings.databaseUrl() == null && !Files.exists(file);
    boolean afreshBefore = missing && noCheckpoint(file.toString(), dir, recovery);
    StandingStore store = StandingStore.open(dataDir, settings.databaseUrl(), clock);
    try {
      OptionalLong checkpoint = store.logPosition();
      boolean afresh =
          afreshBefore
              || (!missing && checkpoint.isEmpty() && noCheckpoint(store.where(), dir, recovery));
      Ingestor ingestor =
          Ingestor.open(
              dir,
              settings.ingest(),
              clock,
              new IngestLog.Recovery(checkpoint.orElse(-1), recovery.acceptMissingIds()));
      try {
        IngestLog log = ingestor.log();
        long from =
            checkpoint.isPresent()
                ? checkpoint.getAsLong()
                : afresh ? log.committedEnd() : log.start();
        if (from < log.start()) {
          throw new IOException(
              "the database's checkpoint is at ingest log position "
                  + from
                  + " but the log under "
                  + dir
                  + " starts at "
                  + log.start()
                  + " (the records before were retired after a later checkpoint): the database"
                  + " is older than the log, restored from an older copy or another one; give the"
                  + " --data folder and --database that were used together");
        }
        if (from > log.committedEnd()) {
          throw new IOException(
              "the database's checkpoint is at ingest log position "
                  + from
                  + " but the log under "
                  + dir
                  + " ends at "
                  + log.committedEnd()
                  + ": documents that were counted are missing from the log (it was deleted, cut"
                  + " or replaced by an older copy); restore the ingest folder from a copy, or give"
                  + " the --data folder and --database that were used together");
        }
        return new Metering(settings, ingestor, store, from, clock);
      } catch (IOException | RuntimeException e) {
        ingestor.close();
        throw e;
      }
    } catch (IOException | RuntimeException e) {
      store.close();
      throw e;
    }
  }

  /**
   * A database without checkpoint: refused when the log shows there were checkpoints, unless {@code
   * recovery} says to start afresh; whether the start is afresh.
   */
  private static boolean noCheckpoint(String where, Path dir, RecoveryOptions recovery)
      throws IOException {
    String evidence = IngestLog.checkpointEvidence(dir);
    if (evidence == null) {
      return false;
    }
    if (!recovery.resetStandingQueries()) {
      throw new IOException(
          "the standing queries' database "
              + where
              + " has no checkpoint, but "
              + evidence
              + ": the database was lost or replaced, and every standing query with it."
              + " Restore it from a copy (or give the --database used before); or start with"
              + " --reset-standing-queries to go on without the standing queries (define them"
              + " again: they count the documents acknowledged from then on)");
    }
    LOG.warn(
        "the standing queries' database {} has no checkpoint, but {}: starting afresh without"
            + " standing queries (--reset-standing-queries)",
        where,
        evidence);
    return true;
  }

  /** The ingested documents as a source, from the last checkpoint on. */
  public Source source() throws IOException {
    return new IngestSource(ingestor.log(), replayFrom);
  }

  /**
   * Restores the standing queries on {@code runtime}, which must not be reading yet, and runs them
   * there from now on.
   *
   * @param limits what a query may ask for
   * @param standingLimits what standing queries may do beyond that
   * @param sinks where standing queries deliver their results besides their windows; null: they
   *     have no sinks
   */
  public void start(
      QueryRuntime runtime,
      QueryLimits limits,
      StandingQueries.Limits standingLimits,
      io.spyglass.sinks.Sinks sinks)
      throws InterruptedException {
    standing =
        StandingQueries.restore(
            runtime,
            store,
            ingestor,
            limits,
            standingLimits,
            settings.checkpointEveryMs(),
            clock,
            sinks);
  }

  /**
   * As {@link #start(QueryRuntime, QueryLimits, StandingQueries.Limits, io.spyglass.sinks.Sinks)}
   * on an engine the caller started and closes (a test's, a benchmark's), through an {@link
   * EmbeddedRuntime} over it, without sinks.
   */
  public void start(Engine engine, QueryLimits limits, StandingQueries.Limits standingLimits)
      throws InterruptedException {
    over = EmbeddedRuntime.over(engine);
    start(over, limits, standingLimits, null);
  }

  public Settings settings() {
    return settings;
  }

  public Ingestor ingestor() {
    return ingestor;
  }

  /** Refused: the ingest backlog is over its bound; nothing of the request was kept. */
  public static final class Backlogged extends Exception {
    private static final long serialVersionUID = 1L;
    private final long retryAfterSeconds;

    Backlogged(Ingestor.Backlogged e) {
      super(e.getMessage(), e);
      this.retryAfterSeconds = e.retryAfterSeconds();
    }

    /** When to try again, in seconds: about how long the backlog takes to drain. */
    public long retryAfterSeconds() {
      return retryAfterSeconds;
    }
  }

  /**
   * Where a request's accepted documents are written instead of the ingest log ({@code serve
   * --runtime flink --kafka HOST:PORT --source http}: the job's records topic): durable when {@link
   * #write} returns, nothing of them kept when it throws. It tells repeats by their ids itself.
   */
  @FunctionalInterface
  public interface Forward {
    /**
     * @return how many were written and how many were repeats (not written)
     * @throws NotWritten when they could not be written: its message and resolution are the 503's
     */
    Accepted write(List<Ingestor.Doc> docs) throws NotWritten, InterruptedException;
  }

  /** A request's documents could not be written: none of them was kept. */
  public static final class NotWritten extends IOException {
    private static final long serialVersionUID = 1L;
    private final String resolution;

    public NotWritten(String message, String resolution, Throwable cause) {
      super(message, cause);
      this.resolution = resolution;
    }

    /** What the client should do. */
    public String resolution() {
      return resolution;
    }
  }

  /**
   * Writes the accepted documents to {@code forward} from now on instead of the ingest log, which
   * then stays empty (the forward tells repeats by their ids).
   */
  public void forwardTo(Forward forward) {
    this.forward = forward;
  }

  /** What became of a request's documents: how many were taken and how many were repeats. */
  public record Accepted(int accepted, int duplicates) {}

  /**
   * Ingest backlog held for one request body before it is read ({@link #reserve}); closing it gives
   * back what {@link #submit} did not use. Thread-safe, idempotent.
   */
  public static final class Reservation implements AutoCloseable {
    private final Ingestor.Reservation held;

    private Reservation(Ingestor.Reservation held) {
      this.held = held;
    }

    @Override
    public void close() {
      held.close();
    }
  }

  /**
   * Holds {@code bytes} of the ingest backlog for a body about to be read, so that a body the
   * backlog would refuse is refused before it is buffered.
   *
   * @throws Backlogged when the bytes would put the backlog over its bound
   */
  public Reservation reserve(long bytes) throws Backlogged {
    try {
      return new Reservation(ingestor.reserve(bytes));
    } catch (Ingestor.Backlogged e) {
      throw new Backlogged(e);
    }
  }

  /**
   * Queues a request's documents for the ingest log, with the backlog bytes {@code held} (null when
   * none were reserved); the future completes once those accepted are durable, or fails with what
   * kept them from the disk (then none of them was taken).
   *
   * @throws Backlogged when the backlog cannot take them; nothing was kept
   */
  public CompletableFuture<Accepted> submit(IngestBody.Parsed parsed, Reservation held)
      throws Backlogged {
    Forward f = forward;
    if (f != null) {
      try {
        Accepted a = f.write(parsed.docs());
        forwardedAccepted.addAndGet(a.accepted());
        forwardedDuplicates.addAndGet(a.duplicates());
        return CompletableFuture.completedFuture(a);
      } catch (NotWritten e) {
        return CompletableFuture.failedFuture(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return CompletableFuture.failedFuture(e);
      }
    }
    try {
      return (held == null
              ? ingestor.submit(parsed.docs())
              : ingestor.submit(parsed.docs(), held.held))
          .thenApply(o -> new Accepted(o.accepted(), o.duplicates()));
    } catch (Ingestor.Backlogged e) {
      throw new Backlogged(e);
    }
  }

  /**
   * The ingest backlog: bytes the engine has yet to read (accepted and not read, waiting to be
   * written, reserved by requests still arriving).
   */
  public long backlogBytes() {
    return ingestor.backlogBytes();
  }

  /** Documents accepted since the start: to the ingest log, or to the forward. */
  public long accepted() {
    return ingestor.accepted() + forwardedAccepted.get();
  }

  /** Documents that were repeats of accepted ids since the start. */
  public long duplicates() {
    return ingestor.duplicates() + forwardedDuplicates.get();
  }

  /** Counts documents rejected at ingest (never acknowledged): see {@link #rejected()}. */
  public void rejected(int documents) {
    rejected.addAndGet(documents);
  }

  /** Documents rejected at ingest since the start, one by one (not whole requests refused). */
  public long rejected() {
    return rejected.get();
  }

  /** The service's clock, as ingestion and the standing queries take their time from it. */
  SpyglassClock clock() {
    return clock;
  }

  public StandingStore store() {
    return store;
  }

  /** The standing queries, once {@link #start}ed. */
  public StandingQueries standing() {
    return standing;
  }

  @Override
  public void close() throws IOException {
    if (standing != null) {
      standing.close();
    }
    if (over != null) {
      over.close();
    }
    store.close();
    ingestor.close();
  }
}
