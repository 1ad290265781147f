package io.spyglass.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * CPU time of each thread of this process while a phase runs, user and system apart, from Linux's
 * {@code /proc/self/task/TID/stat}: every thread, the JVM's own too (garbage collector, JIT
 * compilers), by name (the JVM gives native threads the first 15 characters of a Java thread's
 * name). Threads are looked at every 100 ms, so that one that ends during the phase is counted up
 * to its last look. Where there is no {@code /proc}, it counts nothing.
 */
final class ThreadCpu {
  private static final Path TASKS = Path.of("/proc/self/task");

  /** User and system clock ticks of a thread, and its name. */
  private record Ticks(String name, long user, long system) {}

  private final Map<String, Ticks> start = snapshot();
  private final Map<String, Ticks> last = new HashMap<>(start);
  private final Thread sampler;
  private volatile boolean stopped;

  ThreadCpu() {
    sampler =
        new Thread(
            () -> {
              while (!stopped) {
                merge(snapshot());
                try {
                  Thread.sleep(100);
                } catch (InterruptedException e) {
                  return;
                }
              }
            },
            "bench-thread-cpu");
    sampler.setDaemon(true);
    sampler.start();
  }

  private synchronized void merge(Map<String, Ticks> now) {
    last.putAll(now);
  }

  /** Stops looking; {@link #table()} then gives the phase's CPU by thread name. */
  void close() throws InterruptedException {
    stopped = true;
    sampler.interrupt();
    sampler.join();
    merge(snapshot());
  }

  /** CPU seconds by thread name (numbers at the end of names folded into N): user, system. */
  synchronized Map<String, double[]> table() {
    Map<String, double[]> out = new TreeMap<>();
    for (Map.Entry<String, Ticks> e : last.entrySet()) {
      Ticks end = e.getValue();
      Ticks begin = start.get(e.getKey());
      long user = end.user() - (begin == null ? 0 : begin.user());
      long system = end.system() - (begin == null ? 0 : begin.system());
      if (user + system == 0 || end.name().equals("bench-thread-c")) {
        continue;
      }
      double[] v = out.computeIfAbsent(fold(end.name()), k -> new double[2]);
      v[0] += user / 100.0;
      v[1] += system / 100.0;
    }
    return out;
  }

  private static String fold(String name) {
    return name.replaceAll("[#-]?\\d+$", "#N").replaceAll("\\d+", "N");
  }

  private static Map<String, Ticks> snapshot() {
    Map<String, Ticks> out = new HashMap<>();
    if (!Files.isDirectory(TASKS)) {
      return out;
    }
    try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
      for (Path t : tasks) {
        try {
          String stat = Files.readString(t.resolve("stat"));
          int open = stat.indexOf('(');
          int close = stat.lastIndexOf(')');
          String[] f = stat.substring(close + 2).split(" ");
          // after the name: state is field 3 of stat, utime 14 and stime 15
          out.put(
              t.getFileName().toString(),
              new Ticks(
                  stat.substring(open + 1, close), Long.parseLong(f[11]), Long.parseLong(f[12])));
        } catch (IOException | RuntimeException e) {
          // the thread ended meanwhile
        }
      }
    } catch (IOException e) {
      // no /proc
    }
    return out;
  }
}
