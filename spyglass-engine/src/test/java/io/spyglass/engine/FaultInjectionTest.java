package io.spyglass.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.result.Meta;
import io.spyglass.core.result.Result;
import io.spyglass.sources.RawBatch;
import io.spyglass.sources.Source;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Faults injected into a running engine: a query that throws on the workers or in the combiner, an
 * engine thread that throws, a source that throws, stalls or returns garbage, a slow combiner, a
 * query killed mid-window. The other queries lose no result and nothing hangs.
 *
 * <p>Failures are real, not hooks in the engine: a clock (part of the engine's public config) that
 * throws when read from one place, such as {@code NOW()} evaluated on a worker.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FaultInjectionTest {
  private static final EngineConfig CONFIG = EngineConfig.defaults().withWorkers(2).withTickMs(20);

  /** A wall clock that throws when read from inside the named class, on the named thread. */
  static final class FailingClock implements LongSupplier {
    private final String threadPrefix;
    private final String insideClass;
    volatile boolean armed = true;

    FailingClock(String threadPrefix, String insideClass) {
      this.threadPrefix = threadPrefix;
      this.insideClass = insideClass;
    }

    @Override
    public long getAsLong() {
      if (armed
          && Thread.currentThread().getName().startsWith(threadPrefix)
          && StackWalker.getInstance()
              .walk(frames -> frames.anyMatch(f -> f.getClassName().equals(insideClass)))) {
        throw new IllegalStateException("injected clock failure");
      }
      return System.currentTimeMillis();
    }
  }

  static List<String> events(int from, int n) {
    List<String> out = new ArrayList<>();
    for (int i = from; i < from + n; i++) {
      out.add("{\"id\":\"r" + i + "\",\"i\":" + i + ",\"g\":\"" + (i % 3) + "\"}");
    }
    return out;
  }

  /** Every result of a query until its final one (or its end). */
  static List<Result> drain(QueryHandle h) throws InterruptedException {
    List<Result> out = new ArrayList<>();
    while (true) {
      Result r = h.poll(60, TimeUnit.SECONDS);
      if (r == null) {
        assertThat(h.isDone()).as("query %s ended", h.id()).isTrue();
        return out;
      }
      out.add(r);
      if (r.meta().isFinal()) {
        return out;
      }
    }
  }

  static Result last(List<Result> results) {
    assertThat(results).isNotEmpty();
    Result r = results.get(results.size() - 1);
    assertThat(r.meta().isFinal()).isTrue();
    return r;
  }

  static void awaitRunning(QueryHandle... handles) throws InterruptedException {
    for (QueryHandle h : handles) {
      assertThat(h.awaitRunning(30, TimeUnit.SECONDS)).isTrue();
    }
  }

  static List<String> errors(Result r) {
    return r.meta().errors().stream().map(Meta.QueryError::message).toList();
  }

  @Test
  void aQueryThatThrowsOnTheWorkersEndsAloneWithItsError() throws Exception {
    FailingClock clock = new FailingClock("spyglass-worker", "io.spyglass.core.query.QueryFilter");
    ListSource source = new ListSource();
    try (Engine engine = Engine.start(source, CONFIG.withClock(clock))) {
      QueryHandle bad =
          engine.submit("SELECT COUNT(*) AS n FROM STREAM(MAX, TIME) WHERE NOW() > 0");
      QueryHandle good = engine.submit("SELECT COUNT(*) AS n FROM STREAM(MAX, TIME)");
      awaitRunning(bad, good);
      source.add(events(0, 500));
      Result failed = last(drain(bad));
      assertThat(failed.records()).isEmpty();
      assertThat(errors(failed)).singleElement().asString().contains("injected clock failure");
      // the handle ends just after its final result is handed over
      assertThat(bad.awaitDone(30, TimeUnit.SECONDS)).isTrue();
      assertThat(bad.error()).contains("injected clock failure");
      source.add(events(500, 500));
      source.end();
      assertThat(engine.awaitStopped(20, TimeUnit.SECONDS)).isTrue();
      Result ok = last(drain(good));
      assertThat(ok.records()).containsExactly(Map.of("n", 1000L));
      assertThat(ok.meta().errors()).isEmpty();
      assertThat(engine.failure()).isNull();
    }
  }

  @Test
  void aQueryThatThrowsInTheCombinerEndsAloneWithItsError() throws Exception {
    FailingClock clock =
        new FailingClock("spyglass-combiner", "io.spyglass.core.query.PostAggregator");
    ListSource source = new ListSource();
    try (Engine engine = Engine.start(source, CONFIG.withClock(clock))) {
      QueryHandle bad =
          engine.submit(
              "SELECT COUNT(*) AS n, NOW() AS t FROM STREAM(MAX, TIME)"
                  + " WINDOWING TUMBLING(100, TIME)");
      QueryHandle good =
          engine.submit(
              "SELECT COUNT(*) AS n FROM STREAM(MAX, TIME) WINDOWING TUMBLING(100, TIME)");
      awaitRunning(bad, good);
      source.add(events(0, 300));
      Result failed = last(drain(bad));
      assertThat(errors(failed)).singleElement().asString().contains("injected clock failure");
      source.add(events(300, 300));
      source.end();
      assertThat(engine.awaitStopped(20, TimeUnit.SECONDS)).isTrue();
      List<Result> windows = drain(good);
      last(windows);
      assertThat(windows.stream().mapToLong(r -> (Long) r.records().get(0).get("n")).sum())
          .isEqualTo(600);
      assertThat(engine.failure()).isNull();
    }
  }

  @Test
  void aFailureOfTheEngineEndsEveryQueryWithTheErrorAndStopsIt() throws Exception {
    // the combiner reads the clock for every message, outside any query: its thread dies
    FailingClock clock = new FailingClock("spyglass-combiner", "io.spyglass.engine.Combiner");
    clock.armed = false;
    ListSource source = new ListSource();
    try (Engine engine = Engine.start(source, CONFIG.withClock(clock))) {
      QueryHandle a = engine.submit("SELECT COUNT(*) AS n FROM STREAM(MAX, TIME)");
      QueryHandle b = engine.submit("SELECT * FROM STREAM(MAX, TIME) LIMIT 1000");
      awaitRunning(a, b);
      clock.armed = true;
      source.add(events(0, 100));
      assertThat(engine.awaitStopped(20, TimeUnit.SECONDS)).isTrue();
      assertThat(engine.failure()).hasMessageContaining("injected clock failure");
      assertThat(engine.failureMessage()).contains("spyglass-combiner");
      for (QueryHandle h : List.of(a, b)) {
        Result r = last(drain(h));
        assertThat(errors(r)).singleElement().asString().contains("The engine failed");
        assertThat(h.isDone()).isTrue();
      }
    }
  }

  @Test
  void aSourceThatThrowsEndsEveryQueryWithWhatItReadAndTheError() throws Exception {
    Source failing =
        new Source() {
          int polls;

          @Override
          public boolean poll(RawBatch batch, int maxRecords, long maxWaitMs) throws IOException {
            if (polls++ == 3) {
              throw new IOException("Corrupt GZIP trailer");
            }
            for (String line : events(polls * 10, 10)) {
              byte[] b = line.getBytes(StandardCharsets.UTF_8);
              batch.add(b, 0, b.length);
            }
            return true;
          }

          @Override
          public String describe() {
            return "failing";
          }

          @Override
          public void close() {}
        };
    Engine engine = Engine.startPaused(failing, CONFIG);
    try (engine) {
      QueryHandle count = engine.submit("SELECT COUNT(*) AS n FROM STREAM(MAX, TIME)");
      awaitRunning(count);
      engine.resume();
      assertThat(engine.awaitStopped(20, TimeUnit.SECONDS)).isTrue();
      Result r = last(drain(count));
      assertThat(r.records()).containsExactly(Map.of("n", 30L));
      assertThat(errors(r)).singleElement().asString().contains("Corrupt GZIP trailer");
      assertThat(engine.sourceError()).contains("Corrupt GZIP trailer");
      assertThat(engine.failure()).isNull();
    }
  }

  /** A source that gives its records, then blocks in poll until released (or interrupted). */
  static final class StallingSource implements Source {
    private final List<String> records;
    private final java.util.concurrent.CountDownLatch release =
        new java.util.concurrent.CountDownLatch(1);
    private boolean given;
    private final java.util.concurrent.CountDownLatch stalled =
        new java.util.concurrent.CountDownLatch(1);

    StallingSource(List<String> records) {
      this.records = records;
    }

    @Override
    public boolean poll(RawBatch batch, int maxRecords, long maxWaitMs)
        throws InterruptedException {
      if (!given) {
        given = true;
        for (String line : records) {
          byte[] b = line.getBytes(StandardCharsets.UTF_8);
          batch.add(b, 0, b.length);
        }
        return true;
      }
      stalled.countDown();
      release.await(); // far longer than maxWaitMs, like a read that blocks
      return false;
    }

    @Override
    public String describe() {
      return "stalling";
    }

    @Override
    public void close() {}
  }

  @Test
  void aStalledSourceHoldsUpNothingElse() throws Exception {
    StallingSource source = new StallingSource(events(0, 100));
    Engine engine = Engine.startPaused(source, CONFIG);
    QueryHandle windows;
    QueryHandle count;
    try (engine) {
      windows =
          engine.submit(
              "SELECT COUNT(*) AS n FROM STREAM(MAX, TIME) WINDOWING TUMBLING(100, TIME)");
      count = engine.submit("SELECT COUNT(*) AS n FROM STREAM(MAX, TIME)");
      awaitRunning(windows, count);
      engine.resume();
      assertThat(source.stalled.await(10, TimeUnit.SECONDS)).isTrue();
      // time windows go on closing while the source blocks
      long seen = 0;
      for (int i = 0; i < 5; i++) {
        Result r = windows.poll(10, TimeUnit.SECONDS);
        assertThat(r).isNotNull();
        seen += (Long) r.records().get(0).get("n");
      }
      QueryHandle late = engine.submit("SELECT COUNT(*) AS n FROM STREAM(2s, TIME)");
      assertThat(late.awaitRunning(10, TimeUnit.SECONDS)).isTrue();
      assertThat(last(drain(late)).records()).containsExactly(Map.of("n", 0L));
      engine.finishAll();
      List<Result> rest = drain(windows);
      for (Result r : rest) {
        seen += (Long) r.records().get(0).get("n");
      }
      assertThat(seen).isEqualTo(100);
      assertThat(last(drain(count)).records()).containsExactly(Map.of("n", 100L));
    }
    // closing does not wait for the blocked poll
    assertThat(engine.isStopped()).isTrue();
    source.release.countDown();
  }

  @Test
  void garbageFromTheSourceIsCountedAndTheRecordsAmongItAllArrive() throws Exception {
    java.util.Random random = new java.util.Random(42);
    List<String> lines = new ArrayList<>();
    int good = 0;
    for (int i = 0; i < 2000; i++) {
      switch (random.nextInt(6)) {
        case 0 -> {
          byte[] bytes = new byte[1 + random.nextInt(300)];
          random.nextBytes(bytes);
          lines.add(new String(bytes, StandardCharsets.ISO_8859_1));
        }
        case 1 -> lines.add("{\"i\": " + i + ", \"s\": \"" + "x".repeat(random.nextInt(50)));
        case 2 -> lines.add("[" + i + "]");
        default -> {
          lines.add("{\"i\":" + i + ",\"g\":\"" + (i % 3) + "\"}");
          good++;
        }
      }
    }
    try (Engine engine = Engine.startPaused(ListSource.of(lines), CONFIG)) {
      QueryHandle count = engine.submit("SELECT COUNT(*) AS n FROM STREAM(MAX, TIME)");
      QueryHandle groups =
          engine.submit("SELECT g, COUNT(*) AS n FROM STREAM(MAX, TIME) GROUP BY g");
      awaitRunning(count, groups);
      engine.resume();
      assertThat(engine.awaitStopped(20, TimeUnit.SECONDS)).isTrue();
      Result r = last(drain(count));
      assertThat(r.records()).containsExactly(Map.of("n", (long) good));
      long skipped = r.meta().badInput().values().stream().mapToLong(Long::longValue).sum();
      assertThat(skipped).isEqualTo(2000 - good);
      assertThat(last(drain(groups)).records().stream().mapToLong(row -> (Long) row.get("n")).sum())
          .isEqualTo(good);
      assertThat(engine.metrics().malformed()).isEqualTo(2000 - good);
      assertThat(engine.failure()).isNull();
    }
  }

  @Test
  void aSlowCombinerHoldsUpTheWorkersAndLosesNothing() throws Exception {
    // every message takes the combiner a millisecond: its bounded inbox (256 messages) fills with
    // the partials of 125 batches, and workers wait
    LongSupplier slowOnCombiner =
        () -> {
          if (Thread.currentThread().getName().equals("spyglass-combiner")) {
            try {
              Thread.sleep(1);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
          return System.currentTimeMillis();
        };
    EngineConfig config = CONFIG.withClock(slowOnCombiner).withBatchRecords(16);
    try (Engine engine = Engine.startPaused(ListSource.of(events(0, 2000)), config)) {
      List<QueryHandle> raw = new ArrayList<>();
      for (int g = 0; g < 3; g++) {
        raw.add(engine.submit("SELECT i FROM STREAM(MAX, TIME) WHERE g = '" + g + "' LIMIT 10000"));
      }
      QueryHandle count = engine.submit("SELECT COUNT(*) AS n FROM STREAM(MAX, TIME)");
      QueryHandle windows =
          engine.submit("SELECT i FROM STREAM(MAX, TIME) WINDOWING TUMBLING(250, RECORD)");
      awaitRunning(count, windows);
      awaitRunning(raw.toArray(new QueryHandle[0]));
      engine.resume();
      assertThat(engine.awaitStopped(60, TimeUnit.SECONDS)).isTrue();
      assertThat(last(drain(count)).records()).containsExactly(Map.of("n", 2000L));
      for (QueryHandle h : raw) {
        assertThat(last(drain(h)).records()).hasSizeBetween(666, 667);
      }
      List<Result> w = drain(windows);
      assertThat(w.stream().mapToInt(r -> r.records().size()).sum()).isEqualTo(2000);
      assertThat(w.subList(0, 8)).allMatch(r -> r.records().size() == 250);
    }
  }

  @Test
  void aQueryKilledMidWindowTakesNothingFromTheOthers() throws Exception {
    ListSource source = new ListSource();
    try (Engine engine = Engine.start(source, CONFIG)) {
      QueryHandle killed =
          engine.submit("SELECT i FROM STREAM(MAX, TIME) WINDOWING TUMBLING(300, RECORD)");
      QueryHandle count = engine.submit("SELECT COUNT(*) AS n FROM STREAM(MAX, TIME)");
      QueryHandle windows =
          engine.submit("SELECT i FROM STREAM(MAX, TIME) WINDOWING TUMBLING(300, RECORD)");
      awaitRunning(killed, count, windows);
      source.add(events(0, 450));
      Result first = killed.poll(10, TimeUnit.SECONDS);
      assertThat(first).isNotNull();
      killed.kill(); // with half of its second window
      assertThat(killed.awaitDone(10, TimeUnit.SECONDS)).isTrue();
      assertThat(killed.error()).isNull();
      source.add(events(450, 450));
      source.end();
      assertThat(engine.awaitStopped(20, TimeUnit.SECONDS)).isTrue();
      assertThat(killed.poll(0, TimeUnit.SECONDS)).isNull();
      assertThat(last(drain(count)).records()).containsExactly(Map.of("n", 900L));
      List<Result> w = drain(windows);
      assertThat(w.stream().mapToInt(r -> r.records().size()).sum()).isEqualTo(900);
      assertThat(w).hasSize(4); // three full windows and the empty final one
    }
  }
}
