package io.spyglass.flink.bench;

import io.spyglass.core.result.Meta;
import io.spyglass.core.result.Result;
import io.spyglass.scenarios.CompilerQuiet;
import io.spyglass.scenarios.Report;
import io.spyglass.sources.EventGenerator;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * One measured run of a runtime. The run's records go to a topic of its own in one Kafka
 * transaction, left open; the runtime starts on the topic (reading committed records only, from the
 * start) and every query is submitted and running; then the transaction commits, and the runtime
 * reads the whole backlog with every query in place, as fast as it can. The time to read it ends
 * when an end mark (the last record of each partition) has reached its query. Then, optionally, a
 * probe record every 20 ms amid records at a paced rate gives the latency from a record's send to
 * Kafka to its result in the reader's hands. Last, every query is ended and gives its final result:
 * every needle must be in its query's.
 *
 * <p>With a warm-up ({@link #warmUp}), each runtime first reads records of the same kind in a
 * transaction of their own, committed once every query runs, up to their own end marks, unmeasured;
 * then the measured backlog, in the same runtime. A deployed runtime runs for long: the first
 * seconds of a new one (its JIT's compilations, its first fetches) belong to its start, not to its
 * rate, and a backlog that is read in a second weighs them as much as its records.
 *
 * <p>Before the clock starts, the runner waits until the JIT compiler has worked off what the
 * runtime's start queued ({@link CompilerQuiet}: its threads busy at most 2% of 500 ms): those
 * compilations are the start's, as its first fetches are; what the read itself has the JIT compile
 * stays in the read.
 *
 * <p>{@link #runFromFile} reads the same records and queries from a file of JSON lines instead, the
 * embedded engine started paused on it as {@code spyglass query --source file:...} reads one: what
 * reading from Kafka costs over reading a file.
 */
final class Runner {
  private static final long RUNNING_TIMEOUT_S = 300;
  private static final long READ_TIMEOUT_S = 1_800;
  private static final long PROBE_EVERY_MS = 20;
  private static final long SEED = 42;
  private static final int NEEDLE_LIMIT = 10;

  /**
   * Probes slower than this (ms) are told on stderr with their send time, to set beside the
   * runtime's log (checkpoints, GC): {@code -Dspyglass.bench.slow-probe-ms=100}; 0, the default,
   * tells none.
   */
  private static final long SLOW_PROBE_MS = Long.getLong("spyglass.bench.slow-probe-ms", 0);

  private final Topics topics;
  private final KafkaBroker broker;
  private final Consumer<String> problems;
  private Watch watch = label -> () -> {};
  private double warmShare;
  private int runs;
  private final long compilerQuietMs = CompilerQuiet.quietMs();
  private long lastCompilerWaitMs;

  Runner(Topics topics, KafkaBroker broker, Report report) {
    this(topics, broker, report::problem);
  }

  /**
   * @param problems where correctness problems go (a needle not found, an end mark missing)
   */
  Runner(Topics topics, KafkaBroker broker, Consumer<String> problems) {
    this.topics = topics;
    this.broker = broker;
    this.problems = problems;
  }

  /** Watches each run's measured read (from the commit to the last end mark): a profiler. */
  interface Watch {
    /** Starts watching the read labelled {@code label}; closing the result stops. */
    AutoCloseable start(String label) throws Exception;
  }

  /** How long the last run waited for the JIT compiler to go quiet before its clock, in ms. */
  long lastCompilerWaitMs() {
    return lastCompilerWaitMs;
  }

  /** Watches each measured read from now on. */
  void watch(Watch w) {
    watch = w;
  }

  /**
   * Before each measured backlog, the runtime reads {@code share} times as many records of the same
   * kind, in the same run, unmeasured (0, the default: none).
   */
  void warmUp(double share) {
    warmShare = share;
  }

  /** Starts a runtime on a run's topic. */
  interface SideFactory {
    Side start(String topic, String tag) throws Exception;
  }

  /**
   * What a run reads and asks.
   *
   * @param workload the name of the query set, for the tables
   * @param slots filter workers (embedded) or the job's parallelism (Flink)
   * @param partitions partitions of the records topic
   * @param recordBytes the generated records' target size
   * @param records records in the backlog (the end marks come on top)
   * @param needles needle queries, {@code SELECT * FROM STREAM(MAX, TIME) WHERE id = '...' LIMIT
   *     10}, each id planted once in the backlog
   * @param others other queries (BQL), run alongside
   * @param latencyMs how long the latency probes run after the backlog; 0 for none
   * @param latencyRate records per second sent beside the probes
   * @param hops (Flink) network hops between the records source and the filter
   * @param copies records planted for each needle id, spread evenly over the backlog (a needle
   *     query's LIMIT is 10: it ends once it has 10)
   * @param sameId every needle query the same query (one id, as Bullet's tests 3 to 6 ran N copies
   *     of one query), rather than one id each
   */
  record Spec(
      String workload,
      int slots,
      int partitions,
      int recordBytes,
      int records,
      int needles,
      List<String> others,
      long latencyMs,
      long latencyRate,
      int hops,
      int copies,
      boolean sameId) {
    /** One id per needle query, planted once. */
    Spec(
        String workload,
        int slots,
        int partitions,
        int recordBytes,
        int records,
        int needles,
        List<String> others,
        long latencyMs,
        long latencyRate,
        int hops) {
      this(
          workload,
          slots,
          partitions,
          recordBytes,
          records,
          needles,
          others,
          latencyMs,
          latencyRate,
          hops,
          1,
          false);
    }

    /** The records of each needle id a needle query's final result must hold. */
    int expectedPerNeedle() {
      return Math.min(copies, NEEDLE_LIMIT);
    }
  }

  /**
   * What a run measured.
   *
   * @param records records read (the backlog and its end marks)
   * @param bytes their JSON bytes
   * @param seconds from the commit of the backlog to its last end mark at its query
   * @param cpuSeconds CPU time of this process meanwhile (the runtime's threads, its GC and JIT)
   * @param brokerCpuSeconds CPU time of the Kafka broker's process meanwhile; NaN when not known
   * @param latencyMs from a probe's send to Kafka to its result read back, in ms
   * @param probesSent probes sent while latency was measured
   * @param needlesFound needle queries whose final result holds their needles (all planted, up to
   *     the LIMIT)
   * @param needleRecords records of their own id in the needle queries' final results, all together
   * @param finals the final result of each other query, in order (null when none came)
   */
  record Outcome(
      Spec spec,
      String side,
      long records,
      long bytes,
      double seconds,
      double cpuSeconds,
      double brokerCpuSeconds,
      Histogram latencyMs,
      long probesSent,
      int needlesFound,
      long needleRecords,
      List<Result> finals) {
    double recordsPerSecond() {
      return records / seconds;
    }

    double recordsPerCpuSecond() {
      return records / cpuSeconds;
    }

    /** CPU seconds per second while the backlog was read: the cores the runtime kept busy. */
    double cpuCores() {
      return cpuSeconds / seconds;
    }

    double p99LatencyMs() {
      return latencyMs.getTotalCount() == 0 ? Double.NaN : latencyMs.getValueAtPercentile(99);
    }

    /** Records in a needle query's final result, on average (Bullet's "average result size"). */
    double meanResultSize() {
      return spec.needles() == 0 ? Double.NaN : (double) needleRecords / spec.needles();
    }
  }

  /**
   * A run's queries, in order: the needles, the others, the end marks', the warm-up's end marks'
   * (with a warm-up) and the probe's.
   */
  private record Queries(
      String tag,
      List<String> needleIds,
      String endId,
      String warmId,
      String probeId,
      List<Side.Bql> all) {
    /** The ids planted in the backlog, each {@link Spec#copies()} times. */
    List<String> planted() {
      return needleIds.isEmpty() ? List.of() : List.copyOf(new LinkedHashSet<>(needleIds));
    }
  }

  private Queries queries(Spec spec, boolean probe, boolean warm) {
    String tag = "bench" + ++runs;
    List<String> needleIds = new ArrayList<>();
    for (int i = 0; i < spec.needles(); i++) {
      needleIds.add("needle-" + tag + "-" + (spec.sameId() ? 0 : i));
    }
    String endId = "end-" + tag;
    String probeId = "probe-" + tag;
    String warmId = "warm-" + tag;
    List<Side.Bql> queries = new ArrayList<>();
    for (int i = 0; i < needleIds.size(); i++) {
      queries.add(
          new Side.Bql(
              "n" + i,
              "SELECT * FROM STREAM(MAX, TIME) WHERE id = '"
                  + needleIds.get(i)
                  + "' LIMIT "
                  + NEEDLE_LIMIT));
    }
    for (int i = 0; i < spec.others().size(); i++) {
      queries.add(new Side.Bql("o" + i, spec.others().get(i)));
    }
    queries.add(
        new Side.Bql(
            "end",
            "SELECT id FROM STREAM(MAX, TIME) WHERE id = '"
                + endId
                + "' LIMIT "
                + spec.partitions()));
    if (warm) {
      queries.add(
          new Side.Bql(
              "warm",
              "SELECT id FROM STREAM(MAX, TIME) WHERE id = '"
                  + warmId
                  + "' LIMIT "
                  + spec.partitions()));
    }
    if (probe && spec.latencyMs() > 0) {
      queries.add(
          new Side.Bql(
              "probe",
              "SELECT sent FROM STREAM(MAX, TIME) WHERE id = '"
                  + probeId
                  + "' WINDOWING EVERY(1, RECORD, FIRST, 1, RECORD)"));
    }
    return new Queries(tag, needleIds, endId, warm ? warmId : null, probeId, queries);
  }

  /** Reads the spec's backlog from a Kafka topic of its own with a runtime started by factory. */
  Outcome run(Spec spec, SideFactory factory) throws Exception {
    int warmRecords = (int) Math.round(warmShare * spec.records());
    Queries q = queries(spec, true, warmRecords > 0);
    String topic = "spyglass-" + q.tag();
    topics.create(topic, spec.partitions());
    KafkaProducer<byte[], byte[]> warm =
        warmRecords > 0 ? topics.producer(topic + "-warm", 20) : null;
    KafkaProducer<byte[], byte[]> backlog = topics.producer(topic + "-backlog", 20);
    try {
      if (warm != null) {
        // first in each partition: the committed warm-up is read before the open backlog
        warm.initTransactions();
        warm.beginTransaction();
        writeWarmUp(
            spec,
            warmRecords,
            q.warmId(),
            (partition, record, len) ->
                warm.send(
                    new ProducerRecord<>(topic, partition, null, Arrays.copyOf(record, len))));
        warm.flush();
      }
      backlog.initTransactions();
      backlog.beginTransaction();
      long bytes =
          write(
              spec,
              q,
              (partition, record, len) ->
                  backlog.send(
                      new ProducerRecord<>(topic, partition, null, Arrays.copyOf(record, len))));
      backlog.flush();
      try (Side side = factory.start(topic, q.tag())) {
        Start warmUp =
            warm == null
                ? null
                : () -> {
                  warm.commitTransaction();
                  side.go();
                };
        return measure(
            spec,
            q,
            side,
            bytes,
            warmUp,
            () -> {
              backlog.commitTransaction();
              side.go();
            },
            topic);
      }
    } finally {
      backlog.close();
      if (warm != null) {
        warm.close();
      }
      topics.delete(List.of(topic));
    }
  }

  /**
   * Reads the same backlog (records, needles and end marks, in the order they go to Kafka) from a
   * file of JSON lines: the embedded engine with the spec's workers, started paused on the file, as
   * {@code spyglass query --source file:...} reads it. No latency probes: a file is read, not fed.
   */
  Outcome runFromFile(Spec spec) throws Exception {
    Queries q = queries(spec, false, false);
    Path file = Files.createTempFile("spyglass-bench-", ".json");
    try {
      long bytes;
      try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 20)) {
        bytes =
            write(
                spec,
                q,
                (partition, record, len) -> {
                  out.write(record, 0, len);
                  out.write('\n');
                });
      }
      try (Side side = EmbeddedSide.fromFile(file, spec.slots(), q.all().size())) {
        return measure(spec, q, side, bytes, null, side::go, null);
      }
    } finally {
      Files.deleteIfExists(file);
    }
  }

  /** What makes the backlog visible to the runtime, once every query runs. */
  private interface Start {
    void run() throws Exception;
  }

  /**
   * Submits the queries, starts the clock and the backlog, waits for its end marks, then (with a
   * topic) measures the latency, then ends every query and checks each needle query's result.
   */
  private Outcome measure(
      Spec spec, Queries q, Side side, long bytes, Start warmUp, Start start, String topic)
      throws Exception {
    long records = (long) spec.records() + spec.partitions();
    List<Side.Bql> queries = q.all();
    List<Side.Handle> handles = side.submitAll(queries);
    for (int i = 0; i < handles.size(); i++) {
      if (!handles.get(i).awaitRunning(RUNNING_TIMEOUT_S, TimeUnit.SECONDS)) {
        throw new IllegalStateException(
            side.label() + ": query " + queries.get(i).id() + " did not start");
      }
      if (handles.get(i).error() != null) {
        throw new IllegalStateException(
            side.label() + ": query " + queries.get(i).id() + ": " + handles.get(i).error());
      }
    }
    int needles = q.needleIds().size();
    Side.Handle end = handles.get(needles + spec.others().size());
    if (warmUp != null) {
      warmUp.run();
      int warmEnds = awaitEnd(handles.get(needles + spec.others().size() + 1), spec.partitions());
      if (warmEnds < spec.partitions()) {
        problems.accept(
            String.format(
                "%s, %s, %d slots: read %d of %d end marks of the warm-up within %d s",
                side.label(),
                spec.workload(),
                spec.slots(),
                warmEnds,
                spec.partitions(),
                READ_TIMEOUT_S));
      }
    }
    lastCompilerWaitMs = CompilerQuiet.await(compilerQuietMs);
    AutoCloseable watching = watch.start(side.label() + ", " + spec.workload());
    double cpu0 = processCpuSeconds();
    double broker0 = broker.cpuSeconds();
    long t0 = System.nanoTime();
    start.run();
    int ends = awaitEnd(end, spec.partitions());
    long t1 = System.nanoTime();
    double cpu = processCpuSeconds() - cpu0;
    watching.close();
    double brokerCpu = topic == null ? Double.NaN : broker.cpuSeconds() - broker0;
    if (ends < spec.partitions()) {
      problems.accept(
          String.format(
              "%s, %s, %d slots: read %d of %d end marks within %d s",
              side.label(),
              spec.workload(),
              spec.slots(),
              ends,
              spec.partitions(),
              READ_TIMEOUT_S));
    }
    Histogram latency = new Histogram(3_600_000L, 3);
    long probes = 0;
    if (topic != null && spec.latencyMs() > 0) {
      probes = probe(spec, topic, q.probeId(), handles.get(handles.size() - 1), latency);
    }
    String failure = side.failure();
    if (failure != null) {
      // a restart replays records and repeats results: the run's figures are not a measurement
      problems.accept(
          String.format(
              "%s, %s, %d slots: the runtime failed and restarted during the run: %s",
              side.label(),
              spec.workload(),
              spec.slots(),
              failure.lines().limit(3).collect(Collectors.joining(" | "))));
    }
    side.finishAll();
    int found = 0;
    long needleRecords = 0;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(RUNNING_TIMEOUT_S);
    for (int i = 0; i < needles; i++) {
      Result r = last(handles.get(i), deadline);
      int n = r == null ? 0 : holds(r, q.needleIds().get(i), side.label());
      needleRecords += n;
      if (n >= spec.expectedPerNeedle()) {
        found++;
      }
    }
    if (found < needles) {
      problems.accept(
          String.format(
              "%s, %s, %d slots: %d of %d needle queries found their %d record(s)",
              side.label(),
              spec.workload(),
              spec.slots(),
              found,
              needles,
              spec.expectedPerNeedle()));
    }
    List<Result> finals = new ArrayList<>();
    for (int i = 0; i < spec.others().size(); i++) {
      Result r = last(handles.get(needles + i), deadline);
      finals.add(r);
      if (r == null || !r.meta().isFinal()) {
        problems.accept(side.label() + ": no final result for " + spec.others().get(i));
      } else if (r.meta().errors().stream().anyMatch(Meta.QueryError::fatal)) {
        problems.accept(side.label() + ": " + spec.others().get(i) + ": " + r.meta().errors());
      }
    }
    return new Outcome(
        spec,
        side.label(),
        records,
        bytes,
        (t1 - t0) / 1e9,
        cpu,
        brokerCpu,
        latency,
        probes,
        found,
        needleRecords,
        finals);
  }

  /** Where the backlog's records go, each to a partition (a file has one). */
  private interface Sink {
    void write(int partition, byte[] record, int len) throws IOException;
  }

  /**
   * Writes the backlog: generated records over the partitions in turn, each needle id's copies at
   * an even spacing, then an end mark at the end of each partition. Returns the bytes written.
   */
  private static long write(Spec spec, Queries q, Sink sink) throws IOException {
    EventGenerator g = new EventGenerator(SEED, spec.recordBytes());
    long t = System.currentTimeMillis();
    List<String> ids = q.planted();
    int planted = ids.size() * spec.copies();
    int every = planted == 0 ? Integer.MAX_VALUE : Math.max(1, spec.records() / planted);
    long bytes = 0;
    for (int i = 0; i < spec.records(); i++) {
      int k = i / every;
      int len =
          i % every == every / 2 && k < planted
              ? g.next(t, Map.of("id", ids.get(k % ids.size())))
              : g.next(t);
      bytes += len;
      sink.write(i % spec.partitions(), g.buffer(), len);
    }
    for (int p = 0; p < spec.partitions(); p++) {
      int len = g.next(t, Map.of("id", q.endId()));
      bytes += len;
      sink.write(p, g.buffer(), len);
    }
    return bytes;
  }

  /**
   * Writes a warm-up: {@code records} generated records of the spec's size (another seed: no needle
   * among them) over the partitions in turn, then an end mark of {@code warmId} at the end of each
   * partition.
   */
  private static void writeWarmUp(Spec spec, int records, String warmId, Sink sink)
      throws IOException {
    EventGenerator g = new EventGenerator(SEED + 2, spec.recordBytes());
    long t = System.currentTimeMillis();
    for (int i = 0; i < records; i++) {
      int len = g.next(t);
      sink.write(i % spec.partitions(), g.buffer(), len);
    }
    for (int p = 0; p < spec.partitions(); p++) {
      int len = g.next(t, Map.of("id", warmId));
      sink.write(p, g.buffer(), len);
    }
  }

  /** Waits for the end marks' query to hold one mark per partition; returns how many it saw. */
  private static int awaitEnd(Side.Handle end, int partitions) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(READ_TIMEOUT_S);
    int seen = 0;
    while (System.nanoTime() < deadline) {
      boolean done = end.isDone(); // before the poll: nothing queued is missed
      Result r = end.poll(200, TimeUnit.MILLISECONDS);
      if (r != null) {
        seen += r.records().size();
        if (seen >= partitions || r.meta().isFinal()) {
          return seen;
        }
      } else if (done) {
        return seen;
      }
    }
    return seen;
  }

  /**
   * Sends records at the spec's rate and a probe record every {@value #PROBE_EVERY_MS} ms, each
   * stamped with its send time, for the spec's time; records each probe's result latency as it is
   * read back (after a first second, left out). Returns the probes sent while measured.
   */
  private long probe(Spec spec, String topic, String probeId, Side.Handle probe, Histogram latency)
      throws InterruptedException {
    long start = System.currentTimeMillis();
    long measureFrom = start + Math.min(1_000, spec.latencyMs() / 4);
    long end = start + spec.latencyMs();
    AtomicBoolean stopped = new AtomicBoolean();
    AtomicLong answered = new AtomicLong();
    Thread reader =
        new Thread(
            () -> {
              try {
                while (true) {
                  Result r = probe.poll(50, TimeUnit.MILLISECONDS);
                  if (r == null) {
                    if (stopped.get() || probe.isDone()) {
                      return;
                    }
                    continue;
                  }
                  long now = System.currentTimeMillis();
                  for (Map<String, Object> rec : r.records()) {
                    if (rec.get("sent") instanceof Number sent && sent.longValue() >= measureFrom) {
                      latency.recordValue(Math.max(0, now - sent.longValue()));
                      if (SLOW_PROBE_MS > 0 && now - sent.longValue() >= SLOW_PROBE_MS) {
                        System.err.printf(
                            "%tT.%<tL slow probe: sent %tT.%<tL, %d ms%n",
                            now, sent.longValue(), now - sent.longValue());
                      }
                      answered.incrementAndGet();
                    }
                  }
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "bench-probe-reader");
    reader.start();
    EventGenerator g = new EventGenerator(SEED + 1, spec.recordBytes());
    long sent = 0;
    long probes = 0;
    long measured = 0;
    try (KafkaProducer<byte[], byte[]> producer = topics.producer(null, 0)) {
      long nextProbe = start;
      for (long now = start; now < end; now = System.currentTimeMillis()) {
        long due = spec.latencyRate() * (now - start) / 1000;
        for (; sent < due; sent++) {
          int len = g.next(now);
          producer.send(
              new ProducerRecord<>(
                  topic, (int) (sent % spec.partitions()), null, Arrays.copyOf(g.buffer(), len)));
        }
        if (now >= nextProbe) {
          int len = g.next(now, Map.of("id", probeId, "sent", now));
          producer.send(
              new ProducerRecord<>(
                  topic,
                  (int) (probes++ % spec.partitions()),
                  null,
                  Arrays.copyOf(g.buffer(), len)));
          if (now >= measureFrom) {
            measured++;
          }
          nextProbe += PROBE_EVERY_MS;
        }
        Thread.sleep(2);
      }
      producer.flush();
    }
    // the last probes' results are on their way
    long grace = System.currentTimeMillis() + 10_000;
    while (answered.get() < measured && System.currentTimeMillis() < grace) {
      Thread.sleep(20);
    }
    stopped.set(true);
    reader.join(5_000);
    return measured;
  }

  /** The last result of a query that is ending, waiting until {@code deadline} (nanoTime). */
  private static Result last(Side.Handle h, long deadline) throws InterruptedException {
    Result last = null;
    while (true) {
      boolean done = h.isDone();
      Result r =
          h.poll(Math.max(1, (deadline - System.nanoTime()) / 1_000_000), TimeUnit.MILLISECONDS);
      if (r != null) {
        last = r;
        if (r.meta().isFinal()) {
          return last;
        }
      } else if (done || System.nanoTime() >= deadline) {
        return last;
      }
    }
  }

  /**
   * How many records of its needle id a needle query's result holds; a record of another id is a
   * problem.
   */
  private int holds(Result r, String needleId, String side) {
    int found = 0;
    for (Map<String, Object> rec : r.records()) {
      if (needleId.equals(rec.get("id"))) {
        found++;
      } else {
        problems.accept(
            side + ": the query of " + needleId + " returned a record of " + rec.get("id"));
      }
    }
    return found;
  }

  /** CPU seconds this process has used. */
  static double processCpuSeconds() {
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getProcessCpuTime() / 1e9;
    }
    return Double.NaN;
  }
}
