package io.spyglass.bench;

import io.spyglass.core.result.Result;
import io.spyglass.engine.Engine;
import io.spyglass.engine.EngineConfig;
import io.spyglass.engine.QueryHandle;
import io.spyglass.sources.EventGenerator;
import io.spyglass.sources.FileSource;
import io.spyglass.sources.KafkaSource;
import io.spyglass.sources.Source;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The embedded engine reading the same records from a file and from a Kafka topic, alternated run
 * by run in one process: records per CPU-second of this process while it reads them (every thread:
 * source, workers, combiner, GC, JIT), the Kafka broker's CPU apart (its own process).
 *
 * <p>The records are generated once (as {@code spyglass generate} does, 1,800 bytes by default),
 * with one needle planted for each needle query ({@code SELECT * FROM STREAM(MAX, TIME) WHERE id =
 * '...' LIMIT 10}), a start mark after a fifth of them and an end mark last (in each partition of
 * the topic), written to a file of JSON lines and produced into a topic (uncompressed, as they
 * are). Each run starts the engine paused, submits every query, waits until they run and the JIT
 * compilers are idle, then reads. The whole read is from then to the end marks reaching their
 * query; its steady part from the start marks reaching theirs to the end marks, which leaves out
 * what a new engine and a new consumer cost at first (JIT compilations of their code, the first
 * fetches), as a process that runs for long does. Every needle must be found.
 *
 * <p>{@code spyglass-bench/kafka-vs-file.sh} starts a broker and runs this; by hand: {@code java
 * -cp spyglass-bench/target/spyglass-benchmarks.jar io.spyglass.bench.KafkaVsFile --kafka
 * 127.0.0.1:9092 [options]} ({@code --help} lists them). With {@code --jfr DIR} the steady part of
 * each measured read is recorded by JFR and its samples are summed by top frame, by the top frame's
 * package and by thread into {@code DIR/profile-SIDE.txt}, with the CPU of every thread.
 */
public final class KafkaVsFile {
  private static final long SEED = 7;
  private static final long READ_TIMEOUT_S = 1_800;
  private static final long RUNNING_TIMEOUT_S = 600;

  private String bootstrap;
  private int records = 1_000_000;
  private int needles = 10_000;
  private int recordBytes = 1_800;
  private int workers = 2;
  private int partitions = 2;
  private int pairs = 3;
  private int warmupPairs = 2;
  private Path dir = Path.of(System.getProperty("java.io.tmpdir"), "spyglass-kafka-vs-file");
  private long brokerPid = -1;
  private Path csv;
  private Path table;
  private Path jfr;
  private Path threads;
  private String only;
  private final Map<String, Object> consumerProperties = new HashMap<>();

  private Path file;
  private String topic;
  private final List<String> needleIds = new ArrayList<>();
  private static final String END_ID = "end-mark";
  private static final String START_ID = "start-mark";

  /**
   * What one run measured: the whole read (from the start of reading to the end marks), and its
   * steady part (from the start marks, after a fifth of the records, to the end marks).
   */
  record Run(
      String side,
      boolean warmup,
      long records,
      double seconds,
      double cpu,
      long steadyRecords,
      double steadySeconds,
      double steadyCpu,
      double brokerCpu,
      double jit,
      int found) {
    double perCpuSecond() {
      return records / cpu;
    }

    double steadyPerCpuSecond() {
      return steadyRecords / steadyCpu;
    }
  }

  private KafkaVsFile() {}

  public static void main(String[] args) throws Exception {
    KafkaVsFile b = new KafkaVsFile();
    if (!b.parse(args)) {
      return;
    }
    b.run();
    // the Kafka client's threads are not daemons
    System.exit(0);
  }

  private boolean parse(String[] args) {
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (a.equals("--help") || a.equals("-h")) {
        System.out.println(
            """
            KafkaVsFile --kafka HOST:PORT [options]: the embedded engine reading the same
            records from a file and from Kafka, alternated; records per CPU-second of this process.
              --records N         records (default 1000000)
              --needles N         needle queries (default 10000)
              --record-bytes N    generated record size (default 1800, as spyglass generate)
              --workers N         engine workers (default 2)
              --partitions N      partitions of the topic (default 2)
              --pairs N           measured pairs, file then Kafka (default 3)
              --warmup N          pairs run first and not counted (default 2)
              --dir DIR           where the records file is kept (reused when it matches)
              --broker-pid PID    the broker's process, for its CPU (apart)
              --csv FILE          every run as CSV
              --table FILE        the measured pairs and their medians as CSV, for a table
              --jfr DIR           record each measured read with JFR; profile-SIDE.txt summaries
              --threads DIR       only CPU by thread of each side's reads, into DIR/profile-SIDE.txt
              --only file|kafka   run one side only (e.g. to profile it)
              --consumer K=V      a Kafka consumer setting for the source (repeatable)
            """);
        return false;
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException(a + " needs a value");
      }
      String v = args[++i];
      switch (a) {
        case "--kafka" -> bootstrap = v;
        case "--records" -> records = Integer.parseInt(v);
        case "--needles" -> needles = Integer.parseInt(v);
        case "--record-bytes" -> recordBytes = Integer.parseInt(v);
        case "--workers" -> workers = Integer.parseInt(v);
        case "--partitions" -> partitions = Integer.parseInt(v);
        case "--pairs" -> pairs = Integer.parseInt(v);
        case "--warmup" -> warmupPairs = Integer.parseInt(v);
        case "--dir" -> dir = Path.of(v);
        case "--broker-pid" -> brokerPid = Long.parseLong(v);
        case "--csv" -> csv = Path.of(v);
        case "--table" -> table = Path.of(v);
        case "--jfr" -> jfr = Path.of(v);
        case "--threads" -> threads = Path.of(v);
        case "--only" -> only = v;
        case "--consumer" -> {
          int eq = v.indexOf('=');
          consumerProperties.put(v.substring(0, eq), v.substring(eq + 1));
        }
        default -> throw new IllegalArgumentException("unknown option " + a + "; see --help");
      }
    }
    if (bootstrap == null) {
      throw new IllegalArgumentException("--kafka HOST:PORT is required; see --help");
    }
    return true;
  }

  private void run() throws Exception {
    for (int i = 0; i < needles; i++) {
      needleIds.add("needle-" + i);
    }
    String name =
        String.format(
            Locale.ROOT, "kvf2-%d-%d-%d-%d-%d", records, recordBytes, needles, partitions, SEED);
    file = dir.resolve(name + ".json");
    topic = name;
    prepare();
    System.out.printf(
        Locale.ROOT,
        "records %,d of about %,d bytes (%,d MB), %,d needle queries, %d workers, topic of %d"
            + " partitions; load %s%n",
        records,
        recordBytes,
        Files.size(file) >> 20,
        needles,
        workers,
        partitions,
        load());
    if (!consumerProperties.isEmpty()) {
      System.out.println("consumer settings: " + consumerProperties);
    }
    List<Run> runs = new ArrayList<>();
    Profiles profiles =
        jfr != null
            ? new Profiles(jfr, true)
            : threads != null ? new Profiles(threads, false) : null;
    for (int p = 0; p < warmupPairs + pairs; p++) {
      boolean warmup = p < warmupPairs;
      for (String side : List.of("file", "kafka")) {
        if (only != null && !only.equals(side)) {
          continue;
        }
        Run r = measure(side, warmup, warmup ? null : profiles);
        runs.add(r);
        System.out.printf(
            Locale.ROOT,
            "%-5s %-7s whole: %5.2f s %5.2f CPU-s %,8.0f per CPU-s | steady: %5.2f s %5.2f CPU-s"
                + " %,8.0f per CPU-s %4.2f cores, JIT %4.2f s, broker %4.2f CPU-s | needles %d/%d"
                + " | load %s%n",
            side,
            warmup ? "warm-up" : "",
            r.seconds(),
            r.cpu(),
            r.perCpuSecond(),
            r.steadySeconds(),
            r.steadyCpu(),
            r.steadyPerCpuSecond(),
            r.steadyCpu() / r.steadySeconds(),
            r.jit(),
            r.brokerCpu(),
            r.found(),
            needles,
            load());
      }
    }
    summarize(runs);
    if (profiles != null) {
      profiles.write();
    }
  }

  private static String load() {
    try {
      String s = Files.readString(Path.of("/proc/loadavg"));
      return String.join(" ", Arrays.copyOf(s.split(" "), 3));
    } catch (IOException e) {
      return "unknown";
    }
  }

  private void summarize(List<Run> runs) throws IOException {
    StringBuilder out = new StringBuilder();
    for (boolean steady : new boolean[] {false, true}) {
      List<Double> ratios = new ArrayList<>();
      Run lastFile = null;
      for (Run r : runs) {
        if (r.warmup()) {
          continue;
        }
        if (r.side().equals("file")) {
          lastFile = r;
        } else if (lastFile != null) {
          ratios.add(rate(r, steady) / rate(lastFile, steady));
        }
      }
      String what = steady ? "steady (the last 4/5 of each read)" : "whole reads";
      out.append(
          String.format(
              Locale.ROOT,
              "%s: median records per CPU-second: file %,.0f, Kafka %,.0f",
              what,
              median(runs, "file", steady),
              median(runs, "kafka", steady)));
      if (!ratios.isEmpty()) {
        out.append(
            String.format(
                Locale.ROOT,
                "; Kafka / file, pair by pair: %s, median %.2f",
                ratios.stream().map(d -> String.format(Locale.ROOT, "%.2f", d)).toList(),
                median(ratios)));
      }
      out.append('\n');
    }
    System.out.print(out);
    if (csv != null) {
      StringBuilder c =
          new StringBuilder(
              "side,warmup,records,seconds,cpu_seconds,records_per_cpu_second,steady_records,"
                  + "steady_seconds,steady_cpu_seconds,steady_records_per_cpu_second,"
                  + "steady_broker_cpu_seconds,steady_jit_seconds,needles_found\n");
      for (Run r : runs) {
        c.append(
            String.format(
                Locale.ROOT,
                "%s,%b,%d,%.3f,%.3f,%.0f,%d,%.3f,%.3f,%.0f,%.3f,%.3f,%d%n",
                r.side(),
                r.warmup(),
                r.records(),
                r.seconds(),
                r.cpu(),
                r.perCpuSecond(),
                r.steadyRecords(),
                r.steadySeconds(),
                r.steadyCpu(),
                r.steadyPerCpuSecond(),
                r.brokerCpu(),
                r.jit(),
                r.found()));
      }
      Files.writeString(csv, c);
    }
    if (table != null) {
      writeTable(runs);
    }
  }

  /** Pair by pair, then the medians: records per CPU-second of each side and their ratio. */
  private void writeTable(List<Run> runs) throws IOException {
    StringBuilder c =
        new StringBuilder(
            "pair,file: records per CPU-second,Kafka: records per CPU-second,Kafka / file,"
                + "steady: file,steady: Kafka,steady: Kafka / file,"
                + "broker CPU-s per million records (apart),needles found\n");
    List<double[]> pairs = new ArrayList<>();
    Run lastFile = null;
    for (Run r : runs) {
      if (r.warmup()) {
        continue;
      }
      if (r.side().equals("file")) {
        lastFile = r;
      } else if (lastFile != null) {
        double[] v = {
          lastFile.perCpuSecond(),
          r.perCpuSecond(),
          r.perCpuSecond() / lastFile.perCpuSecond(),
          lastFile.steadyPerCpuSecond(),
          r.steadyPerCpuSecond(),
          r.steadyPerCpuSecond() / lastFile.steadyPerCpuSecond(),
          r.brokerCpu() / (r.steadyRecords() / 1e6)
        };
        pairs.add(v);
        c.append(row(Integer.toString(pairs.size()), v))
            .append(',')
            .append(lastFile.found() + r.found())
            .append(" / ")
            .append(2 * needles)
            .append('\n');
      }
    }
    double[] medians = new double[7];
    for (int k = 0; k < medians.length; k++) {
      List<Double> col = new ArrayList<>();
      for (double[] v : pairs) {
        col.add(v[k]);
      }
      medians[k] = median(col);
    }
    c.append(row("median", medians)).append(",\n");
    Files.writeString(table, c);
  }

  private static String row(String label, double[] v) {
    return String.format(
        Locale.ROOT,
        "%s,\"%,.0f\",\"%,.0f\",%.2f,\"%,.0f\",\"%,.0f\",%.2f,%.2f",
        label,
        v[0],
        v[1],
        v[2],
        v[3],
        v[4],
        v[5],
        v[6]);
  }

  private static double rate(Run r, boolean steady) {
    return steady ? r.steadyPerCpuSecond() : r.perCpuSecond();
  }

  private static double median(List<Run> runs, String side, boolean steady) {
    List<Double> v = new ArrayList<>();
    for (Run r : runs) {
      if (!r.warmup() && r.side().equals(side)) {
        v.add(rate(r, steady));
      }
    }
    return median(v);
  }

  private static double median(List<Double> values) {
    if (values.isEmpty()) {
      return Double.NaN;
    }
    List<Double> v = new ArrayList<>(values);
    v.sort(null);
    int n = v.size();
    return n % 2 == 1 ? v.get(n / 2) : (v.get(n / 2 - 1) + v.get(n / 2)) / 2;
  }

  /** Writes the file and fills the topic, unless both hold these records already. */
  private void prepare() throws Exception {
    Files.createDirectories(dir);
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      long expected = (long) records + 2L * partitions;
      boolean topicReady = false;
      if (admin.listTopics().names().get(60, TimeUnit.SECONDS).contains(topic)) {
        Map<TopicPartition, OffsetSpec> ask = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
          ask.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        long n = 0;
        for (var e : admin.listOffsets(ask).all().get(60, TimeUnit.SECONDS).values()) {
          n += e.offset();
        }
        ask.replaceAll((tp, spec) -> OffsetSpec.earliest());
        for (var e : admin.listOffsets(ask).all().get(60, TimeUnit.SECONDS).values()) {
          n -= e.offset(); // nothing may have been deleted
        }
        topicReady = n == expected;
        if (!topicReady) {
          admin.deleteTopics(List.of(topic)).all().get(60, TimeUnit.SECONDS);
          Thread.sleep(1000);
        }
      }
      boolean fileReady = Files.isRegularFile(file) && Files.exists(doneMark());
      if (topicReady && fileReady) {
        System.out.println("reusing " + file + " and topic " + topic);
        return;
      }
      if (!topicReady) {
        create(admin);
      }
      System.out.println("writing " + file + (topicReady ? "" : " and producing topic " + topic));
      Files.deleteIfExists(doneMark());
      write(topicReady ? null : producer());
      Files.writeString(doneMark(), "done\n");
    }
  }

  private Path doneMark() {
    return file.resolveSibling(file.getFileName() + ".done");
  }

  private void create(Admin admin)
      throws InterruptedException, ExecutionException, TimeoutException {
    for (int attempt = 0; ; attempt++) {
      try {
        admin
            .createTopics(
                List.of(
                    new NewTopic(topic, partitions, (short) 1)
                        // kept whatever the records' timestamps: reused by later runs
                        .configs(Map.of("retention.ms", "-1", "retention.bytes", "-1"))))
            .all()
            .get(60, TimeUnit.SECONDS);
        return;
      } catch (ExecutionException e) {
        if (attempt > 20) {
          throw e;
        }
        Thread.sleep(500); // a deletion of the same name still going on
      }
    }
  }

  private KafkaProducer<byte[], byte[]> producer() {
    return new KafkaProducer<>(
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrap,
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
            ByteArraySerializer.class,
            ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
            ByteArraySerializer.class,
            ProducerConfig.ACKS_CONFIG,
            "all",
            ProducerConfig.LINGER_MS_CONFIG,
            20,
            ProducerConfig.BATCH_SIZE_CONFIG,
            512 * 1024,
            ProducerConfig.BUFFER_MEMORY_CONFIG,
            128L << 20));
  }

  /**
   * Generates the records: each needle once, evenly spaced; an end mark last (one per partition in
   * the topic, one in the file).
   */
  private void write(KafkaProducer<byte[], byte[]> producer) throws IOException {
    EventGenerator g = new EventGenerator(SEED, recordBytes);
    long t = 1_750_000_000_000L;
    int every = needles == 0 ? Integer.MAX_VALUE : Math.max(1, records / needles);
    try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 20)) {
      for (int i = 0; i < records; i++) {
        if (i == startAt()) {
          int len = g.next(t + i, Map.of("id", START_ID));
          out.write(g.buffer(), 0, len);
          out.write('\n');
          if (producer != null) {
            for (int p = 0; p < partitions; p++) {
              producer.send(
                  new ProducerRecord<>(topic, p, t + i, null, Arrays.copyOf(g.buffer(), len)));
            }
          }
        }
        int q = i / every;
        int len =
            i % every == every / 2 && q < needles
                ? g.next(t + i, Map.of("id", needleIds.get(q)))
                : g.next(t + i);
        out.write(g.buffer(), 0, len);
        out.write('\n');
        if (producer != null) {
          producer.send(
              new ProducerRecord<>(
                  topic, i % partitions, t + i, null, Arrays.copyOf(g.buffer(), len)));
        }
      }
      int len = g.next(t + records, Map.of("id", END_ID));
      out.write(g.buffer(), 0, len);
      out.write('\n');
      if (producer != null) {
        for (int p = 0; p < partitions; p++) {
          producer.send(
              new ProducerRecord<>(topic, p, t + records, null, Arrays.copyOf(g.buffer(), len)));
        }
        producer.close();
      }
    }
  }

  /** The record before which the start marks are. */
  private int startAt() {
    return records / 5;
  }

  private Source open(String side) throws IOException {
    if (side.equals("file")) {
      return new FileSource(file, FileSource.Options.DEFAULTS);
    }
    return new KafkaSource(
        bootstrap,
        topic,
        KafkaSource.Options.DEFAULTS
            .withFrom(KafkaSource.StartAt.earliest())
            .withConsumerProperties(consumerProperties));
  }

  private Run measure(String side, boolean warmup, Profiles profiles) throws Exception {
    Source source = open(side);
    int marks = side.equals("file") ? 1 : partitions;
    Engine engine =
        Engine.startPaused(
            source,
            EngineConfig.defaults()
                .withWorkers(workers)
                .withMaxQueries(needles + 16)
                .withResultQueue(4_096)
                .withStopWhenSourceEnds(false));
    try {
      List<QueryHandle> handles = new ArrayList<>();
      for (int i = 0; i < needles; i++) {
        handles.add(
            engine.submit(
                "n" + i,
                "SELECT * FROM STREAM(MAX, TIME) WHERE id = '" + needleIds.get(i) + "' LIMIT 10"));
      }
      QueryHandle start =
          engine.submit(
              "start",
              "SELECT id FROM STREAM(MAX, TIME) WHERE id = '" + START_ID + "' LIMIT " + marks);
      QueryHandle end =
          engine.submit(
              "end", "SELECT id FROM STREAM(MAX, TIME) WHERE id = '" + END_ID + "' LIMIT " + marks);
      handles.add(start);
      handles.add(end);
      for (QueryHandle h : handles) {
        if (!h.awaitRunning(RUNNING_TIMEOUT_S, TimeUnit.SECONDS) || h.error() != null) {
          throw new IllegalStateException("query " + h.id() + " did not start: " + h.error());
        }
      }
      settle();
      double cpu0 = processCpuSeconds();
      long t0 = System.nanoTime();
      engine.resume();
      int started = awaitMarks(start, marks);
      AutoCloseable recording = profiles == null ? null : profiles.start(side);
      double cpuS = processCpuSeconds();
      double broker0 = brokerCpuSeconds();
      double jit0 = jitSeconds();
      long tS = System.nanoTime();
      int seen = awaitMarks(end, marks);
      long t1 = System.nanoTime();
      double cpu1 = processCpuSeconds();
      double brokerCpu = brokerCpuSeconds() - broker0;
      double jit = jitSeconds() - jit0;
      if (recording != null) {
        recording.close();
      }
      if (started < marks || seen < marks) {
        throw new IllegalStateException(
            side + ": saw " + started + " start and " + seen + " end marks of " + marks);
      }
      engine.finishAll();
      int found = 0;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(RUNNING_TIMEOUT_S);
      for (int i = 0; i < needles; i++) {
        Result r = last(handles.get(i), deadline);
        String id = needleIds.get(i);
        if (r != null && r.records().stream().anyMatch(rec -> id.equals(rec.get("id")))) {
          found++;
        }
      }
      return new Run(
          side,
          warmup,
          records,
          (t1 - t0) / 1e9,
          cpu1 - cpu0,
          records - startAt(),
          (t1 - tS) / 1e9,
          cpu1 - cpuS,
          brokerCpu,
          jit,
          found);
    } finally {
      engine.close();
    }
  }

  /**
   * Before a measured read: waits until the JIT compilers have been idle for half a second (at most
   * 60 s), so that compiling what setting up 10,000 queries made hot is not counted as reading. (No
   * full collection: it would shrink the heap, and the garbage collector would work harder than in
   * a process that runs for long.)
   */
  private static void settle() throws InterruptedException {
    CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
    if (jit == null || !jit.isCompilationTimeMonitoringSupported()) {
      return;
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    long last = jit.getTotalCompilationTime();
    int quiet = 0;
    while (quiet < 5 && System.nanoTime() < deadline) {
      Thread.sleep(100);
      long now = jit.getTotalCompilationTime();
      quiet = now == last ? quiet + 1 : 0;
      last = now;
    }
  }

  private static int awaitMarks(QueryHandle end, int marks) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(READ_TIMEOUT_S);
    int seen = 0;
    while (System.nanoTime() < deadline) {
      boolean done = end.isDone();
      Result r = end.poll(100, TimeUnit.MILLISECONDS);
      if (r != null) {
        seen += r.records().size();
        if (seen >= marks || r.meta().isFinal()) {
          return seen;
        }
      } else if (done) {
        return seen;
      }
    }
    return seen;
  }

  private static Result last(QueryHandle h, long deadline) throws InterruptedException {
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

  /** Time the JIT compilers spent so far (their threads' time), in seconds. */
  private static double jitSeconds() {
    CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
    return jit == null || !jit.isCompilationTimeMonitoringSupported()
        ? Double.NaN
        : jit.getTotalCompilationTime() / 1e3;
  }

  static double processCpuSeconds() {
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getProcessCpuTime() / 1e9;
    }
    return Double.NaN;
  }

  /** The broker's CPU seconds from /proc (utime + stime), NaN without a pid. */
  private double brokerCpuSeconds() {
    if (brokerPid < 0) {
      return Double.NaN;
    }
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(brokerPid), "stat"));
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      // fields 14 and 15 of stat (utime, stime), in clock ticks; 3rd and later after the name
      long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
      return ticks / 100.0;
    } catch (IOException | RuntimeException e) {
      return Double.NaN;
    }
  }
}
