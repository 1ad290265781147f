package io.spyglass.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.result.Result;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** What a service on top of the engine uses: finishing one query, update callbacks, sampling. */
class QueryHooksTest {
  private static final EngineConfig CONFIG = EngineConfig.defaults().withWorkers(2).withTickMs(0);

  private static List<String> records(int from, int n) {
    List<String> out = new ArrayList<>();
    for (int i = from; i < from + n; i++) {
      out.add("{\"id\":" + i + "}");
    }
    return out;
  }

  @Test
  void finishEndsOneQueryWithItsFinalResultAndLeavesTheOthersRunning() throws Exception {
    ListSource source = new ListSource();
    try (Engine engine = Engine.start(source, CONFIG)) {
      QueryHandle finished = engine.submit("SELECT COUNT(*) AS n FROM STREAM(MAX, TIME)");
      QueryHandle other = engine.submit("SELECT COUNT(*) AS n FROM STREAM(MAX, TIME)");
      assertThat(finished.awaitRunning(10, TimeUnit.SECONDS)).isTrue();
      assertThat(other.awaitRunning(10, TimeUnit.SECONDS)).isTrue();
      source.add(records(0, 50));
      waitProcessed(engine, 50);
      finished.finish();
      Result r = finished.poll(10, TimeUnit.SECONDS);
      assertThat(r).isNotNull();
      assertThat(r.meta().isFinal()).isTrue();
      assertThat(r.records()).containsExactly(Map.of("n", 50L));
      assertThat(finished.awaitDone(5, TimeUnit.SECONDS)).isTrue();
      assertThat(finished.error()).isNull();
      assertThat(other.isDone()).isFalse();
      assertThat(engine.running()).extracting(q -> q.id()).containsExactly(other.id());
    }
  }

  @Test
  void onUpdateIsCalledForEachResultAndAtTheEnd() throws Exception {
    ListSource source = new ListSource();
    try (Engine engine = Engine.start(source, CONFIG)) {
      QueryHandle q =
          engine.submit(
              "SELECT id FROM STREAM(MAX, TIME) WINDOWING EVERY(1, RECORD, FIRST, 1, RECORD)"
                  + " LIMIT 1");
      AtomicInteger calls = new AtomicInteger();
      q.onUpdate(calls::incrementAndGet);
      assertThat(q.awaitRunning(10, TimeUnit.SECONDS)).isTrue();
      source.add(records(0, 3));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (calls.get() < 3 && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      assertThat(calls.get()).isGreaterThanOrEqualTo(3);
      q.finish();
      assertThat(q.awaitDone(10, TimeUnit.SECONDS)).isTrue();
      int results = 0;
      while (q.poll(0, TimeUnit.MILLISECONDS) != null) {
        results++;
      }
      // one call per result, and one for the end
      assertThat(calls.get()).isEqualTo(results + 1);
    }
  }

  @Test
  void samplerSeesOneRecordInN() throws Exception {
    ListSource source = new ListSource();
    List<String> seen = new CopyOnWriteArrayList<>();
    try (Engine engine = Engine.startPaused(source, CONFIG)) {
      engine.sampleRecords(
          10, (data, off, len) -> seen.add(new String(data, off, len, StandardCharsets.UTF_8)));
      source.add(records(0, 95));
      source.end();
      engine.resume();
      assertThat(engine.awaitStopped(10, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(seen)
        .containsExactly(
            "{\"id\":0}",
            "{\"id\":10}",
            "{\"id\":20}",
            "{\"id\":30}",
            "{\"id\":40}",
            "{\"id\":50}",
            "{\"id\":60}",
            "{\"id\":70}",
            "{\"id\":80}",
            "{\"id\":90}");
  }

  private static void waitProcessed(Engine engine, long n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (engine.metrics().recordsProcessed() < n && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
  }
}
