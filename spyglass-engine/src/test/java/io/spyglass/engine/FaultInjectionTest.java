package io.spyglass.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.result.Meta;
import io.spyglass.core.result.Result;
import io.spyglass.engine.source.RawBatch;
import io.spyglass.engine.source.Source;
import java.io.IOException;
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
      Result r = h.poll(20, TimeUnit.SECONDS);
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
      assertThat(h.awaitRunning(10, TimeUnit.SECONDS)).isTrue();
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
              byte[] b = line.getBytes(java.nio.charset.StandardCharsets.UTF_8);
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
}
