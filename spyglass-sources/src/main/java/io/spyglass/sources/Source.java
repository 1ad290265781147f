package io.spyglass.sources;

import io.spyglass.core.record.JsonRecordReader;
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

  /**
   * Input the source itself had to skip, by reason and place (e.g. a line over the size limit, a
   * Kafka record without a value). Records that are not JSON are counted by the engine, which
   * parses them.
   */
  default BadInput.Snapshot badInput() {
    return BadInput.Snapshot.EMPTY;
  }

  /**
   * What keeps the source from reading now, for people (e.g. a broker that does not answer), or
   * null. A source with a problem is not ended: it recovers by itself, and the engine says the
   * problem in every result while it lasts.
   */
  default String problem() {
    return null;
  }

  /**
   * For a source that can be read again from a position (the ingest log): the position after the
   * last record handed out by {@link #poll}; -1 for others. The embedded engine's checkpoints
   * record it.
   */
  default long position() {
    return -1;
  }

  /** How many records {@link #badInput()} holds. */
  default long skipped() {
    return badInput().total();
  }

  /**
   * The longest record, in bytes, that the source hands on and the engine reads; longer ones are
   * counted as {@link io.spyglass.core.record.BadRecord#TOO_LONG}. File sources take it from their
   * {@code maxLine} option.
   */
  default int maxRecordBytes() {
    return JsonRecordReader.Limits.DEFAULT_MAX_RECORD_BYTES;
  }
}
