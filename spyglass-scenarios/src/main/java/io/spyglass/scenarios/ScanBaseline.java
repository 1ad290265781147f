package io.spyglass.scenarios;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The floor of reading JSON: Jackson's streaming parser merely scanning every token of the same
 * records, building nothing, on one thread or on several. The engine's reading and routing rate is
 * compared with it.
 */
final class ScanBaseline {
  private ScanBaseline() {}

  /** Records/s and MB/s of scanning {@code records} on {@code threads} threads for a while. */
  static double[] measure(ReplaySource.Records records, int threads, long durationMs)
      throws InterruptedException {
    JsonFactory factory = new JsonFactory();
    AtomicLong scanned = new AtomicLong();
    AtomicLong bytes = new AtomicLong();
    long warmupEnd = System.nanoTime() + Math.min(1_000, durationMs / 3) * 1_000_000L;
    long end = warmupEnd + durationMs * 1_000_000L;
    List<Thread> ts = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int offset = t * 997;
      Thread th =
          new Thread(
              () -> {
                long n = 0;
                long b = 0;
                int i = offset % records.count;
                long tokens = 0;
                try {
                  while (true) {
                    long now = System.nanoTime();
                    if (now > end) {
                      break;
                    }
                    boolean counting = now > warmupEnd;
                    for (int k = 0; k < 64; k++) {
                      try (JsonParser p =
                          factory.createParser(
                              records.data, records.starts[i], records.lengths[i])) {
                        while (p.nextToken() != null) {
                          tokens++;
                        }
                      }
                      if (counting) {
                        n++;
                        b += records.lengths[i];
                      }
                      i = i + 1 == records.count ? 0 : i + 1;
                    }
                  }
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
                scanned.addAndGet(n + (tokens == -1 ? 1 : 0));
                bytes.addAndGet(b);
              },
              "bench-scan-" + t);
      ts.add(th);
      th.start();
    }
    for (Thread th : ts) {
      th.join();
    }
    double secs = durationMs / 1000.0;
    return new double[] {scanned.get() / secs, bytes.get() / secs / 1e6};
  }
}
