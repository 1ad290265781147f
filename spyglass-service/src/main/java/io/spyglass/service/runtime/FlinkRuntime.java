package io.spyglass.service.runtime;

import io.spyglass.core.result.Result;
import io.spyglass.core.run.CheckedQuery;
import io.spyglass.flink.client.FlinkQueryClient;
import io.spyglass.flink.client.JobStatus;
import io.spyglass.flink.client.RemoteQuery;
import io.spyglass.service.health.Health;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
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

  private final Map<String, Running> running = new ConcurrentHashMap<>();
  private final BlockingQueue<Running> news = new LinkedBlockingQueue<>();
  private final LongAdder emitted = new LongAdder();
  private final Thread dispatcher;
  private volatile boolean closed;
  private long rateSinceMs = -1;
  private long rateSinceRecords;
  private double rate;

  private static final class Running {
    final RemoteQuery query;
    final ResultListener listener;
    final long submittedMs;
    final AtomicBoolean queued = new AtomicBoolean();
    boolean ended;

    Running(RemoteQuery query, ResultListener listener, long submittedMs) {
      this.query = query;
      this.listener = listener;
      this.submittedMs = submittedMs;
    }
  }

  private FlinkRuntime(FlinkQueryClient client, String kafka) {
    this.client = client;
    this.kafka = kafka;
    this.dispatcher = new Thread(this::dispatch, "spyglass-flink-results");
    dispatcher.setDaemon(true);
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
    return new FlinkRuntime(
        FlinkQueryClient.connect(
            FlinkQueryClient.Settings.of(kafka, instance)
                .withQueryTopic(queryTopic)
                .withStatusTopic(statusTopic)
                .withKafkaProperties(kafkaProperties)),
        kafka);
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
    Running r = new Running(q, listener, System.currentTimeMillis());
    running.put(id, r);
    q.onUpdate(() -> signal(r));
    signal(r);
  }

  private void signal(Running r) {
    if (r.queued.compareAndSet(false, true)) {
      news.add(r);
    }
  }

  private void dispatch() {
    while (!closed) {
      try {
        Running r = news.poll(200, TimeUnit.MILLISECONDS);
        if (r != null) {
          r.queued.set(false);
          deliverOrFail(r);
        }
        abandonUnstarted();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException e) {
        LOG.error("results dispatch failed; going on", e);
      }
    }
  }

  /** Delivers; when the listener throws, the query is stopped and ends with the error. */
  private void deliverOrFail(Running r) throws InterruptedException {
    try {
      deliver(r);
    } catch (InterruptedException e) {
      throw e;
    } catch (Throwable t) { // one query's failure must not stop every query's results
      LOG.error("delivering the results of {} failed; the query is stopped", r.query.id(), t);
      if (r.ended) {
        return;
      }
      r.ended = true;
      running.remove(r.query.id(), r);
      try {
        r.query.kill();
      } catch (RuntimeException e) {
        LOG.warn("could not kill {} in the job: {}", r.query.id(), e.toString());
      }
      try {
        r.listener.onEnd(ResultListener.failure(t), null);
      } catch (Throwable again) {
        LOG.error("result listener of {} failed at its end", r.query.id(), again);
      }
    }
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

  /** Ends the queries the job has not started in time. */
  private void abandonUnstarted() throws InterruptedException {
    long now = System.currentTimeMillis();
    for (Running r : running.values()) {
      if (!r.ended
          && now - r.submittedMs > START_TIMEOUT_MS
          && !r.query.awaitRunning(0, TimeUnit.MILLISECONDS)) {
        r.query.kill();
        r.ended = true;
        running.remove(r.query.id(), r);
        r.listener.onEnd(
            "The Flink job did not start the query within "
                + START_TIMEOUT_MS / 1000
                + " s: is it running and reading "
                + client.settings().queryTopic()
                + "?",
            null);
      }
    }
  }

  private void deliver(Running r) throws InterruptedException {
    if (r.ended) {
      return;
    }
    Result result;
    while ((result = r.query.poll(0, TimeUnit.MILLISECONDS)) != null) {
      emitted.increment();
      r.listener.onResult(result);
    }
    if (r.query.isDone()) {
      while ((result = r.query.poll(0, TimeUnit.MILLISECONDS)) != null) {
        emitted.increment();
        r.listener.onResult(result);
      }
      r.ended = true;
      running.remove(r.query.id(), r);
      r.listener.onEnd(r.query.error(), progress(r));
    }
  }

  /** Ends the query now with its final result (the job's {@code finish}). */
  @Override
  public void kill(String id) {
    if (running.containsKey(id)) {
      client.finish(id);
    }
  }

  @Override
  public void killAll() {
    for (String id : running.keySet()) {
      kill(id);
    }
  }

  @Override
  public Map<String, QueryProgress> progress() {
    Map<String, QueryProgress> out = new HashMap<>();
    running.forEach((id, r) -> out.put(id, progress(r)));
    return out;
  }

  @Override
  public Optional<QueryProgress> progress(String id) {
    Running r = running.get(id);
    return r == null ? Optional.empty() : Optional.of(progress(r));
  }

  private static QueryProgress progress(Running r) {
    return new QueryProgress(r.query.progress().seen(), r.query.progress().matched());
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
    long now = System.currentTimeMillis();
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
    return new RuntimeStats(records, bad, rate, running.size(), emitted.sum(), problem);
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
    for (Running r : running.values()) {
      try {
        r.query.kill();
      } catch (RuntimeException e) {
        LOG.warn("could not kill {} in the job: {}", r.query.id(), e.toString());
      }
    }
    client.close();
    dispatcher.interrupt();
    try {
      dispatcher.join(2_000);
      for (Running r : running.values()) {
        deliverOrFail(r);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
