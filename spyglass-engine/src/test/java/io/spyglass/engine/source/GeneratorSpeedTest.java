package io.spyglass.engine.source;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import org.junit.jupiter.api.Test;

/**
 * Prints single-thread generation speed, per second of wall time and per second of this thread's
 * CPU time (the fairer figure on a shared machine); measured, not asserted.
 */
class GeneratorSpeedTest {
  @Test
  void printsRecordsAndBytesPerSecond() throws Exception {
    GeneratorSource source =
        new GeneratorSource(GeneratorSource.Options.DEFAULTS.withStartMs(1_700_000_000_000L));
    RawBatch batch = new RawBatch(1 << 20, 1024);
    run(source, batch, 300_000_000L); // warm-up
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long start = System.nanoTime();
    long cpuStart = threads.getCurrentThreadCpuTime();
    long[] counts = run(source, batch, 1_000_000_000L);
    double seconds = (System.nanoTime() - start) / 1e9;
    double cpuSeconds = (threads.getCurrentThreadCpuTime() - cpuStart) / 1e9;
    System.out.printf(
        "generator, %.0f bytes/record: %.0f records/s, %.1f MB/s per wall second (%.2f s);"
            + " %.0f records/s, %.1f MB/s per CPU second (%.2f s)%n",
        (double) counts[1] / counts[0],
        counts[0] / seconds,
        counts[1] / seconds / 1e6,
        seconds,
        counts[0] / cpuSeconds,
        counts[1] / cpuSeconds / 1e6,
        cpuSeconds);
    assertThat(counts[0]).isPositive();
  }

  private static long[] run(GeneratorSource source, RawBatch batch, long nanos) throws Exception {
    long records = 0;
    long bytes = 0;
    long end = System.nanoTime() + nanos;
    while (System.nanoTime() < end) {
      batch.clear();
      source.poll(batch, 512, 0);
      records += batch.size();
      bytes += batch.bytes();
    }
    return new long[] {records, bytes};
  }
}
