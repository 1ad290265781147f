package io.spyglass.engine.source;

import java.io.Closeable;
import java.io.IOException;

/**
 * Where records come from: a Kafka topic, a file, standard input, HTTP, the generator. Each source
 * hands raw JSON records in batches; the engine parses and filters them on its workers.
 *
 * <p>A source is polled from one thread at a time.
 */
public interface Source extends Closeable {
  /**
   * Appends up to {@code maxRecords} records to {@code batch}, waiting at most {@code maxWaitMs}
   * for the first one to be available.
   *
   * @return false when the source has ended (a bounded source read to its end) and will give no
   *     more records; true otherwise, even if nothing arrived in time
   */
  boolean poll(RawBatch batch, int maxRecords, long maxWaitMs)
      throws IOException, InterruptedException;

  /** A short description for logs and metrics, e.g. {@code file:/data/events.json}. */
  String describe();

  /** Malformed input the source itself had to skip (e.g. a line over the size limit). */
  default long skipped() {
    return 0;
  }
}
