package io.spyglass.cli;

import io.spyglass.engine.source.RawBatch;
import io.spyglass.engine.source.Source;
import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Holds back a source until {@link #open()}: the engine starts reading as soon as it starts, and
 * records read before the command's queries reach the filter workers would be lost (a short file
 * would give empty results).
 */
final class GatedSource implements Source {
  private final Source source;
  private final CountDownLatch opened = new CountDownLatch(1);

  GatedSource(Source source) {
    this.source = source;
  }

  /** Lets records through from now on. */
  void open() {
    opened.countDown();
  }

  @Override
  public boolean poll(RawBatch batch, int maxRecords, long maxWaitMs)
      throws IOException, InterruptedException {
    if (!opened.await(maxWaitMs, TimeUnit.MILLISECONDS)) {
      return true;
    }
    return source.poll(batch, maxRecords, maxWaitMs);
  }

  @Override
  public String describe() {
    return source.describe();
  }

  @Override
  public long skipped() {
    return source.skipped();
  }

  @Override
  public void close() throws IOException {
    source.close();
  }
}
