package io.spyglass.engine;

import io.spyglass.sources.RawBatch;
import io.spyglass.sources.Source;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A source for tests: lines added by the test; bounded once {@link #end()} is called. */
final class ListSource implements Source {
  private static final String END = "\u0000end";
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private volatile boolean ended;

  /** How many records each poll that returned records put in its batch, in order. */
  final List<Integer> batchSizes = new CopyOnWriteArrayList<>();

  static ListSource of(List<String> lines) {
    ListSource s = new ListSource();
    s.add(lines);
    s.end();
    return s;
  }

  void add(List<String> more) {
    lines.addAll(more);
  }

  void add(String line) {
    lines.add(line);
  }

  void end() {
    lines.add(END);
  }

  @Override
  public boolean poll(RawBatch batch, int maxRecords, long maxWaitMs) throws InterruptedException {
    if (ended) {
      return false;
    }
    String first = lines.poll(maxWaitMs, TimeUnit.MILLISECONDS);
    String line = first;
    int n = 0;
    while (line != null) {
      if (line.equals(END)) {
        ended = true;
        break;
      }
      byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
      batch.add(bytes, 0, bytes.length);
      if (++n >= maxRecords) {
        break;
      }
      line = lines.poll();
    }
    if (n > 0) {
      batchSizes.add(n);
    }
    return !ended;
  }

  @Override
  public String describe() {
    return "list";
  }

  @Override
  public void close() {}
}
