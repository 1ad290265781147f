package io.spyglass.flink.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.ParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where the Flink job's CPU goes beside the embedded engine's, on the workloads of {@code spyglass
 * bench flink} (10,000 needles) and {@code bench bullet-kafka} (tests 3 to 6): runs of both
 * runtimes alternated in one process, as the benches run them, each measured read (from the
 * backlog's commit to its last end mark) watched by the CPU time of every thread of the process
 * (from {@code /proc/self/task}) and, with {@code --jfr}, recorded by JFR (the "profile" settings);
 * per runtime and workload, {@code profile-LABEL.txt} sums them over the measured runs: CPU by
 * thread, samples by top frame, by thread, and by the nearest Spyglass frame under the top.
 *
 * <p>{@code java -cp spyglass-bench-cli/target/spyglass-bench.jar
 * io.spyglass.flink.bench.JobProfile --help}
 */
public final class JobProfile {
  private static final int TOP = 25;

  private JobProfile() {}

  public static void main(String[] args) throws Exception {
    List<String> workloads = new ArrayList<>();
    int pairs = 2;
    int warmups = 1;
    int slots = 2;
    String sides = "both";
    Path out = Path.of("bench-results", "job-profile");
    boolean jfr = false;
    String kafka = null;
    int needles = 10_000;
    int records = 1_000_000;
    long latencyMs = 0;
    long rate = 2_000;
    double warmShare = 0;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (a.equals("--help") || a.equals("-h")) {
        System.out.println(
            """
            JobProfile [options]: the job and the embedded engine alternated, CPU by thread
              --workload W,...   needles, test3, test4, test5, test6, unmatched (--needles
                                 queries that match no record; default: test6)
              --pairs N          measured pairs of runs per workload (default 2)
              --warmups N        unmeasured pairs first (default 1)
              --slots N          slots (workers) of each runtime (default 2)
              --side S           both, flink or embedded (default both)
              --needles N        needle queries of the needles workload (default 10,000)
              --records N        records of the needles workload (default 1,000,000)
              --out DIR          profile-LABEL.txt files (default bench-results/job-profile)
              --jfr              record each measured read with JFR too
              --kafka HOST:PORT  a broker of yours (default: start one on loopback)
              --latency-ms N     after each read, probes for N ms: the latency from a record's
                                 send to Kafka to its result (as bench flink; default 0: none)
              --rate N           records per second sent beside the probes (default 2,000)
              --warm-share X     before each measured read, the same runtime reads X times as
                                 many records, unmeasured, with the queries in place (as a
                                 runtime that has run for a while; default 0: a new runtime)
            Before each measured read, the runner waits until the JIT compiler has worked off
            what the runtime's start queued (-Dspyglass.bench.compiler-quiet-ms=500, the
            default; 0: no wait, the clock starts once every query runs).
            """);
        return;
      }
      if (a.equals("--jfr")) {
        jfr = true;
        continue;
      }
      String v = args[++i];
      switch (a) {
        case "--workload" -> workloads.addAll(List.of(v.split(",")));
        case "--pairs" -> pairs = Integer.parseInt(v);
        case "--warmups" -> warmups = Integer.parseInt(v);
        case "--slots" -> slots = Integer.parseInt(v);
        case "--side" -> sides = v;
        case "--needles" -> needles = Integer.parseInt(v);
        case "--records" -> records = Integer.parseInt(v);
        case "--out" -> out = Path.of(v);
        case "--kafka" -> kafka = v;
        case "--latency-ms" -> latencyMs = Long.parseLong(v);
        case "--rate" -> rate = Long.parseLong(v);
        case "--warm-share" -> warmShare = Double.parseDouble(v);
        default -> throw new IllegalArgumentException("unknown option " + a + " (see --help)");
      }
    }
    if (workloads.isEmpty()) {
      workloads.add("test6");
    }
    Files.createDirectories(out);
    Profiles profiles = new Profiles(out, jfr);
    List<String> problems = new ArrayList<>();
    Map<String, List<double[]>> rates = new LinkedHashMap<>();
    try (KafkaBroker broker =
            kafka != null
                ? KafkaBroker.existing(kafka)
                : KafkaBroker.start(p -> System.out.println("  .. " + p));
        Topics topics = new Topics(broker.bootstrap());
        FlinkScenario.Cluster cluster = FlinkScenario.Cluster.start(Math.max(2, slots))) {
      Runner runner = new Runner(topics, broker, problems::add);
      runner.warmUp(warmShare);
      for (String w : workloads) {
        Runner.Spec spec = withLatency(spec(w, slots, needles, records), latencyMs, rate);
        for (int k = 0; k < warmups + pairs; k++) {
          boolean measured = k >= warmups;
          runner.watch(measured ? profiles::start : label -> () -> {});
          double[] pair = new double[2];
          for (int j = 0; j < 2; j++) {
            boolean flink = (j == 0) == (k % 2 == 0);
            if (flink ? sides.equals("embedded") : sides.equals("flink")) {
              continue;
            }
            Runner.Outcome o =
                runner.run(
                    spec,
                    flink
                        ? FlinkScenario.flink(cluster, topics, spec)
                        : FlinkScenario.embedded(topics, spec));
            pair[flink ? 1 : 0] = o.recordsPerCpuSecond();
            System.out.printf(
                Locale.ROOT,
                "%s%s, %s: %,.0f records/s, %,.0f records per CPU-second, %.2f CPU-s"
                    + " (JIT quiet after %d ms)%s%n",
                measured ? "" : "(warm-up) ",
                o.side(),
                spec.workload(),
                o.recordsPerSecond(),
                o.recordsPerCpuSecond(),
                o.cpuSeconds(),
                runner.lastCompilerWaitMs(),
                latencyMs == 0
                    ? ""
                    : String.format(
                        Locale.ROOT,
                        ", latency p50 %d ms, p99 %.0f ms, max %d ms (%d probes)",
                        o.latencyMs().getValueAtPercentile(50),
                        o.p99LatencyMs(),
                        o.latencyMs().getMaxValue(),
                        o.latencyMs().getTotalCount()));
          }
          if (measured) {
            rates.computeIfAbsent(spec.workload(), x -> new ArrayList<>()).add(pair);
          }
        }
      }
    }
    profiles.write();
    for (Map.Entry<String, List<double[]>> e : rates.entrySet()) {
      StringBuilder s = new StringBuilder(e.getKey() + ": job / embedded per CPU-second:");
      for (double[] p : e.getValue()) {
        s.append(String.format(Locale.ROOT, " %.2f", p[0] == 0 ? Double.NaN : p[1] / p[0]));
      }
      System.out.println(s);
    }
    problems.forEach(p -> System.out.println("problem: " + p));
  }

  /** The spec with latency probes for {@code latencyMs} after its read (none for 0). */
  private static Runner.Spec withLatency(Runner.Spec s, long latencyMs, long rate) {
    return new Runner.Spec(
        s.workload(),
        s.slots(),
        s.partitions(),
        s.recordBytes(),
        s.records(),
        s.needles(),
        s.others(),
        latencyMs,
        rate,
        s.hops(),
        s.copies(),
        s.sameId());
  }

  private static Runner.Spec spec(String workload, int slots, int needles, int records) {
    int partitions = Math.max(2, slots);
    if (workload.equals("unmatched")) {
      List<String> none = new ArrayList<>();
      for (int i = 0; i < needles; i++) {
        none.add("SELECT * FROM STREAM(MAX, TIME) WHERE id = 'none-" + i + "' LIMIT 10");
      }
      return new Runner.Spec(
          String.format("%,d unmatched", needles),
          slots,
          partitions,
          1_843,
          records,
          0,
          none,
          0,
          0,
          0);
    }
    if (workload.equals("needles")) {
      return new Runner.Spec(
          String.format("%,d needles", needles),
          slots,
          partitions,
          1_843,
          records,
          needles,
          List.of(),
          0,
          0,
          0);
    }
    for (BulletStudy.Throughput t : BulletStudy.THROUGHPUT) {
      if (workload.equals("test" + t.test())) {
        return new Runner.Spec(
            String.format("test %d: %,d RAW queries", t.test(), t.queries()),
            slots,
            partitions,
            t.recordBytes(),
            (int) ((192L << 20) / t.recordBytes()),
            t.queries(),
            List.of(),
            0,
            0,
            0,
            10,
            true);
      }
    }
    throw new IllegalArgumentException(
        "unknown workload " + workload + ": needles, unmatched, test3, test4, test5 or test6");
  }

  /** The measured reads' CPU by thread and JFR samples, summed per label. */
  private static final class Profiles {
    private final Path dir;
    private final boolean jfr;
    private final Map<String, List<Path>> recordings = new LinkedHashMap<>();
    private final Map<String, Map<String, double[]>> cpu = new LinkedHashMap<>();
    private final Map<String, Integer> runs = new HashMap<>();

    Profiles(Path dir, boolean jfr) {
      this.dir = dir;
      this.jfr = jfr;
    }

    AutoCloseable start(String label) throws IOException, ParseException {
      String name = label.replaceAll("[^A-Za-z0-9]+", "-").replaceAll("-$", "");
      int run = runs.merge(name, 1, Integer::sum);
      System.out.println("  measuring " + label);
      Map<String, long[]> before = threads();
      Recording r = jfr ? new Recording(Configuration.getConfiguration("profile")) : null;
      if (r != null) {
        r.start();
      }
      return () -> {
        Map<String, long[]> after = threads();
        if (r != null) {
          r.stop();
          Path file = dir.resolve(name + "-" + run + ".jfr");
          r.dump(file);
          r.close();
          recordings.computeIfAbsent(name, k -> new ArrayList<>()).add(file);
        }
        Map<String, double[]> sum = cpu.computeIfAbsent(name, k -> new TreeMap<>());
        Map<String, Double> run1 = new TreeMap<>();
        for (Map.Entry<String, long[]> e : after.entrySet()) {
          long[] b = before.getOrDefault(e.getKey(), new long[] {0, 0, 0});
          long[] a = e.getValue();
          if (b[2] != a[2]) {
            b = new long[] {0, 0, 0}; // another thread of that id meanwhile
          }
          String thread = fold(THREAD_NAMES.getOrDefault(e.getKey(), "?"));
          double[] s = sum.computeIfAbsent(thread, k -> new double[2]);
          s[0] += (a[0] - b[0]) / 100.0;
          s[1] += (a[1] - b[1]) / 100.0;
          run1.merge(role(thread), (a[0] - b[0] + a[1] - b[1]) / 100.0, Double::sum);
        }
        StringBuilder line = new StringBuilder("  CPU-s by role:");
        run1.forEach((k, v) -> line.append(String.format(Locale.ROOT, " %s %.2f", k, v)));
        System.out.println(line);
      };
    }

    private static final Map<String, String> THREAD_NAMES = new HashMap<>();

    /** User and system ticks of every thread of this process, by id; names kept aside. */
    private static Map<String, long[]> threads() {
      Map<String, long[]> out = new HashMap<>();
      Path tasks = Path.of("/proc/self/task");
      if (!Files.isDirectory(tasks)) {
        return out;
      }
      try (DirectoryStream<Path> ds = Files.newDirectoryStream(tasks)) {
        for (Path t : ds) {
          try {
            String stat = Files.readString(t.resolve("stat"));
            int open = stat.indexOf('(');
            int close = stat.lastIndexOf(')');
            String[] f = stat.substring(close + 2).split(" ");
            String id = t.getFileName().toString();
            THREAD_NAMES.put(id, stat.substring(open + 1, close));
            // after the name: utime is field 14 of stat, stime 15, starttime 22
            out.put(
                id,
                new long[] {Long.parseLong(f[11]), Long.parseLong(f[12]), Long.parseLong(f[19])});
          } catch (IOException | RuntimeException e) {
            // the thread ended meanwhile
          }
        }
      } catch (IOException e) {
        // no /proc
      }
      return out;
    }

    /** What a thread does, for a run's one-line summary. */
    private static String role(String thread) {
      if (thread.startsWith("C") && thread.contains("CompilerThre")) {
        return "jit";
      }
      if (thread.startsWith("GC ") || thread.startsWith("GN ") || thread.equals("VM Thread")) {
        return "gc";
      }
      if (thread.startsWith("Source Data Fet") || thread.equals("spyglass-reader")) {
        return "consumer";
      }
      if (thread.startsWith("Source: spyglas") || thread.startsWith("spyglass-worker")) {
        return "filter";
      }
      if (thread.startsWith("spyglass-combin")) {
        return "combiner";
      }
      if (thread.startsWith("kafka-producer")) {
        return "producer";
      }
      if (thread.startsWith("spyglass-flink-")) {
        return "client";
      }
      return "other";
    }

    private static String fold(String name) {
      return name.replaceAll("\\d+", "N");
    }

    void write() throws IOException {
      for (Map.Entry<String, Map<String, double[]>> e : cpu.entrySet()) {
        StringBuilder s = new StringBuilder("# " + e.getKey() + "\n");
        s.append(threadTable(e.getValue()));
        List<Path> files = recordings.get(e.getKey());
        if (files != null) {
          s.append(samples(files));
        }
        Path file = dir.resolve("profile-" + e.getKey() + ".txt");
        Files.writeString(file, s);
        System.out.println("profile: " + file);
      }
    }

    private static String threadTable(Map<String, double[]> cpu) {
      double total = 0;
      for (double[] v : cpu.values()) {
        total += v[0] + v[1];
      }
      StringBuilder s =
          new StringBuilder(
              String.format(
                  Locale.ROOT,
                  "%n## CPU by thread (/proc, every thread of the process: %.2f CPU-s)%n%n"
                      + "| thread | user CPU-s | system CPU-s | %% |%n| :--- | ---: | ---: | ---: |%n",
                  total));
      double all = total;
      cpu.entrySet().stream()
          .filter(e -> e.getValue()[0] + e.getValue()[1] > 0)
          .sorted((a, b) -> Double.compare(sum(b.getValue()), sum(a.getValue())))
          .forEach(
              e ->
                  s.append(
                      String.format(
                          Locale.ROOT,
                          "| `%s` | %.2f | %.2f | %.1f |%n",
                          e.getKey(),
                          e.getValue()[0],
                          e.getValue()[1],
                          100 * sum(e.getValue()) / Math.max(1e-9, all))));
      return s.toString();
    }

    private static double sum(double[] v) {
      return v[0] + v[1];
    }

    private static String samples(List<Path> files) throws IOException {
      Map<String, Long> byFrame = new HashMap<>();
      Map<String, Long> byThread = new HashMap<>();
      Map<String, Long> bySpyglass = new HashMap<>();
      Map<String, Long> stacks = new HashMap<>();
      long total = 0;
      for (Path f : files) {
        for (RecordedEvent ev : RecordingFile.readAllEvents(f)) {
          if (!ev.getEventType().getName().equals("jdk.ExecutionSample")) {
            continue;
          }
          RecordedStackTrace st = ev.getStackTrace();
          if (st == null || st.getFrames().isEmpty()) {
            continue;
          }
          total++;
          List<RecordedFrame> frames = st.getFrames();
          byFrame.merge(name(frames.get(0)), 1L, Long::sum);
          RecordedThread t = ev.getThread("sampledThread");
          String thread = t == null || t.getJavaName() == null ? "?" : t.getJavaName();
          byThread.merge(fold(thread), 1L, Long::sum);
          String ours = "(none)";
          for (RecordedFrame fr : frames) {
            if (fr.getMethod().getType().getName().startsWith("io.spyglass.")) {
              ours = name(fr);
              break;
            }
          }
          bySpyglass.merge(ours, 1L, Long::sum);
          StringBuilder chain = new StringBuilder();
          for (int i = 0; i < Math.min(6, frames.size()); i++) {
            chain.append(i == 0 ? "" : " < ").append(name(frames.get(i)));
          }
          stacks.merge(chain.toString(), 1L, Long::sum);
        }
      }
      StringBuilder s = new StringBuilder();
      s.append(
          String.format(
              Locale.ROOT,
              "%n# JFR: %,d execution samples (%d recordings)%n",
              total,
              files.size()));
      table(s, "top frame (self time)", byFrame, total);
      table(s, "thread", byThread, total);
      table(s, "nearest Spyglass frame under the top", bySpyglass, total);
      table(s, "top six frames", stacks, total);
      return s.toString();
    }

    private static String name(RecordedFrame fr) {
      String c = fr.getMethod().getType().getName();
      return c.substring(c.lastIndexOf('.') + 1) + "." + fr.getMethod().getName();
    }

    private static void table(StringBuilder s, String title, Map<String, Long> counts, long all) {
      s.append("\n## ")
          .append(title)
          .append("\n\n| samples | % | where |\n| ---: | ---: | :--- |\n");
      counts.entrySet().stream()
          .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
          .limit(TOP)
          .forEach(
              e ->
                  s.append(
                      String.format(
                          Locale.ROOT,
                          "| %d | %.1f | `%s` |%n",
                          e.getValue(),
                          100.0 * e.getValue() / Math.max(1, all),
                          e.getKey())));
    }
  }
}
