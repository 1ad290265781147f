package io.spyglass.flink;

import io.spyglass.core.SpyglassClock;
import io.spyglass.core.run.CheckedQuery;
import io.spyglass.flink.client.ControlMessage;
import io.spyglass.flink.client.JobStatus;
import io.spyglass.flink.client.MessageFormatException;
import io.spyglass.flink.client.Reply;
import io.spyglass.sources.BadInput;
import io.spyglass.sources.ingest.IngestLogFollower;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Standing queries on the Flink job over the ingest log of {@code serve --source http}: the job on
 * a Flink mini cluster in this process reads the log's committed documents from its files ({@link
 * IngestInput}), its standing queries come and go through a durable control log, and their replies
 * (final windows, late updates, with their window numbers) reach a {@link Listener}. Checkpoints
 * are kept under the given folder; a start finds the latest completed one there and restores it, so
 * a service killed with {@code kill -9} and started again on the same folders goes on where the
 * job's last checkpoint was.
 *
 * <pre>
 * FLINK_DIR/control.log        the standing queries' messages (query, kill, ended), see ControlLog
 * FLINK_DIR/checkpoints/JOB/chk-N/   Flink's retained checkpoints (the latest is restored)
 * FLINK_DIR/ingest-position    the ingest log position the last completed checkpoint covers
 * </pre>
 *
 * <pre>{@code
 * IngestLog log = ...; // opened (recovered) by the service first
 * try (MeteringRun run = MeteringRun.start(dataDir.resolve("ingest"), dataDir.resolve("flink"),
 *     MeteringRun.Settings.DEFAULTS, reply -> store(reply), log::committedEnd)) {
 *   run.submit("usage-by-org", checked, now, log.committedEnd());
 *   ...
 *   run.kill("usage-by-org");
 * }
 * }</pre>
 *
 * <p><b>Replies are delivered at least once.</b> After a restore (a TaskManager lost, or a start on
 * the folders of a run that ended abruptly) the job replays the documents after its checkpoint, and
 * the windows that closed since are delivered again, with the same window numbers and, the
 * documents being the same, the same records: write each (query, window number) once, and each late
 * update once by the query's count of late records ({@code meta.eventTime.late}), as {@link
 * io.spyglass.flink.client.RemoteQuery} drops repeats. A query's {@code RUNNING} reply may repeat
 * too. Replies of queries submitted before a restart come with their ids as submitted.
 *
 * <p>What the service keeps to: the ingest log must keep every segment from {@link
 * #checkpointedPosition()} on (retire records only before it); standing queries are submitted here
 * each once (they live in the job's checkpoints and the control log across restarts, so a restart
 * does not submit them again); the parallelism stays the same across restarts.
 */
public final class MeteringRun implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MeteringRun.class);

  /** Where the job's replies go, in the job (the listener gets them). */
  static final String REPLY_TO = "metering";

  /** Where the job's combiners say a query ended early. */
  static final String FEEDBACK = "metering-control";

  static final String STATUS = "metering-status";

  static final String INGEST_UID = "spyglass-ingest";
  static final String SINK_UID = "spyglass-metering-replies";

  static final String CONTROL_FILE = "control.log";
  static final String CHECKPOINTS = "checkpoints";
  static final String POSITION_FILE = "ingest-position";

  /** The job's sinks find their run here, by key: the mini cluster runs in this process. */
  private static final Map<String, Consumer<Outgoing>> RUNS = new ConcurrentHashMap<>();

  /**
   * How the job runs.
   *
   * @param parallelism filter and combiner subtasks; keep it across restarts
   * @param checkpointEveryMs how often the job checkpoints (and how much a restore replays)
   * @param tickMs how often filters flush and windows may close (the wall clock)
   * @param maxQueries most standing queries running at once; more are refused
   * @param pollMs how long the source waits before it looks again at a log with nothing new
   */
  public record Settings(
      int parallelism, long checkpointEveryMs, long tickMs, int maxQueries, long pollMs) {
    /** One subtask, a checkpoint a second, ticks of 100 ms, 20,000 queries, polls of 10 ms. */
    public static final Settings DEFAULTS = new Settings(1, 1_000, 100, 20_000, 10);

    public Settings {
      if (parallelism < 1 || checkpointEveryMs < 10 || tickMs < 1 || maxQueries < 1 || pollMs < 1) {
        throw new IllegalArgumentException(
            "parallelism, ticks, queries and polls must be positive; checkpoints at least 10 ms"
                + " apart");
      }
    }

    public Settings withParallelism(int p) {
      return new Settings(p, checkpointEveryMs, tickMs, maxQueries, pollMs);
    }

    public Settings withCheckpointEveryMs(long ms) {
      return new Settings(parallelism, ms, tickMs, maxQueries, pollMs);
    }
  }

  /** Receives the job's replies, on the thread of the job's sink: return quickly. */
  @FunctionalInterface
  public interface Listener {
    /**
     * A reply of a standing query ({@link Reply#queryId()} is its id as submitted): {@code
     * RUNNING}, {@code RESULT} (a final window, or a late update), {@code ENDED}, {@code REJECTED}.
     * At least once: see {@link MeteringRun}.
     */
    void reply(Reply reply);
  }

  private volatile JobClient job;
  private final ControlLog control;
  private final Path ingestDir;
  private final Path flinkDir;
  private final String key;
  private final String restoredFrom;
  private final Map<Integer, JobStatus> statuses = new ConcurrentHashMap<>();
  private final IngestInput.Looks looks = new IngestInput.Looks();
  private final java.util.concurrent.atomic.AtomicLong readPosition =
      new java.util.concurrent.atomic.AtomicLong(-1);
  private final java.util.concurrent.atomic.AtomicLong lookNumbers =
      new java.util.concurrent.atomic.AtomicLong();

  private MeteringRun(
      ControlLog control, Path ingestDir, Path flinkDir, String key, String restoredFrom) {
    this.control = control;
    this.ingestDir = ingestDir;
    this.flinkDir = flinkDir;
    this.key = key;
    this.restoredFrom = restoredFrom;
  }

  /**
   * Starts the job on a mini cluster in this process, restored from the latest completed checkpoint
   * under {@code flinkDir} when there is one.
   *
   * @param ingestDir the ingest log's folder (the service's {@code DATA/ingest}, opened and
   *     recovered by the service before)
   * @param flinkDir the job's folder: its control log, its checkpoints
   * @param listener gets every reply, from the first (those of a restored job included)
   */
  public static MeteringRun start(
      Path ingestDir, Path flinkDir, Settings settings, Listener listener) throws Exception {
    return start(ingestDir, flinkDir, settings, listener, null, false, Map.of());
  }

  /**
   * As {@link #start(Path, Path, Settings, Listener)}, the job reading nothing of the log beyond
   * {@code committedEnd}: the committed end of the log's writer in this process (the service's
   * {@code IngestLog::committedEnd}). Give it where the writer runs here: a group whose write
   * reached the file but whose {@code fsync} failed (answered 503, cut off by the writer) is then
   * never counted.
   */
  public static MeteringRun start(
      Path ingestDir,
      Path flinkDir,
      Settings settings,
      Listener listener,
      LongSupplier committedEnd)
      throws Exception {
    Objects.requireNonNull(committedEnd, "committedEnd");
    return start(ingestDir, flinkDir, settings, listener, committedEnd, false, Map.of());
  }

  /**
   * As {@link #start(Path, Path, Settings, Listener)}; {@code onContextCluster}: on the cluster of
   * the context's environment (a test's mini cluster) instead of one of its own; {@code flinkConf}
   * on top of the run's own settings.
   */
  static MeteringRun start(
      Path ingestDir,
      Path flinkDir,
      Settings settings,
      Listener listener,
      LongSupplier committedEnd,
      boolean onContextCluster,
      Map<String, String> flinkConf)
      throws Exception {
    Objects.requireNonNull(listener, "listener");
    Files.createDirectories(flinkDir);
    ControlLog control = ControlLog.open(flinkDir.resolve(CONTROL_FILE));
    try {
      Path checkpoints = flinkDir.resolve(CHECKPOINTS);
      Path latest = latestCheckpoint(checkpoints);
      removeOtherJobs(checkpoints, latest);
      Configuration conf = new Configuration();
      conf.set(PipelineOptions.GENERIC_TYPES, false);
      conf.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
      conf.set(RestOptions.BIND_PORT, "0");
      conf.set(CoreOptions.DEFAULT_PARALLELISM, settings.parallelism());
      conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
      conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints.toUri().toString());
      conf.set(
          CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
          ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
      conf.set(
          CheckpointingOptions.CHECKPOINTING_INTERVAL,
          Duration.ofMillis(settings.checkpointEveryMs()));
      if (latest != null) {
        conf.set(StateRecoveryOptions.SAVEPOINT_PATH, latest.toUri().toString());
        LOG.info("the metering job restores its checkpoint {}", latest);
      }
      Configuration extra = Configuration.fromMap(flinkConf);
      conf.addAll(extra);
      StreamExecutionEnvironment env =
          onContextCluster
              ? StreamExecutionEnvironment.getExecutionEnvironment(conf)
              : StreamExecutionEnvironment.createLocalEnvironment(settings.parallelism(), conf);
      env.setParallelism(settings.parallelism());
      env.getConfig().enableObjectReuse();
      env.setBufferTimeout(JobOptions.BUFFER_TIMEOUT_MS.defaultValue());
      long from = IngestLogFollower.start(ingestDir);
      String key = UUID.randomUUID().toString();
      IngestInput input =
          new IngestInput(
              new IngestInput.Settings(
                  ingestDir.toString(),
                  control.file().toString(),
                  from,
                  flinkDir.resolve(POSITION_FILE).toString(),
                  512,
                  settings.pollMs(),
                  SpyglassClock.system(),
                  committedEnd == null ? null : key,
                  key));
      DataStream<RecordBatch> records =
          env.fromSource(input, WatermarkStrategy.noWatermarks(), "spyglass-ingest")
              .uid(INGEST_UID);
      OperatorSettings operators =
          new OperatorSettings(
              JobOptions.Clock.WALL,
              settings.tickMs(),
              64,
              10,
              settings.maxQueries(),
              1_000,
              FEEDBACK,
              STATUS,
              true);
      DataStream<Outgoing> out = SpyglassJob.pipeline(records, null, operators, List.of(), false);
      out.sinkTo(new ToListener(key)).uid(SINK_UID).name("spyglass-metering-replies");
      MeteringRun run =
          new MeteringRun(
              control, ingestDir, flinkDir, key, latest == null ? null : latest.toString());
      RUNS.put(key, o -> run.deliver(o, listener));
      IngestInput.LOOKS.put(key, run.looks);
      IngestInput.READ_POSITIONS.put(key, run.readPosition);
      if (committedEnd != null) {
        IngestInput.COMMITTED_ENDS.put(key, committedEnd);
      }
      try {
        run.job = env.executeAsync("spyglass-metering");
        return run;
      } catch (Exception | Error e) {
        run.forget();
        throw e;
      }
    } catch (Exception | Error e) {
      control.close();
      throw e;
    }
  }

  /**
   * Runs a query on the job from ingest log position {@code fromPosition} on: it counts the
   * documents at that position and after (give the log's committed end when the query is defined:
   * the documents acknowledged after it). Durable when it returns (the control log is forced to the
   * disk): a restart runs it.
   *
   * @param id the query's id: its replies carry it
   * @param receiveTimeMs when it was defined, epoch ms (its start)
   */
  public void submit(String id, CheckedQuery query, long receiveTimeMs, long fromPosition)
      throws IOException {
    byte[] json =
        ControlMessage.query(id, query.text(), receiveTimeMs, REPLY_TO, null)
            .withLimits(query.limits())
            .toJson();
    control.append(fromPosition, json);
  }

  /**
   * As {@link #submit(String, CheckedQuery, long, long)} from the ingest log's committed end as its
   * files show it now (reads the log's last segment: the service knows the position for less).
   */
  public void submit(String id, CheckedQuery query, long receiveTimeMs) throws IOException {
    submit(id, query, receiveTimeMs, IngestLogFollower.committedEnd(ingestDir));
  }

  /** Stops a query: it sends nothing more, its windows are gone. Durable when it returns. */
  public void kill(String id) throws IOException {
    control.append(-1, ControlMessage.kill(id).toJson());
  }

  /**
   * Asks for a look at a query's open windows as of every document the job has read: the listener
   * gets them (when {@code windows}), each an {@code OPEN} reply, then an {@code INSPECTED} reply
   * carrying the returned number (after the results, on the same thread; for a query the job does
   * not run, the answer alone). Not durable: a look in flight when the job restores may get no
   * answer, or two (take the first).
   *
   * @return the look's number, which its answer carries
   */
  public long inspect(String id, boolean windows) {
    long n = lookNumbers.incrementAndGet();
    looks.add(ControlMessage.inspect(id, n, REPLY_TO, windows).toJson());
    return n;
  }

  /**
   * How far the job has read the ingest log: the position after the last document it took; -1
   * before it has read from the log since this run started.
   */
  public long readPosition() {
    return readPosition.get();
  }

  /**
   * The ingest log position the job's last completed checkpoint covers (a restore reads the log
   * from there); -1 before the first. The service must keep the log's records from there on.
   */
  public long checkpointedPosition() throws IOException {
    return checkpointedPosition(flinkDir);
  }

  /**
   * As {@link #checkpointedPosition()}, for the job's folder {@code flinkDir} whether a run is
   * started or not (a service that retires ingest log segments before it starts the job).
   */
  public static long checkpointedPosition(Path flinkDir) throws IOException {
    Path file = flinkDir.resolve(POSITION_FILE);
    try {
      return Long.parseLong(Files.readString(file, StandardCharsets.UTF_8).trim());
    } catch (NoSuchFileException e) {
      return -1;
    } catch (NumberFormatException e) {
      throw new IOException(file + " is damaged: " + e.getMessage());
    }
  }

  /**
   * The standing queries the control log under {@code flinkDir} knows, by id as submitted: true for
   * one that runs (submitted, neither killed nor ended since), false for one killed or ended on the
   * job. Empty when there is no control log (a job that never ran there, or a folder deleted).
   * Reads the file without changing it; call it before {@link #start} to compare with what the
   * service holds.
   */
  public static Map<String, Boolean> queries(Path flinkDir) throws IOException {
    Map<String, Boolean> out = new java.util.LinkedHashMap<>();
    try (ControlLog.Reader r = new ControlLog.Reader(flinkDir.resolve(CONTROL_FILE))) {
      long at = ControlLog.HEADER;
      ControlLog.Entry e;
      while ((e = r.read(at)) != null) {
        at = e.next();
        ControlMessage m;
        try {
          m = ControlMessage.parse(e.json());
        } catch (MessageFormatException bad) {
          continue;
        }
        switch (m.type()) {
          case QUERY -> out.putIfAbsent(m.queryId(), true);
          case KILL, ENDED -> out.computeIfPresent(m.queryId(), (k, v) -> false);
          default -> {}
        }
      }
    }
    return out;
  }

  /** The checkpoint this run was restored from; null when it started afresh. */
  public String restoredFrom() {
    return restoredFrom;
  }

  /** The job's id in its cluster. */
  public JobID jobId() {
    return job.getJobID();
  }

  /** Bad input the job skipped so far, as each filter subtask last told it. */
  public BadInput.Snapshot badInput() {
    return Statuses.bad(statuses.values());
  }

  /** Documents read well so far by this run, as each filter subtask last told it. */
  public long recordsRead() {
    return statuses.values().stream().mapToLong(JobStatus::records).sum();
  }

  private void deliver(Outgoing o, Listener listener) {
    try {
      if (REPLY_TO.equals(o.topic)) {
        Reply.decodeAll(o.value).forEach(listener::reply);
      } else if (FEEDBACK.equals(o.topic)) {
        ControlMessage m = ControlMessage.parse(o.value);
        if (m.type() == ControlMessage.Type.ENDED) {
          control.append(-1, o.value); // every filter drops the query, now and after a restore
        }
      } else if (STATUS.equals(o.topic)) {
        JobStatus s = JobStatus.parse(o.value);
        statuses.put(s.subtask(), s);
      }
    } catch (MessageFormatException e) {
      LOG.warn("skipping a malformed message of the metering job: {}", e.getMessage());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The latest completed checkpoint under {@code checkpoints}: the highest chk-N with metadata. */
  static Path latestCheckpoint(Path checkpoints) throws IOException {
    if (!Files.isDirectory(checkpoints)) {
      return null;
    }
    Path best = null;
    long bestN = -1;
    try (DirectoryStream<Path> jobs = Files.newDirectoryStream(checkpoints)) {
      for (Path j : jobs) {
        if (!Files.isDirectory(j)) {
          continue;
        }
        try (DirectoryStream<Path> chks = Files.newDirectoryStream(j, "chk-*")) {
          for (Path c : chks) {
            long n;
            try {
              n = Long.parseLong(c.getFileName().toString().substring(4));
            } catch (NumberFormatException e) {
              continue;
            }
            if (n > bestN && Files.isRegularFile(c.resolve("_metadata"))) {
              best = c;
              bestN = n;
            }
          }
        }
      }
    }
    return best;
  }

  /** Deletes the checkpoints of former runs other than {@code keep}'s: they hold nothing later. */
  private static void removeOtherJobs(Path checkpoints, Path keep) throws IOException {
    if (!Files.isDirectory(checkpoints)) {
      return;
    }
    try (DirectoryStream<Path> jobs = Files.newDirectoryStream(checkpoints)) {
      for (Path j : jobs) {
        if (keep != null && keep.startsWith(j)) {
          continue;
        }
        try (Stream<Path> all = Files.walk(j)) {
          all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
      }
    }
  }

  /**
   * Stops the job without a savepoint: its checkpoints stay, and a start on the same folders goes
   * on from the latest.
   */
  @Override
  public void close() throws IOException {
    try {
      if (!job.getJobStatus().get(10, TimeUnit.SECONDS).isGloballyTerminalState()) {
        job.cancel().get(60, TimeUnit.SECONDS);
      }
    } catch (Exception e) {
      LOG.debug("cancelling the metering job: {}", e.toString());
    } finally {
      forget();
      control.close();
    }
  }

  private void forget() {
    RUNS.remove(key);
    IngestInput.COMMITTED_ENDS.remove(key);
    IngestInput.LOOKS.remove(key);
    IngestInput.READ_POSITIONS.remove(key);
  }

  /** The job's replies to this process's {@link MeteringRun}, found by its key. */
  static final class ToListener implements Sink<Outgoing> {
    private static final long serialVersionUID = 1L;
    private final String key;

    ToListener(String key) {
      this.key = key;
    }

    @Override
    public SinkWriter<Outgoing> createWriter(WriterInitContext context) {
      return new SinkWriter<>() {
        @Override
        public void write(Outgoing o, Context c) {
          Consumer<Outgoing> run = RUNS.get(key);
          if (run != null) {
            run.accept(o);
          }
        }

        @Override
        public void flush(boolean endOfInput) {}

        @Override
        public void close() {}
      };
    }
  }
}
