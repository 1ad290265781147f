package io.spyglass.flink.bench;

import io.spyglass.flink.RecordBatch;
import io.spyglass.flink.SpyglassJob;
import io.spyglass.flink.client.FlinkQueryClient;
import io.spyglass.flink.client.RemoteQuery;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.execution.ExecutionState;
import org.apache.flink.runtime.executiongraph.AccessExecutionVertex;
import org.apache.flink.runtime.executiongraph.ErrorInfo;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;

/**
 * The Spyglass job as deployed, on the bench's mini cluster: records from the run's topic
 * (committed records, from the start), queries sent to a query topic of the run's own, results read
 * back from the result topic by a {@link FlinkQueryClient}, as {@code spyglass serve --runtime
 * flink} does. The job runs with its defaults (checkpoints every 10 s, results at least once).
 * Ending every query is {@code flink stop --drain}: the job's time moves to its end and each query
 * gives its final result.
 */
final class FlinkSide implements Side {
  private static final int SENDERS = 8;

  /**
   * More options of the job, for experiments ({@code -Dspyglass.bench.job-args="--checkpoint-ms
   * 0"}): the benches' figures are of the job with its defaults.
   */
  static final String JOB_ARGS = "spyglass.bench.job-args";

  private final MiniCluster cluster;
  private final JobID job;
  private final FlinkQueryClient client;
  private final Topics topics;
  private final List<String> ownTopics;
  private final Path savepoints;

  private FlinkSide(
      MiniCluster cluster,
      JobID job,
      FlinkQueryClient client,
      Topics topics,
      List<String> ownTopics,
      Path savepoints) {
    this.cluster = cluster;
    this.job = job;
    this.client = client;
    this.topics = topics;
    this.ownTopics = ownTopics;
    this.savepoints = savepoints;
  }

  /**
   * Submits the job over {@code topic} to the cluster and connects a client to it.
   *
   * @param hops network hops between the records source and the filter, each into a stage that
   *     passes records on (0: the source feeds its own filter subtask in the same task, as
   *     deployed)
   */
  static FlinkSide start(
      MiniCluster cluster, Topics topics, String topic, String tag, int parallelism, int hops)
      throws Exception {
    String queryTopic = topic + "-queries";
    String statusTopic = topic + "-status";
    topics.create(queryTopic, 1);
    List<String> own = List.of(queryTopic, statusTopic, FlinkQueryClient.resultTopicOf(tag));
    List<String> args = new ArrayList<>();
    String extra = System.getProperty(JOB_ARGS, "").trim();
    if (!extra.isEmpty()) {
      args.addAll(List.of(extra.split("\\s+")));
    }
    Configuration jobConf =
        SpyglassJob.parseArgs(
            Stream.concat(
                    Stream.of(
                        "--kafka",
                        topics.bootstrap(),
                        "--records.topic",
                        topic,
                        "--records.start",
                        "EARLIEST",
                        "--records.read-committed",
                        "true",
                        "--queries.topic",
                        queryTopic,
                        "--queries.start",
                        "EARLIEST",
                        "--status.topic",
                        statusTopic,
                        "--group",
                        tag),
                    args.stream())
                .toArray(String[]::new));
    Configuration envConf = new Configuration();
    envConf.set(PipelineOptions.GENERIC_TYPES, false);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(envConf);
    env.setParallelism(parallelism);
    SpyglassJob.build(env, jobConf, records -> stages(records, hops));
    StreamGraph graph = env.getStreamGraph();
    graph.setJobName("spyglass-bench-" + tag);
    JobID job = cluster.submitJob(graph).get(120, TimeUnit.SECONDS).getJobID();
    FlinkQueryClient client;
    try {
      client =
          FlinkQueryClient.connect(
              FlinkQueryClient.Settings.of(topics.bootstrap(), tag).withQueryTopic(queryTopic));
    } catch (RuntimeException e) {
      cluster.cancelJob(job);
      throw e;
    }
    return new FlinkSide(
        cluster, job, client, topics, own, Files.createTempDirectory("spyglass-savepoints-"));
  }

  /** {@code hops} network hops before the filter: pass-through stages entered by a rebalance. */
  static DataStream<RecordBatch> stages(DataStream<RecordBatch> records, int hops) {
    DataStream<RecordBatch> s = records;
    for (int i = 1; i < hops; i++) {
      s = s.rebalance().map(new PassOn()).uid("bench-stage-" + i).name("bench-stage-" + i);
    }
    return hops > 0 ? s.rebalance() : s;
  }

  /** A stage that hands each batch of records on as it is. */
  static final class PassOn implements MapFunction<RecordBatch, RecordBatch> {
    private static final long serialVersionUID = 1L;

    @Override
    public RecordBatch map(RecordBatch batch) {
      return batch;
    }
  }

  @Override
  public String label() {
    return "Flink job";
  }

  /** Sends the query messages from several threads (each send waits for the broker's ack). */
  @Override
  public List<Handle> submitAll(List<Bql> queries) {
    ExecutorService pool = Executors.newFixedThreadPool(SENDERS);
    try {
      List<Future<Handle>> sent = new ArrayList<>();
      for (Bql q : queries) {
        sent.add(pool.submit(() -> submit(q)));
      }
      List<Handle> handles = new ArrayList<>();
      for (Future<Handle> f : sent) {
        handles.add(f.get());
      }
      return handles;
    } catch (ExecutionException e) {
      throw new IllegalStateException("could not submit a query: " + e.getCause(), e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while submitting queries", e);
    } finally {
      pool.shutdownNow();
    }
  }

  @Override
  public Handle submit(Bql query) {
    RemoteQuery q = client.submit(query.id(), query.text());
    return new Handle(q::awaitRunning, q::poll, q::isDone, q::error);
  }

  @Override
  public void go() {
    // the job reads as soon as the records are committed
  }

  /**
   * Stops the job with a drain: every query gives its final result, then the job ends. A job that
   * is restarting (after a failure) is waited for, task by task: a savepoint needs every task
   * running.
   */
  @Override
  public void finishAll() throws Exception {
    for (int attempt = 1; ; attempt++) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      while (!tasksNotRunning().isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(200);
      }
      try {
        cluster
            .stopWithSavepoint(
                job, savepoints.toUri().toString(), true, SavepointFormatType.CANONICAL)
            .get(300, TimeUnit.SECONDS);
        return;
      } catch (ExecutionException e) {
        if (attempt >= 5) {
          throw new IllegalStateException(
              "cannot stop the job with a drain; tasks not running: " + tasksNotRunning(), e);
        }
        Thread.sleep(1_000);
      }
    }
  }

  /**
   * The job's tasks that are not running, with their state: none when the job is running whole (a
   * job restarting after a failure is RUNNING while its tasks are deployed again).
   */
  private List<String> tasksNotRunning() throws Exception {
    if (cluster.getJobStatus(job).get(30, TimeUnit.SECONDS) != JobStatus.RUNNING) {
      return List.of("the job: " + cluster.getJobStatus(job).get(30, TimeUnit.SECONDS));
    }
    List<String> out = new ArrayList<>();
    for (AccessExecutionVertex v :
        cluster.getExecutionGraph(job).get(30, TimeUnit.SECONDS).getAllExecutionVertices()) {
      if (v.getExecutionState() != ExecutionState.RUNNING) {
        out.add(v.getTaskNameWithSubtaskIndex() + ": " + v.getExecutionState());
      }
    }
    return out;
  }

  /** Why the job failed (and restarted) during the run, or null when it did not. */
  @Override
  public String failure() throws Exception {
    ErrorInfo failure = cluster.getExecutionGraph(job).get(30, TimeUnit.SECONDS).getFailureInfo();
    return failure == null ? null : failure.getExceptionAsString();
  }

  @Override
  public void close() {
    client.close();
    try {
      if (!cluster.getJobStatus(job).get(30, TimeUnit.SECONDS).isGloballyTerminalState()) {
        cluster.cancelJob(job).get(60, TimeUnit.SECONDS);
      }
      cluster.requestJobResult(job).get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      System.err.println("bench: stopping the job: " + e);
    }
    topics.delete(ownTopics);
    try (Stream<Path> files = Files.walk(savepoints)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a temporary folder: the OS cleans it
    }
  }
}
