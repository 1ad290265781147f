package io.spyglass.flink;

import io.spyglass.core.SpyglassClock;
import io.spyglass.core.query.Query;
import io.spyglass.flink.client.ControlMessage;
import io.spyglass.flink.client.JobStatus;
import io.spyglass.flink.client.MessageFormatException;
import io.spyglass.flink.client.RemoteQuery;
import io.spyglass.flink.client.Replies;
import io.spyglass.flink.client.Reply;
import io.spyglass.sources.BadInput;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Spyglass job on a Flink mini cluster in this process, over a source of the embedded engine
 * ({@code gen}, {@code file:}, {@code -}, {@code kafka://}), with a fixed set of queries that run
 * from the first record; results come back through Flink's collect sink. What {@code spyglass query
 * --runtime flink} runs.
 *
 * <pre>{@code
 * try (LocalRun run = LocalRun.start("file:/tmp/events.json", queries, 2)) {
 *   for (RemoteQuery q : run.queries()) { ... q.poll(...) ... }
 * }
 * }</pre>
 */
public final class LocalRun implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LocalRun.class);
  private static final String REPLY_TO = "local";
  private static final String STATUS = "status";

  private final JobClient job;
  private final CloseableIterator<Outgoing> results;
  private final Replies replies;
  private final List<RemoteQuery> queries;
  private final Thread reader;
  private final Path savepoints;
  private final CompletableFuture<Void> finished = new CompletableFuture<>();
  private final Map<Integer, JobStatus> statuses = new ConcurrentHashMap<>();

  /** The RPC threads that ran before the job's cluster started (see {@link #close}). */
  private final Set<Thread> rpcThreadsBefore;

  private LocalRun(
      JobClient job,
      CloseableIterator<Outgoing> results,
      Replies replies,
      List<RemoteQuery> queries,
      Path savepoints,
      Set<Thread> rpcThreadsBefore) {
    this.job = job;
    this.rpcThreadsBefore = rpcThreadsBefore;
    this.results = results;
    this.replies = replies;
    this.queries = queries;
    this.savepoints = savepoints;
    this.reader = new Thread(this::read, "spyglass-flink-results");
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * Starts the job.
   *
   * @param source a source spec of the embedded engine
   * @param queries parsed queries, each run under the limits it was parsed with; each starts (its
   *     receive time) when the job first has it
   * @param parallelism filter and combiner subtasks (the source is one subtask)
   */
  public static LocalRun start(String source, List<Query> queries, int parallelism)
      throws Exception {
    return start(source, queries, parallelism, java.util.Map.of());
  }

  /**
   * As {@link #start(String, List, int)}, a {@code kafka://} source's consumer with {@code
   * kafkaProperties} applied last (e.g. TLS or SASL settings).
   */
  public static LocalRun start(
      String source,
      List<Query> queries,
      int parallelism,
      java.util.Map<String, Object> kafkaProperties)
      throws Exception {
    return start(
        source,
        queries,
        parallelism,
        new OperatorSettings(JobOptions.Clock.WALL, 100, 64, 10, 20_000, 1_000, null, STATUS, true),
        kafkaProperties);
  }

  static LocalRun start(
      String source, List<Query> queries, int parallelism, OperatorSettings settings)
      throws Exception {
    return start(source, queries, parallelism, settings, java.util.Map.of());
  }

  static LocalRun start(
      String source,
      List<Query> queries,
      int parallelism,
      OperatorSettings settings,
      java.util.Map<String, Object> kafkaProperties)
      throws Exception {
    Configuration conf = new Configuration();
    conf.set(PipelineOptions.GENERIC_TYPES, false);
    conf.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
    conf.set(RestOptions.BIND_PORT, "0");
    conf.set(CoreOptions.DEFAULT_PARALLELISM, parallelism);
    StreamExecutionEnvironment env =
        StreamExecutionEnvironment.createLocalEnvironment(parallelism, conf);
    env.getConfig().enableObjectReuse();
    env.setBufferTimeout(JobOptions.BUFFER_TIMEOUT_MS.defaultValue());
    List<byte[]> messages = new ArrayList<>();
    for (Query q : queries) {
      messages.add(
          ControlMessage.query(q.id(), q.text(), ControlMessage.JOB_TIME, REPLY_TO, null)
              .withLimits(q.limits())
              .toJson());
    }
    DataStream<RecordBatch> records =
        env.fromSource(
                new EngineSource(source, kafkaProperties),
                WatermarkStrategy.noWatermarks(),
                "spyglass-source")
            .setParallelism(1);
    DataStream<Outgoing> out =
        SpyglassJob.pipeline(records, null, settings, messages, parallelism > 1);
    CloseableIterator<Outgoing> results = out.collectAsync();
    Replies replies = new Replies(1_024, id -> {});
    List<RemoteQuery> handles = new ArrayList<>();
    for (Query q : queries) {
      handles.add(replies.register(q, q.id()));
    }
    Set<Thread> rpcThreadsBefore = rpcThreads();
    JobClient job = env.executeAsync("spyglass");
    return new LocalRun(
        job, results, replies, handles, Files.createTempDirectory("spyglass-"), rpcThreadsBefore);
  }

  /** The queries, in the order given. */
  public List<RemoteQuery> queries() {
    return queries;
  }

  /**
   * Ends every query now, each with its final result: stops the job with a drain, which moves the
   * job's time to its end. Returns once the job has stopped.
   */
  public void finishAll() {
    if (finished.isDone()) {
      return;
    }
    try {
      if (!job.getJobStatus().get(10, TimeUnit.SECONDS).isGloballyTerminalState()) {
        job.stopWithSavepoint(true, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
            .get(60, TimeUnit.SECONDS);
      }
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      // the job ended meanwhile (its mini cluster is gone), or could not stop
      LOG.debug("stopping the job with a drain: {}", e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Bad input the job skipped so far, as each filter subtask last told it. */
  public BadInput.Snapshot badInput() {
    return Statuses.bad(statuses.values());
  }

  /** Records read well so far, as each filter subtask last told it. */
  public long recordsRead() {
    return statuses.values().stream().mapToLong(JobStatus::records).sum();
  }

  /** Waits until the job has ended and every reply is read. */
  public boolean awaitEnd(long timeout, TimeUnit unit) throws InterruptedException {
    try {
      finished.get(timeout, unit);
      return true;
    } catch (ExecutionException e) {
      return true;
    } catch (TimeoutException e) {
      return false;
    }
  }

  private void read() {
    String error = null;
    try {
      // ends when the job has ended; throws when it failed
      while (results.hasNext()) {
        Outgoing o = results.next();
        try {
          if (REPLY_TO.equals(o.topic)) {
            Reply.decodeAll(o.value).forEach(replies::accept);
          } else if (STATUS.equals(o.topic)) {
            JobStatus s = JobStatus.parse(o.value);
            statuses.put(s.subtask(), s);
          }
        } catch (MessageFormatException e) {
          LOG.warn("skipping a malformed message of the job: {}", e.getMessage());
        }
      }
    } catch (RuntimeException e) {
      error = "the Flink job failed: " + rootMessage(e);
    } finally {
      replies.endAll(error == null ? "the Flink job ended before the query" : error);
      finished.complete(null);
    }
  }

  private static String rootMessage(Throwable t) {
    Throwable c = t;
    while (c.getCause() != null && c.getCause() != c) {
      c = c.getCause();
    }
    return c.getMessage() == null ? c.toString() : c.getMessage();
  }

  /** Cancels the job if it still runs. */
  @Override
  public void close() {
    try {
      results.close();
    } catch (Exception e) {
      LOG.debug("closing the results: {}", e.toString());
    }
    try {
      if (!job.getJobStatus().get(10, TimeUnit.SECONDS).isGloballyTerminalState()) {
        job.cancel().get(30, TimeUnit.SECONDS);
      }
    } catch (Exception e) {
      LOG.debug("cancelling the job: {}", e.toString());
    }
    try (Stream<Path> files = Files.walk(savepoints)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      LOG.debug("removing {}: {}", savepoints, e.toString());
    }
    awaitClusterDown(rpcThreadsBefore);
  }

  /**
   * Waits (up to 10 s) for the run's mini cluster to be down: Flink closes it in the background
   * once the job ended, and a process that exits meanwhile runs the cluster's RPC system's JVM hook
   * (Pekko's) while its class loader is being closed, which then prints a stack trace of a class it
   * can no longer load. The RPC system's threads are named {@code flink-*pekko*}; those the run
   * started are gone once its actor systems have terminated and removed their hooks.
   */
  private static void awaitClusterDown(Set<Thread> before) {
    SpyglassClock clock = SpyglassClock.system();
    long deadline = clock.deadlineIn(10_000);
    while (clock.msLeft(deadline) > 0 && !rpcThreads().stream().allMatch(before::contains)) {
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** The live threads of Flink's RPC systems in this JVM. */
  private static Set<Thread> rpcThreads() {
    Set<Thread> out = new HashSet<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      String name = t.getName();
      if (t.isAlive() && name.startsWith("flink-") && name.contains("pekko")) {
        out.add(t);
      }
    }
    return out;
  }
}
