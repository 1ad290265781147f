package io.spyglass.scenarios;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

/**
 * Before a measured read, waits until the JIT compiler has caught up with the runtime's start.
 *
 * <p>Also before the service bench's memory readings ({@link ServerProcess}): a compilation in
 * progress holds its arenas (megabytes of native memory for a large method), and code compiled
 * between two readings is the JIT's warming, not the queries'.
 *
 * <p>A new runtime's start (a job submitted, deserialised and deployed; 400 queries parsed; Kafka
 * clients opened) queues compilations that the compiler threads work off over the next second or
 * two: on a loaded machine, during the read that follows. They are a cost of the start, not of
 * reading: a job that has run for a while has paid them. Waiting until the compiler threads are
 * (nearly) idle before the clock starts leaves in the read what the read itself makes the JIT
 * compile. {@code -Dspyglass.bench.compiler-quiet-ms=0} measures as before (no wait).
 */
public final class CompilerQuiet {
  /** The system property: how long the compiler must stay quiet, in milliseconds (0: no wait). */
  public static final String PROPERTY = "spyglass.bench.compiler-quiet-ms";

  public static final long DEFAULT_QUIET_MS = 500;

  /** The longest wait: a compiler that never goes quiet (other work in the process) is let be. */
  public static final long MAX_WAIT_MS = 20_000;

  /** Quiet: the compiler threads busy at most this share of the quiet window. */
  private static final double BUSY_SHARE = 0.02;

  private static final long POLL_MS = 50;

  private CompilerQuiet() {}

  /** The quiet window of {@link #PROPERTY}, {@value #DEFAULT_QUIET_MS} ms by default. */
  public static long quietMs() {
    String v = System.getProperty(PROPERTY, "").trim();
    if (v.isEmpty()) {
      return DEFAULT_QUIET_MS;
    }
    try {
      long ms = Long.parseLong(v);
      if (ms >= 0) {
        return ms;
      }
    } catch (NumberFormatException e) {
      // below
    }
    throw new IllegalArgumentException(
        "-D" + PROPERTY + " is a number of milliseconds (0: no wait), not " + v);
  }

  /**
   * Waits until the compiler threads have spent at most 2% of the last {@code quietMs} compiling,
   * or {@link #MAX_WAIT_MS}; returns how long it waited, in milliseconds (0 when the JVM does not
   * tell its compilation time, or {@code quietMs} is 0).
   */
  public static long await(long quietMs) throws InterruptedException {
    CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
    if (quietMs <= 0 || jit == null || !jit.isCompilationTimeMonitoringSupported()) {
      return 0;
    }
    int window = (int) Math.max(1, quietMs / POLL_MS);
    long[] times = new long[window + 1];
    long start = System.nanoTime();
    for (int i = 0; ; i++) {
      times[i % times.length] = jit.getTotalCompilationTime();
      long waited = (System.nanoTime() - start) / 1_000_000;
      if (i >= window) {
        long busy = times[i % times.length] - times[(i - window) % times.length];
        if (busy <= BUSY_SHARE * window * POLL_MS || waited >= MAX_WAIT_MS) {
          return waited;
        }
      }
      Thread.sleep(POLL_MS);
    }
  }
}
