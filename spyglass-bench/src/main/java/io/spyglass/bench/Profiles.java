package io.spyglass.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.ParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedMethod;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * JFR recordings of measured phases (the "profile" settings: a Java stack sample every 10 ms of
 * each running thread), summed per label over every recording: samples by top frame (method), by
 * the top frame's package, by thread, and by the nearest Spyglass frame under the top (which part
 * of Spyglass the time is spent for). {@link #write()} writes {@code profile-LABEL.txt} per label
 * into the folder, beside the recordings.
 */
final class Profiles {
  private static final int TOP = 30;

  private final Path dir;
  private final Map<String, List<Path>> recordings = new LinkedHashMap<>();
  private final Map<String, Map<String, double[]>> threadCpu = new HashMap<>();

  /** Whether to record with JFR, or only count CPU by thread. */
  private final boolean jfr;

  Profiles(Path dir, boolean jfr) throws IOException {
    this.dir = Files.createDirectories(dir);
    this.jfr = jfr;
  }

  /** Starts recording for {@code label}; closing the result stops it and keeps the file. */
  AutoCloseable start(String label) throws IOException {
    if (!jfr) {
      ThreadCpu cpu = new ThreadCpu();
      return () -> {
        cpu.close();
        add(label, cpu);
      };
    }
    Recording r;
    try {
      r = new Recording(Configuration.getConfiguration("profile"));
    } catch (ParseException e) {
      throw new IOException(e);
    }
    List<Path> files = recordings.computeIfAbsent(label, k -> new ArrayList<>());
    Path file = dir.resolve(label + "-" + (files.size() + 1) + ".jfr");
    files.add(file);
    ThreadCpu cpu = new ThreadCpu();
    r.start();
    return () -> {
      r.stop();
      cpu.close();
      r.dump(file);
      r.close();
      add(label, cpu);
    };
  }

  private void add(String label, ThreadCpu cpu) {
    Map<String, double[]> sum = threadCpu.computeIfAbsent(label, k -> new HashMap<>());
    cpu.table()
        .forEach(
            (name, v) -> {
              double[] s = sum.computeIfAbsent(name, k -> new double[2]);
              s[0] += v[0];
              s[1] += v[1];
            });
  }

  void write() throws IOException {
    for (String label : threadCpu.keySet()) {
      recordings.computeIfAbsent(label, k -> new ArrayList<>());
    }
    for (Map.Entry<String, List<Path>> e : recordings.entrySet()) {
      Path out = dir.resolve("profile-" + e.getKey() + ".txt");
      Files.writeString(
          out,
          (jfr ? summary(e.getKey(), e.getValue()) : "# " + e.getKey() + "\n")
              + threads(threadCpu.getOrDefault(e.getKey(), Map.of())));
      System.out.println("profile: " + out);
    }
  }

  static String summary(String label, List<Path> files) throws IOException {
    Map<String, Long> byFrame = new HashMap<>();
    Map<String, Long> byPackage = new HashMap<>();
    Map<String, Long> byThread = new HashMap<>();
    Map<String, Long> bySpyglass = new HashMap<>();
    Map<String, Long> readerFrames = new HashMap<>();
    long readerTotal = 0;
    Map<String, Long> allocated = new HashMap<>();
    long allocatedTotal = 0;
    long total = 0;
    for (Path f : files) {
      for (RecordedEvent ev : RecordingFile.readAllEvents(f)) {
        if (ev.getEventType().getName().equals("jdk.ObjectAllocationSample")) {
          RecordedStackTrace st = ev.getStackTrace();
          String where = "?";
          if (st != null) {
            for (RecordedFrame fr : st.getFrames()) {
              String c = fr.getMethod().getType().getName();
              if (!c.startsWith("java.") && !c.startsWith("jdk.")) {
                where = c + "." + fr.getMethod().getName();
                break;
              }
            }
          }
          String type = ev.getClass("objectClass").getName();
          allocated.merge(type + " in " + where, ev.getLong("weight"), Long::sum);
          allocatedTotal += ev.getLong("weight");
          continue;
        }
        if (!ev.getEventType().getName().equals("jdk.ExecutionSample")) {
          continue;
        }
        RecordedStackTrace st = ev.getStackTrace();
        if (st == null || st.getFrames().isEmpty()) {
          continue;
        }
        total++;
        List<RecordedFrame> frames = st.getFrames();
        RecordedMethod top = frames.get(0).getMethod();
        String cls = top.getType().getName();
        byFrame.merge(cls + "." + top.getName(), 1L, Long::sum);
        int dot = cls.lastIndexOf('.');
        byPackage.merge(dot < 0 ? "(default)" : cls.substring(0, dot), 1L, Long::sum);
        RecordedThread t = ev.getThread("sampledThread");
        String thread = t == null ? "?" : t.getJavaName();
        byThread.merge(thread == null ? "?" : thread.replaceAll("\\d+$", "N"), 1L, Long::sum);
        if ("spyglass-reader".equals(thread)) {
          readerTotal++;
          readerFrames.merge(cls + "." + top.getName(), 1L, Long::sum);
        }
        String ours = "(none)";
        for (RecordedFrame fr : frames) {
          String c = fr.getMethod().getType().getName();
          if (c.startsWith("io.spyglass.")) {
            ours = c.substring(c.lastIndexOf('.') + 1) + "." + fr.getMethod().getName();
            break;
          }
        }
        bySpyglass.merge(ours, 1L, Long::sum);
      }
    }
    StringBuilder s = new StringBuilder();
    s.append(
        String.format(
            Locale.ROOT,
            "# %s: %,d execution samples (JFR, %d recordings)%n",
            label,
            total,
            files.size()));
    table(s, "top frame (self time)", byFrame, total);
    table(s, "package of the top frame", byPackage, total);
    table(s, "thread", byThread, total);
    table(s, "nearest Spyglass frame under the top", bySpyglass, total);
    table(
        s,
        String.format(Locale.ROOT, "top frame on the reader thread (%,d samples)", readerTotal),
        readerFrames,
        readerTotal);
    s.append(
        String.format(
            Locale.ROOT,
            "%n## allocated (JFR's estimate: %,d MB), by class and the first frame outside the"
                + " JDK%n%n| MB | %% | class in method |%n| ---: | ---: | :--- |%n",
            allocatedTotal >> 20));
    long all = allocatedTotal;
    allocated.entrySet().stream()
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .limit(15)
        .forEach(
            e ->
                s.append(
                    String.format(
                        Locale.ROOT,
                        "| %,d | %.1f | `%s` |%n",
                        e.getValue() >> 20,
                        100.0 * e.getValue() / Math.max(1, all),
                        e.getKey())));
    return s.toString();
  }

  /** CPU seconds by thread (from /proc: every thread, native ones too), user and system. */
  static String threads(Map<String, double[]> cpu) {
    double total = 0;
    for (double[] v : cpu.values()) {
      total += v[0] + v[1];
    }
    StringBuilder s = new StringBuilder();
    s.append(
        String.format(
            Locale.ROOT,
            "%n## CPU by thread (/proc, every thread of the process: %.2f CPU-s)%n%n"
                + "| thread | user CPU-s | system CPU-s | %% of the process |%n"
                + "| :--- | ---: | ---: | ---: |%n",
            total));
    double all = total;
    cpu.entrySet().stream()
        .sorted(
            (a, b) ->
                Double.compare(
                    b.getValue()[0] + b.getValue()[1], a.getValue()[0] + a.getValue()[1]))
        .forEach(
            e ->
                s.append(
                    String.format(
                        Locale.ROOT,
                        "| `%s` | %.2f | %.2f | %.1f |%n",
                        e.getKey(),
                        e.getValue()[0],
                        e.getValue()[1],
                        100 * (e.getValue()[0] + e.getValue()[1]) / Math.max(1e-9, all))));
    return s.toString();
  }

  private static void table(StringBuilder s, String title, Map<String, Long> counts, long total) {
    s.append("\n## ").append(title).append("\n\n| samples | % | where |\n| ---: | ---: | :--- |\n");
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
                        100.0 * e.getValue() / Math.max(1, total),
                        e.getKey())));
  }
}
