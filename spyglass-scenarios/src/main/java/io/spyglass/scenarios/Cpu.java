package io.spyglass.scenarios;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * CPU time from the process's own accounting: the whole process ({@code getProcessCpuTime}) and
 * each engine thread ({@link ThreadMXBean}), grouped by role: the reader (which also runs the
 * source, e.g. the generator), the filter workers and the combiner.
 */
final class Cpu {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  private static final String[] ROLES = {"reader", "worker", "combiner"};

  private final long processNanos;
  private final long wallNanos;
  private final Map<Long, Long> threadNanos;
  private final Map<Long, String> threadRoles;

  private Cpu(
      long processNanos, long wallNanos, Map<Long, Long> threadNanos, Map<Long, String> roles) {
    this.processNanos = processNanos;
    this.wallNanos = wallNanos;
    this.threadNanos = threadNanos;
    this.threadRoles = roles;
  }

  static Cpu now() {
    long process = -1;
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      process = os.getProcessCpuTime();
    }
    Map<Long, Long> nanos = new HashMap<>();
    Map<Long, String> roles = new HashMap<>();
    for (ThreadInfo info : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
      if (info == null || !info.getThreadName().startsWith("spyglass-")) {
        continue;
      }
      for (String role : ROLES) {
        if (info.getThreadName().startsWith("spyglass-" + role)) {
          long t = THREADS.getThreadCpuTime(info.getThreadId());
          if (t >= 0) {
            nanos.put(info.getThreadId(), t);
            roles.put(info.getThreadId(), role);
          }
        }
      }
    }
    return new Cpu(process, System.nanoTime(), nanos, roles);
  }

  /** CPU used between {@code start} and this snapshot, in cores (CPU seconds per second). */
  Usage since(Cpu start) {
    double wall = Math.max(1, wallNanos - start.wallNanos);
    Map<String, Double> byRole = new LinkedHashMap<>();
    for (String role : ROLES) {
      byRole.put(role, 0.0);
    }
    threadNanos.forEach(
        (id, t) -> {
          long before = start.threadNanos.getOrDefault(id, 0L);
          byRole.merge(threadRoles.get(id), (t - before) / wall, Double::sum);
        });
    return new Usage((processNanos - start.processNanos) / wall, byRole);
  }

  /**
   * @param processCores the whole process: CPU seconds per wall second
   * @param roleCores per engine thread role (reader, worker, combiner), CPU seconds per second
   */
  record Usage(double processCores, Map<String, Double> roleCores) {
    double role(String name) {
      return roleCores.getOrDefault(name, 0.0);
    }

    /** "reader / workers / combiner" in cores, for a table cell. */
    String roles() {
      return Table.num(role("reader"), 2)
          + " / "
          + Table.num(role("worker"), 2)
          + " / "
          + Table.num(role("combiner"), 2);
    }
  }
}
