package io.spyglass.service.runtime;

import io.spyglass.core.SpyglassClock;
import io.spyglass.core.query.QueryStats;
import io.spyglass.core.run.CheckedQuery;
import io.spyglass.core.run.RunningQuery;
import io.spyglass.flink.client.FlinkQueryClient;
import io.spyglass.flink.client.JobStatus;
import io.spyglass.flink.client.RemoteQuery;
import io.spyglass.service.health.Health;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Spyglass job on a Flink cluster as a {@link QueryRuntime}, reached through Kafka with a
 * {@link FlinkQueryClient}: queries go to the job's query topic, results come back on this
 * instance's own result topic (several instances share one job), and the stream's counters on the
 * job's status topic. Like {@link EmbeddedRuntime}, one dispatcher thread moves each query's
 * results to its listener when the query has news.
 *
 * <p>A query the job does not start within {@link #START_TIMEOUT_MS} (the job is down, or reads
 * another query topic) ends with an error that says so.
 */
public final class FlinkRuntime implements QueryRuntime {
  private static final Logger LOG = LoggerFactory.getLogger(FlinkRuntime.class);

  /** How long a query may wait for the job to start it. */
  public static final long START_TIMEOUT_MS = 30_000;

  private final FlinkQueryClient client;

  /** The job's Kafka, {@code HOST:PORT} as given. */
  private final String kafka;

  private final ResultDispatcher dispatcher;
  private volatile boolean closed;
  private long rateSinceMs = -1;
  private long rateSinceRecords;
  private double rate;

  /** The service's clock: its monotonic one times the start of queries and the rate. */
  private final SpyglassClock clock;

  private FlinkRuntime(FlinkQueryClient client, String kafka, SpyglassClock clock) {
    this.clock = clock;
    this.client = client;
    this.kafka = kafka;
    this.dispatcher = new ResultDispatcher("spyglass-flink-results", 200, this::abandonUnstarted);
    dispatcher.start();
  }

  /**
   * Connects to the job's Kafka as instance {@code instance} (unique among the instances sharing
   * the job; its result topic is {@code spyglass-results-INSTANCE}).
   *
   * @throws IllegalStateException when Kafka does not answer or the job's query topic is missing
   */
  public static FlinkRuntime connect(
      String kafka, String instance, String queryTopic, String statusTopic) {
    return connect(kafka, instance, queryTopic, statusTopic, java.util.Map.of());
  }

  /**
   * As {@link #connect(String, String, String, String)}, the Kafka clients with {@code
   * kafkaProperties} applied last (e.g. TLS or SASL settings).
   */
  public static FlinkRuntime connect(
      String kafka,
      String instance,
      String queryTopic,
      String statusTopic,
      java.util.Map<String, Object> kafkaProperties) {
    return connect(
        kafka, instance, queryTopic, statusTopic, kafkaProperties, SpyglassClock.system());
  }

  /**
   * As {@link #connect(String, String, String, String, java.util.Map)}, on {@code clock}: the
   * client's (the queries' receive time, its waits), and the queries' start and the rate of records
   * timed by its monotonic clock.
   */
  public static FlinkRuntime connect(
      String kafka,
      String instance,
      String queryTopic,
      String statusTopic,
      java.util.Map<String, Object> kafkaProperties,
      SpyglassClock clock) {
    return new FlinkRuntime(
        FlinkQueryClient.connect(
            FlinkQueryClient.Settings.of(kafka, instance)
                .withQueryTopic(queryTopic)
                .withStatusTopic(statusTopic)
                .withKafkaProperties(kafkaProperties)
                .withClock(clock)),
        kafka,
        clock);
  }

  @Override
  public void submit(String id, CheckedQuery query, ResultListener listener) {
    submit(id, query, listener, List.of());
  }

  /**
   * The Kafka sinks on the job's own cluster whose topic exists: the job writes them with its
   * replies (a missing topic would fail the job's sink, so those the service delivers itself).
   */
  @Override
  public List<io.spyglass.sinks.SinkSpec> ownSinks(List<io.spyglass.sinks.SinkSpec> sinks) {
    List<io.spyglass.sinks.SinkSpec> out = new java.util.ArrayList<>();
    for (io.spyglass.sinks.SinkSpec s : sinks) {
      if (s.type() == io.spyglass.sinks.SinkSpec.Type.KAFKA
          && kafka.equalsIgnoreCase(s.bootstrap())
          && client.topicExists(s.target())) {
        out.add(s);
      }
    }
    return out;
  }

  @Override
  public void submit(
      String id,
      CheckedQuery query,
      ResultListener listener,
      List<io.spyglass.sinks.SinkSpec> own) {
    if (closed) {
      throw new IllegalStateException("The runtime has stopped");
    }
    List<String> topics = own.stream().map(io.spyglass.sinks.SinkSpec::target).toList();
    RemoteQuery q = client.submit(id, query, true, topics);
    dispatcher.add(id, q, listener, monotonicMs());
  }

  @Override
  public List<Health.Problem> problems() {
    if (!closed && !dispatcher.isAlive()) {
      return List.of(
          Health.Problem.down(
              "The thread that delivers results (spyglass-flink-results) has stopped: no query"
                  + " gets results any more; restart the service"));
    }
    return List.of();
  }

  /** Milliseconds on the monotonic clock (only differences mean something). */
  private long monotonicMs() {
    return clock.nanos() / 1_000_000;
  }

  /** Ends the queries the job has not started in time (on the dispatching thread). */
  private void abandonUnstarted() {
    long now = monotonicMs();
    for (ResultDispatcher.Running r : dispatcher.running()) {
      if (!r.ended && now - r.submittedMs > START_TIMEOUT_MS && !isRunning(r.query)) {
        r.query.kill();
        dispatcher.end(
            r,
            "The Flink job did not start the query within "
                + START_TIMEOUT_MS / 1000
                + " s: is it running and reading "
                + client.settings().queryTopic()
                + "?",
            null);
      }
    }
  }

  private static boolean isRunning(RunningQuery q) {
    try {
      return q.awaitRunning(0, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return true; // closing: not abandoned
    }
  }

  /** Ends the query now with its final result (the job's {@code finish}). */
  @Override
  public void kill(String id) {
    ResultDispatcher.Running r = dispatcher.get(id);
    if (r != null) {
      r.query.finish();
    }
  }

  @Override
  public void killAll() {
    for (ResultDispatcher.Running r : dispatcher.running()) {
      r.query.finish();
    }
  }

  @Override
  public Map<String, QueryStats> progress() {
    Map<String, QueryStats> out = new HashMap<>();
    for (ResultDispatcher.Running r : dispatcher.running()) {
      out.put(r.id, r.query.stats().orElse(QueryStats.NONE));
    }
    return out;
  }

  @Override
  public Optional<QueryStats> progress(String id) {
    ResultDispatcher.Running r = dispatcher.get(id);
    return r == null ? Optional.empty() : r.query.stats();
  }

  @Override
  public synchronized RuntimeStats stats() {
    Map<Integer, JobStatus> job = client.jobStatus();
    long records = 0;
    long bad = 0;
    long newest = 0;
    for (JobStatus s : job.values()) {
      records += s.records();
      bad += s.bad();
      newest = Math.max(newest, s.timeMs());
    }
    long now = monotonicMs();
    if (rateSinceMs < 0) {
      rateSinceMs = now;
      rateSinceRecords = records;
    } else if (now - rateSinceMs >= 1_000) {
      rate = (records - rateSinceRecords) * 1000.0 / (now - rateSinceMs);
      rateSinceMs = now;
      rateSinceRecords = records;
    }
    String problem =
        job.isEmpty()
            ? "no status from the Flink job yet (topic " + client.settings().statusTopic() + ")"
            : now - newest > 10_000
                ? "the Flink job has not told its status for " + (now - newest) / 1000 + " s"
                : null;
    return new RuntimeStats(
        records, bad, rate, dispatcher.running().size(), dispatcher.delivered(), problem);
  }

  /**
   * Hands {@code sampler} the records the job samples for its status: about one a second per filter
   * subtask, whatever {@code everyN} says (the job decides how often to sample).
   */
  @Override
  public void sampleRecords(int everyN, RecordSampler sampler) {
    client.onSample(sampler == null ? null : b -> sampler.sample(b, 0, b.length));
  }

  @Override
  public String describe() {
    FlinkQueryClient.Settings s = client.settings();
    return "Flink job via Kafka "
        + s.bootstrap()
        + " (queries "
        + s.queryTopic()
        + ", results "
        + s.resultTopic()
        + ")";
  }

  /** Stops reading results; queries still running here are killed in the job. */
  @Override
  public void close() {
    closed = true;
    for (ResultDispatcher.Running r : dispatcher.running()) {
      try {
        r.query.kill();
      } catch (RuntimeException e) {
        LOG.warn("could not kill {} in the job: {}", r.id, e.toString());
      }
    }
    client.close(); // the queries end here with an error that says so
    dispatcher.close();
  }
}
