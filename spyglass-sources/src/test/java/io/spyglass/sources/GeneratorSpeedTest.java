package io.spyglass.sources;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.record.JsonRecordReader;
import io.spyglass.core.record.Record;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import org.junit.jupiter.api.Test;

/**
 * Prints single-thread generation speed, per second of wall time and per second of this thread's
 * CPU time (the fairer figure on a shared machine); measured, not asserted. What is measured is
 * checked: the unpaced generator fills every poll (nothing throttles it), and what it generates are
 * JSON objects of the target size (a sample of every batch is parsed, outside the timing).
 */
class GeneratorSpeedTest {
  private static final int PER_POLL = 512;

  @Test
  void printsRecordsAndBytesPerSecondOfValidRecords() throws Exception {
    GeneratorSource source =
        new GeneratorSource(GeneratorSource.Options.DEFAULTS.withStartMs(1_700_000_000_000L));
    RawBatch batch = new RawBatch(1 << 20, 1024);
    run(source, batch, 300_000_000L); // warm-up
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long start = System.nanoTime();
    long cpuStart = threads.getCurrentThreadCpuTime();
    Measured m = run(source, batch, 1_000_000_000L);
    double seconds = (System.nanoTime() - start) / 1e9;
    double cpuSeconds = (threads.getCurrentThreadCpuTime() - cpuStart) / 1e9;
    System.out.printf(
        "generator, %.0f bytes/record: %.0f records/s, %.1f MB/s per wall second (%.2f s);"
            + " %.0f records/s, %.1f MB/s per CPU second (%.2f s)%n",
        (double) m.bytes / m.records,
        m.records / seconds,
        m.bytes / seconds / 1e6,
        seconds,
        m.records / cpuSeconds,
        m.bytes / cpuSeconds / 1e6,
        cpuSeconds);
    assertThat(m.polls).isPositive();
    assertThat(m.records).as("every poll full").isEqualTo(m.polls * PER_POLL);
    assertThat((double) m.bytes / m.records).isBetween(1700.0, 1950.0);
    // the sample is parsed after the measured polls, so it does not slow them
    JsonRecordReader reader = new JsonRecordReader();
    Record record = new Record();
    for (int i = 0; i < batch.size(); i += 37) {
      reader.read(batch.data(), batch.start(i), batch.length(i), record);
      assertThat(record.get("id")).isInstanceOf(String.class);
    }
  }

  private static final class Measured {
    long polls;
    long records;
    long bytes;
  }

  private static Measured run(GeneratorSource source, RawBatch batch, long nanos) throws Exception {
    Measured m = new Measured();
    long end = System.nanoTime() + nanos;
    while (System.nanoTime() < end) {
      batch.clear();
      source.poll(batch, PER_POLL, 0);
      m.polls++;
      m.records += batch.size();
      m.bytes += batch.bytes();
    }
    return m;
  }
}
