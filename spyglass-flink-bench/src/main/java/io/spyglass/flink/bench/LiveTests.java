package io.spyglass.flink.bench;

import io.spyglass.core.result.Result;
import io.spyglass.scenarios.Delays;
import io.spyglass.scenarios.Report;
import io.spyglass.sources.EventGenerator;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Bullet's tests 1 and 2 over a live stream through Kafka. A {@link Feeder} process sends generated
 * records of about 1.8 KiB to a topic of the run's own at a paced rate, each stamped with the time
 * it is sent ({@code event_ts}), from before the runtime starts; the runtime reads the topic as it
 * grows, and the queries run one at a time, as Bullet ran its 100:
 *
 * <ul>
 *   <li>test 1: {@code SELECT * FROM STREAM(30000, TIME) LIMIT 1}, Bullet's simplest query (any one
 *       record);
 *   <li>test 2: a query for an id no record has, then, once it runs on every filter, a record of
 *       that id sent to Kafka (by the bench: one record).
 * </ul>
 *
 * <p>Delays are relative to the query received, the time its results carry: for the embedded engine
 * when it was submitted, for the Flink job when the client sent it to the query topic. Queries run
 * unmeasured first, for a warm-up time and until the runtime reads the stream within a second of
 * its records' sending. CPU is this process's while the measured queries run; records are those the
 * feeder sent meanwhile (its own CPU, in its own process, is not counted, nor the broker's).
 */
final class LiveTests {
  static final String SIMPLEST = "SELECT * FROM STREAM(30000, TIME) LIMIT 1";

  static final String SENT = "Record sent to Kafka (event_ts)";
  static final String READ = "Record read (_read_ms)";
  static final String RECEIVED = "Query received";
  static final String RUNNING = "Query running on every filter";
  static final String NEEDLE_SENT = "Needle sent to Kafka";
  static final String NEEDLE_READ = "Needle read (_read_ms)";
  static final String FINISHED = "Query finished (result emitted)";
  static final String CALLER = "Result received by the caller";
  static final String READ_TO_FINISHED = "Needle read -> query finished";

  private static final long QUERY_TIMEOUT_S = 60;
  private static final long CAUGHT_UP_MS = 1_000;
  private static final long WARMUP_LIMIT_MS = 180_000;

  enum Test {
    LATENCY(List.of(SENT, READ, RECEIVED, FINISHED, CALLER)),
    FIND(List.of(RECEIVED, RUNNING, NEEDLE_SENT, NEEDLE_READ, FINISHED, CALLER, READ_TO_FINISHED));

    final List<String> rows;

    Test(List<String> rows) {
      this.rows = rows;
    }

    /** The delay a test is known by: received -> finished (1), needle read -> finished (2). */
    String headline() {
      return this == LATENCY ? FINISHED : READ_TO_FINISHED;
    }
  }

  /**
   * What a runtime's run of a test measured.
   *
   * @param delays each row of the test's table, in order
   * @param lagMs from a record's send to its read, for each measured query (how far behind the
   *     stream the runtime read)
   * @param rate records/s the feeder sent
   * @param seconds the measured queries' time
   * @param cpuSeconds this process's CPU time meanwhile
   * @param brokerCpuSeconds the broker's meanwhile (it also took the feeder's records); NaN when
   *     not known
   * @param answered measured queries that gave their record
   */
  record Outcome(
      String side,
      Test test,
      Map<String, Delays> delays,
      Delays lagMs,
      long rate,
      double seconds,
      double cpuSeconds,
      double brokerCpuSeconds,
      int answered,
      int asked) {
    Delays headline() {
      return delays.get(test.headline());
    }

    /** Records the feeder sent per CPU-second of this process while the queries ran. */
    double recordsPerCpuSecond() {
      return rate * seconds / cpuSeconds;
    }

    /** Whether the runtime read the stream within a second of its records' sending (median). */
    boolean keptUp() {
      return lagMs.count() > 0 && lagMs.percentile(50) < CAUGHT_UP_MS;
    }
  }

  private final Topics topics;
  private final KafkaBroker broker;
  private final Report report;
  private int runs;

  LiveTests(Topics topics, KafkaBroker broker, Report report) {
    this.topics = topics;
    this.broker = broker;
    this.report = report;
  }

  /**
   * Runs a test on a runtime: a topic of its own with {@code partitions}, the feeder at {@code
   * rate}, the runtime started by {@code factory}, warm-up queries for at least {@code warmupMs},
   * then {@code queries} measured.
   */
  Outcome run(
      Test test, Runner.SideFactory factory, int partitions, long rate, int queries, long warmupMs)
      throws Exception {
    String tag = "live" + ++runs;
    String topic = "spyglass-" + tag;
    topics.create(topic, partitions);
    try (Feeder.Running feeder =
            Feeder.Running.start(
                topics.bootstrap(), topic, partitions, rate, BulletStudy.SMALL_BYTES);
        Side side = factory.start(topic, tag);
        KafkaProducer<byte[], byte[]> needles = topics.producer(null, 0)) {
      side.go();
      Probe p = new Probe(test, side, needles, topic, partitions);
      long start = System.currentTimeMillis();
      int failures = 0;
      for (int n = 0; ; n++) {
        Sample x = p.one("w" + n);
        long now = System.currentTimeMillis();
        if (x == null && ++failures >= 3) {
          throw new IllegalStateException(
              side.label() + ", test " + (test.ordinal() + 1) + ": three queries gave no answer");
        }
        if (x != null && now - start >= warmupMs && x.lagMs() < CAUGHT_UP_MS) {
          break;
        }
        if (now - start > WARMUP_LIMIT_MS || !feeder.alive()) {
          report.note(
              String.format(
                  "%s, test %d: still %s ms behind the stream after %d s of warm-up",
                  side.label(),
                  test.ordinal() + 1,
                  x == null ? "?" : Long.toString(x.lagMs()),
                  WARMUP_LIMIT_MS / 1000));
          break;
        }
      }
      Map<String, Delays> delays = new LinkedHashMap<>();
      for (String row : test.rows) {
        delays.put(row, new Delays());
      }
      Delays lag = new Delays();
      int answered = 0;
      double cpu0 = Runner.processCpuSeconds();
      double broker0 = broker.cpuSeconds();
      long t0 = System.nanoTime();
      for (int i = 0; i < queries; i++) {
        Sample x = p.one("m" + i);
        if (x != null) {
          answered++;
          x.delays().forEach((row, ms) -> delays.get(row).record(ms));
          lag.record(x.lagMs());
        }
      }
      long t1 = System.nanoTime();
      double cpu = Runner.processCpuSeconds() - cpu0;
      double brokerCpu = broker.cpuSeconds() - broker0;
      feeder.stop();
      return new Outcome(
          side.label(),
          test,
          delays,
          lag,
          rate,
          (t1 - t0) / 1e9,
          cpu,
          brokerCpu,
          answered,
          queries);
    } finally {
      topics.delete(List.of(topic));
    }
  }

  /** One query's delays, by row, and how far behind the stream its record was read. */
  private record Sample(Map<String, Long> delays, long lagMs) {}

  /** Runs a test's queries on one runtime, one at a time. */
  private final class Probe {
    private final Test test;
    private final Side side;
    private final KafkaProducer<byte[], byte[]> needles;
    private final String topic;
    private final int partitions;
    private final EventGenerator g = new EventGenerator(7, BulletStudy.SMALL_BYTES);
    private int sent;

    Probe(
        Test test, Side side, KafkaProducer<byte[], byte[]> needles, String topic, int partitions) {
      this.test = test;
      this.side = side;
      this.needles = needles;
      this.topic = topic;
      this.partitions = partitions;
    }

    /** Runs one query; null (a problem reported) when it gave no right answer. */
    Sample one(String id) throws Exception {
      return test == Test.LATENCY ? simplest(id) : find(id);
    }

    private Sample simplest(String id) throws Exception {
      Side.Handle h = side.submit(new Side.Bql("t1-" + id, SIMPLEST));
      Result r = answer(h);
      long now = System.currentTimeMillis();
      if (r == null || r.records().size() != 1) {
        wrong(id, h, r);
        return null;
      }
      Map<String, Object> rec = r.records().get(0);
      if (!(rec.get("event_ts") instanceof Number sentMs)
          || !(rec.get("_read_ms") instanceof Number readMs)) {
        report.problem(side.label() + ", test 1: the record has no event_ts or _read_ms: " + rec);
        return null;
      }
      long q = r.meta().receiveTimeMs();
      Map<String, Long> d = new LinkedHashMap<>();
      d.put(SENT, sentMs.longValue() - q);
      d.put(READ, readMs.longValue() - q);
      d.put(RECEIVED, 0L);
      d.put(FINISHED, r.meta().finishTimeMs().orElse(now) - q);
      d.put(CALLER, now - q);
      return new Sample(d, readMs.longValue() - sentMs.longValue());
    }

    private Sample find(String id) throws Exception {
      String needle = "find-" + topic + "-" + id;
      Side.Handle h =
          side.submit(
              new Side.Bql(
                  "t2-" + id,
                  "SELECT * FROM STREAM(30000, TIME) WHERE id = '" + needle + "' LIMIT 1"));
      if (!h.awaitRunning(QUERY_TIMEOUT_S, TimeUnit.SECONDS) || h.error() != null) {
        report.problem(side.label() + ", test 2: query " + id + " did not start: " + h.error());
        return null;
      }
      long runningAt = System.currentTimeMillis();
      // a random phase against the readers' batches, as records arrive at any time
      Thread.sleep(ThreadLocalRandom.current().nextInt(20));
      long sentAt = System.currentTimeMillis();
      int len = g.next(sentAt, Map.of("id", needle));
      needles.send(
          new ProducerRecord<>(topic, sent++ % partitions, null, Arrays.copyOf(g.buffer(), len)));
      Result r = answer(h);
      long now = System.currentTimeMillis();
      if (r == null || r.records().size() != 1 || !needle.equals(r.records().get(0).get("id"))) {
        wrong(id, h, r);
        return null;
      }
      if (!(r.records().get(0).get("_read_ms") instanceof Number readMs)) {
        report.problem(side.label() + ", test 2: the needle has no _read_ms");
        return null;
      }
      long q = r.meta().receiveTimeMs();
      long f = r.meta().finishTimeMs().orElse(now);
      Map<String, Long> d = new LinkedHashMap<>();
      d.put(RECEIVED, 0L);
      d.put(RUNNING, runningAt - q);
      d.put(NEEDLE_SENT, sentAt - q);
      d.put(NEEDLE_READ, readMs.longValue() - q);
      d.put(FINISHED, f - q);
      d.put(CALLER, now - q);
      d.put(READ_TO_FINISHED, f - readMs.longValue());
      return new Sample(d, readMs.longValue() - sentAt);
    }

    private void wrong(String id, Side.Handle h, Result r) {
      report.problem(
          String.format(
              "%s, test %d: query %s gave %s",
              side.label(),
              test.ordinal() + 1,
              id,
              r == null
                  ? "no result within "
                      + QUERY_TIMEOUT_S
                      + " s"
                      + (h.error() == null ? "" : ": " + h.error())
                  : r.records().size() + " records: " + r.records()));
    }
  }

  /** The query's first result with records, or its final one; null when none came in time. */
  private static Result answer(Side.Handle h) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(QUERY_TIMEOUT_S);
    while (System.nanoTime() < deadline) {
      boolean done = h.isDone();
      Result r = h.poll(100, TimeUnit.MILLISECONDS);
      if (r != null) {
        if (!r.records().isEmpty() || r.meta().isFinal()) {
          return r;
        }
      } else if (done) {
        return null;
      }
    }
    return null;
  }
}
