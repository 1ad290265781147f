package io.spyglass.scenarios;

import io.spyglass.sources.EventGenerator;
import io.spyglass.sources.Pacer;
import io.spyglass.sources.RawBatch;
import io.spyglass.sources.Source;
import java.util.Arrays;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Replays records generated into memory before the run, paced or as fast as possible, so that the
 * engine's own rate is measured without the cost of generating records on the reader thread (the
 * {@code gen} source makes each record as it is read). Needles are encoded on the thread that
 * inserts them and emitted first by the next poll, as with the generator.
 *
 * <p>Polled from one thread; {@link #insertNeedle} and {@link #close} may be called from any.
 */
final class ReplaySource implements Source {
  private final Records records;
  private final Pacer pacer;
  private final EventGenerator needleGenerator;
  private final Queue<byte[]> needles = new ConcurrentLinkedQueue<>();
  private int next;
  private volatile boolean closed;

  ReplaySource(Records records, long recordsPerSecond, long seed) {
    this.records = records;
    this.pacer = new Pacer(recordsPerSecond);
    this.needleGenerator = new EventGenerator(seed ^ 0x5eed, records.recordBytes);
  }

  /** Queues a generated record with these top-level fields replaced or added. Thread-safe. */
  void insertNeedle(Map<String, Object> fields) {
    byte[] bytes;
    synchronized (needleGenerator) {
      int len = needleGenerator.next(System.currentTimeMillis(), fields);
      bytes = Arrays.copyOf(needleGenerator.buffer(), len);
    }
    needles.add(bytes);
  }

  @Override
  public boolean poll(RawBatch batch, int maxRecords, long maxWaitMs) throws InterruptedException {
    if (closed) {
      return false;
    }
    int n = 0;
    byte[] needle;
    while (n < maxRecords && (needle = needles.poll()) != null) {
      batch.add(needle, 0, needle.length);
      n++;
    }
    int want = maxRecords - n;
    int due = n > 0 ? Math.min(want, pacer.take(want, 0)) : pacer.take(want, maxWaitMs);
    for (int i = 0; i < due; i++) {
      batch.add(records.data, records.starts[next], records.lengths[next]);
      next = next + 1 == records.count ? 0 : next + 1;
    }
    return true;
  }

  @Override
  public String describe() {
    return "replay?records=" + records.count + "&size=" + records.recordBytes;
  }

  @Override
  public void close() {
    closed = true;
  }

  /** Records generated once into one buffer, replayed in a loop. Immutable after construction. */
  static final class Records {
    final int recordBytes;
    final int count;
    final byte[] data;
    final int[] starts;
    final int[] lengths;

    /** About {@code totalBytes} of generated records (at least 1,000 records) of a target size. */
    Records(long seed, int recordBytes, long totalBytes) {
      this.recordBytes = recordBytes;
      EventGenerator g = new EventGenerator(seed, recordBytes);
      int n = (int) Math.max(1_000, Math.min(2_000_000, totalBytes / recordBytes));
      byte[] buf = new byte[(int) Math.min(Integer.MAX_VALUE - 16, (long) n * recordBytes * 5 / 4)];
      int[] s = new int[n];
      int[] l = new int[n];
      int used = 0;
      int made = 0;
      long t = System.currentTimeMillis();
      for (; made < n; made++) {
        int len = g.next(t + made);
        if (used + len > buf.length) {
          break;
        }
        System.arraycopy(g.buffer(), 0, buf, used, len);
        s[made] = used;
        l[made] = len;
        used += len;
      }
      this.count = made;
      this.data = buf;
      this.starts = s;
      this.lengths = l;
    }

    long bytes() {
      long b = 0;
      for (int i = 0; i < count; i++) {
        b += lengths[i];
      }
      return b;
    }
  }
}
