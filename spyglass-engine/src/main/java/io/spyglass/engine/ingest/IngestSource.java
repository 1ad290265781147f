package io.spyglass.engine.ingest;

import io.spyglass.sources.RawBatch;
import io.spyglass.sources.Source;
import java.io.IOException;

/**
 * The documents of the {@link IngestLog} as a {@link Source}: from a position on, as they are
 * committed, without end. Its {@link #position()} is what an engine checkpoint records, and where a
 * restart reads again from.
 *
 * <p>Polled from one thread.
 */
public final class IngestSource implements Source {
  private final IngestLog log;
  private final IngestLog.Reader reader;
  private volatile boolean closed;

  /**
   * @throws IOException when the log no longer holds {@code from}
   */
  public IngestSource(IngestLog log, long from) throws IOException {
    this.log = log;
    this.reader = log.reader(from);
  }

  @Override
  public boolean poll(RawBatch batch, int maxRecords, long maxWaitMs)
      throws IOException, InterruptedException {
    if (closed) {
      return false;
    }
    if (reader.read(batch, maxRecords) == 0 && maxWaitMs > 0) {
      if (log.awaitBeyond(reader.position(), maxWaitMs)) {
        reader.read(batch, maxRecords);
      }
    }
    return !closed;
  }

  @Override
  public long position() {
    return reader.position();
  }

  @Override
  public String describe() {
    return "http";
  }

  @Override
  public void close() throws IOException {
    closed = true;
    reader.close();
  }
}
