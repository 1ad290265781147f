package io.spyglass.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.result.Result;
import io.spyglass.flink.client.FlinkQueryClient;
import io.spyglass.flink.client.Mark;
import io.spyglass.flink.client.RemoteQuery;
import io.spyglass.testkit.QueryTestDriver;
import io.spyglass.testkit.kafka.TestKafka;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.executiongraph.AccessExecutionGraph;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.Test;

/**
 * Checkpoints on, a TaskManager killed in the middle of windowed queries (with a checkpoint holding
 * their windows half full): the job restarts from the checkpoint, replays the records after it, and
 * every query goes on. Every window reaches the reader exactly once with the same records as on the
 * embedded engine: with EXACTLY_ONCE the result topic holds each window once; with AT_LEAST_ONCE
 * windows emitted after the checkpoint are sent again, the same (time is in clock marks), and the
 * reader drops them by window number.
 */
@OnMiniCluster
class FailureITCase {
  private static final long T0 = QueryTestDriver.START_MS;
  private static final int WINDOWS = 10;
  private static final int KILL_IN_WINDOW = 4;
  private static final Map<String, String> QUERIES = new LinkedHashMap<>();

  /** The index of the TaskManager running now: each test kills it and starts the next. */
  private static int liveTaskManager;

  static {
    QUERIES.put(
        "count", "SELECT COUNT(*) AS n FROM STREAM(10000, TIME) WINDOWING TUMBLING(1000, TIME)");
    QUERIES.put(
        "groups",
        "SELECT k, SUM(v) AS s, COUNT(*) AS n FROM STREAM(10000, TIME) GROUP BY k"
            + " WINDOWING TUMBLING(1000, TIME)");
    QUERIES.put(
        "sliding",
        "SELECT COUNT(*) AS n, MAX(v) AS hi FROM STREAM(10000, TIME)"
            + " WINDOWING EVERY(1000, TIME, FIRST, 2000, TIME)");
  }

  /** The records of window w (1-based). */
  private static List<String> records(int w) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < 20 + w; i++) {
      out.add("{\"k\": \"k" + (i % 3) + "\", \"v\": " + (w * 100 + i) + "}");
    }
    return out;
  }

  @Test
  void aTaskManagerKilledInAWindowLosesNoWindowAndRepeatsNone(
      @InjectMiniCluster MiniCluster cluster) throws Exception {
    run(JobOptions.Delivery.AT_LEAST_ONCE, cluster);
  }

  /**
   * The case on {@code cluster}, which must be fresh (its first TaskManager running): each delivery
   * has a class, and so a cluster, of its own (see {@link ExactlyOnceFailureITCase}).
   */
  static void run(JobOptions.Delivery delivery, MiniCluster cluster) throws Exception {
    liveTaskManager = 0;
    Map<String, List<String>> expected = embedded();

    KafkaJobs.Job j =
        KafkaJobs.prepare(
            "failure",
            2,
            Map.of(
                "clock", "MARKS",
                "records.virtual-fields", "false",
                "checkpoint-ms", "200",
                "results.delivery", delivery.name()));
    j.conf().set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
    j.conf().set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 20);
    j.conf().set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(200));
    JobClient job = KafkaJobs.start(j, 2);
    long[] clock = {T0};
    try (KafkaProducer<byte[], byte[]> producer = TestKafka.shared().producer();
        FlinkQueryClient client =
            FlinkQueryClient.connect(
                FlinkQueryClient.Settings.of(TestKafka.shared().bootstrap(), "failure-" + delivery)
                    .withQueryTopic(j.queriesTopic())
                    .withClock(() -> clock[0]))) {
      mark(producer, j.recordsTopic(), Mark.clock(T0));
      Map<String, RemoteQuery> running = new LinkedHashMap<>();
      for (Map.Entry<String, String> q : QUERIES.entrySet()) {
        running.put(q.getKey(), client.submit(q.getKey() + "-" + delivery, q.getValue()));
      }
      for (RemoteQuery q : running.values()) {
        assertThat(q.awaitRunning(60, TimeUnit.SECONDS)).as("running").isTrue();
      }
      for (int w = 1; w <= WINDOWS; w++) {
        List<String> rs = records(w);
        for (int i = 0; i < rs.size(); i++) {
          producer.send(
              new ProducerRecord<>(
                  j.recordsTopic(),
                  i % 2,
                  clock[0],
                  null,
                  rs.get(i).getBytes(StandardCharsets.UTF_8)));
        }
        producer.flush();
        if (w == KILL_IN_WINDOW) {
          // a checkpoint holds this window half merged; then the TaskManager dies
          awaitCheckpoints(cluster, job, 2);
          cluster.terminateTaskManager(liveTaskManager).get(30, TimeUnit.SECONDS);
          cluster.startTaskManager();
          liveTaskManager++;
        }
        clock[0] += 1000;
        mark(producer, j.recordsTopic(), Mark.clock(clock[0]));
      }
      Map<String, List<String>> actual = new LinkedHashMap<>();
      for (Map.Entry<String, RemoteQuery> e : running.entrySet()) {
        RemoteQuery q = e.getValue();
        List<String> got = new ArrayList<>();
        Result r;
        while ((r = q.poll(60, TimeUnit.SECONDS)) != null) {
          got.add(describe(r));
        }
        assertThat(q.isDone()).as(e.getKey() + " ended").isTrue();
        assertThat(q.error()).as(e.getKey()).isNull();
        actual.put(e.getKey(), got);
        if (delivery == JobOptions.Delivery.EXACTLY_ONCE) {
          assertThat(q.duplicates()).as(e.getKey() + ": windows sent twice").isZero();
        }
        System.out.printf(
            "%s %s: %d windows, %d sent again and dropped by the reader%n",
            delivery, e.getKey(), got.size(), q.duplicates());
      }
      AccessExecutionGraph graph = cluster.getExecutionGraph(job.getJobID()).get();
      assertThat(graph.getStatusTimestamp(JobStatus.RESTARTING))
          .as("the job restarted after the TaskManager died")
          .isPositive();
      assertThat(actual).isEqualTo(expected);
    } finally {
      job.cancel().get(30, TimeUnit.SECONDS);
    }
  }

  /** Each window's number, finality and records. */
  private static String describe(Result r) {
    return r.meta().window().map(w -> w.number()).orElse(0L)
        + (r.meta().isFinal() ? " final " : " ")
        + r.records();
  }

  /** The same steps on the embedded driver. */
  private static Map<String, List<String>> embedded() {
    QueryTestDriver d = new QueryTestDriver();
    QUERIES.forEach(d::submit);
    for (int w = 1; w <= WINDOWS; w++) {
      d.pipe(records(w).toArray(new String[0]));
      d.advance(1000);
    }
    Map<String, List<String>> out = new LinkedHashMap<>();
    for (String id : QUERIES.keySet()) {
      out.put(id, d.results(id).stream().map(FailureITCase::describe).toList());
    }
    return out;
  }

  private static void mark(KafkaProducer<byte[], byte[]> producer, String topic, Mark m) {
    for (int p = 0; p < 2; p++) {
      ProducerRecord<byte[], byte[]> r =
          new ProducerRecord<>(topic, p, Math.max(0, m.timeMs()), null, m.toJson());
      r.headers().add(new RecordHeader(Mark.HEADER, new byte[] {1}));
      producer.send(r);
    }
    producer.flush();
  }

  private static void awaitCheckpoints(MiniCluster cluster, JobClient job, int more)
      throws Exception {
    long start = completed(cluster, job);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (completed(cluster, job) < start + more) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no checkpoint completed in 60 s");
      }
      Thread.onSpinWait();
      TimeUnit.MILLISECONDS.sleep(20);
    }
  }

  private static long completed(MiniCluster cluster, JobClient job) throws Exception {
    return cluster
        .getExecutionGraph(job.getJobID())
        .get()
        .getCheckpointStatsSnapshot()
        .getCounts()
        .getNumberOfCompletedCheckpoints();
  }
}
