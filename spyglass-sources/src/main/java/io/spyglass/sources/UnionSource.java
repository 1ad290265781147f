package io.spyglass.sources;

import java.io.IOException;

/**
 * Two sources read as one stream: the records of each, interleaved as they come. Its {@link
 * #position()} is the second's (the replayable one, e.g. the ingest log, goes second). It ends when
 * both have.
 *
 * <p>Polled from one thread.
 */
public final class UnionSource implements Source {
  private final Source first;
  private final Source second;
  private boolean firstEnded;
  private boolean secondEnded;
  private boolean secondFirst;

  public UnionSource(Source first, Source second) {
    this.first = first;
    this.second = second;
  }

  @Override
  public boolean poll(RawBatch batch, int maxRecords, long maxWaitMs)
      throws IOException, InterruptedException {
    // each poll starts with the other source, so that a busy one never starves the other
    secondFirst = !secondFirst;
    Source a = secondFirst ? second : first;
    Source b = secondFirst ? first : second;
    int before = batch.size();
    pollOne(a, batch, maxRecords, 0);
    int left = maxRecords - (batch.size() - before);
    if (left > 0) {
      pollOne(b, batch, left, batch.size() > before ? 0 : maxWaitMs / 2);
    }
    left = maxRecords - (batch.size() - before);
    if (batch.size() == before && left > 0) {
      pollOne(a, batch, left, maxWaitMs / 2);
    }
    return !(firstEnded && secondEnded);
  }

  private void pollOne(Source s, RawBatch batch, int max, long waitMs)
      throws IOException, InterruptedException {
    if (s == first ? firstEnded : secondEnded) {
      return;
    }
    boolean more = s.poll(batch, max, waitMs);
    if (!more) {
      if (s == first) {
        firstEnded = true;
      } else {
        secondEnded = true;
      }
    }
  }

  @Override
  public long position() {
    return second.position();
  }

  @Override
  public String describe() {
    return first.describe() + " and " + second.describe();
  }

  @Override
  public BadInput.Snapshot badInput() {
    return first.badInput().plus(second.badInput());
  }

  @Override
  public String problem() {
    return first.problem() != null ? first.problem() : second.problem();
  }

  @Override
  public int maxRecordBytes() {
    return Math.max(first.maxRecordBytes(), second.maxRecordBytes());
  }

  @Override
  public void close() throws IOException {
    try {
      first.close();
    } finally {
      second.close();
    }
  }
}
