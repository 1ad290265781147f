package io.spyglass.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spyglass.core.result.Result;
import io.spyglass.core.syntax.BqlException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class EngineTest {
  private static final EngineConfig CONFIG = EngineConfig.defaults().withWorkers(2).withTickMs(20);

  private static List<String> events(int n) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(
          "{\"id\":\"r"
              + i
              + "\",\"country\":\""
              + (i % 3 == 0 ? "us" : "fr")
              + "\",\"duration\":"
              + i
              + ",\"status\":"
              + (i % 2 == 0 ? 200 : 500)
              + "}");
    }
    return out;
  }

  private static List<Result> drain(QueryHandle h) throws InterruptedException {
    List<Result> out = new ArrayList<>();
    while (true) {
      Result r = h.poll(10, TimeUnit.SECONDS);
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

  /**
   * A query without windows has its combiner made at its first partial, or at its end when it had
   * none: what it answers is the same as with one made at its start.
   */
  @Test
  void aQueryWithoutWindowsAnswersTheSameWhetherItsFirstRecordComesLateOrNever() throws Exception {
    ListSource source = new ListSource();
    Engine engine = Engine.startPaused(source, CONFIG);
    try (engine) {
      QueryHandle late =
          engine.submit("SELECT COUNT(*) AS n FROM STREAM(FOREVER) WHERE country = 'us'");
      QueryHandle never =
          engine.submit("SELECT COUNT(*) AS n FROM STREAM(FOREVER) WHERE country = 'none such'");
      QueryHandle timed =
          engine.submit("SELECT COUNT(*) AS n FROM STREAM(300, TIME) WHERE country = 'none such'");
      QueryHandle windowed =
          engine.submit(
              "SELECT COUNT(*) AS n FROM STREAM(FOREVER) WHERE country = 'none such'"
                  + " WINDOWING TUMBLING(100, TIME)");
      for (QueryHandle h : List.of(late, never, timed, windowed)) {
        h.awaitRunning(10, TimeUnit.SECONDS);
      }
      engine.resume();
      // the timed one ends at its duration with nothing seen, the windowed one says so meanwhile
      List<Result> timedResults = drain(timed);
      assertThat(timedResults).hasSize(1);
      assertThat(timedResults.get(0).records()).containsExactly(Map.of("n", 0L));
      Result window = windowed.poll(10, TimeUnit.SECONDS);
      assertThat(window).isNotNull();
      assertThat(window.meta().isFinal()).isFalse();
      assertThat(window.records()).containsExactly(Map.of("n", 0L));
      Thread.sleep(200); // ticks go by with nothing for the others
      source.add(events(30));
      source.end();
      List<Result> lateResults = drain(late);
      assertThat(lateResults.get(lateResults.size() - 1).records())
          .containsExactly(Map.of("n", 10L));
      List<Result> neverResults = drain(never);
      assertThat(neverResults).hasSize(1);
      assertThat(neverResults.get(0).meta().isFinal()).isTrue();
      assertThat(neverResults.get(0).records()).containsExactly(Map.of("n", 0L));
      windowed.kill();
    }
  }

  @Test
  void theReaderSizesBatchesToAboutBatchBytes() throws Exception {
    String pad = "x".repeat(4_000);
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < 400; i++) {
      lines.add("{\"id\":\"r" + i + "\",\"pad\":\"" + pad + "\"}");
    }
    ListSource source = new ListSource();
    source.add(lines);
    source.end();
    Engine engine = Engine.startPaused(source, CONFIG.withBatchBytes(16 * 1024));
    try (engine) {
      QueryHandle count = engine.submit("SELECT COUNT(*) AS n FROM STREAM(60000, TIME)");
      count.awaitRunning(10, TimeUnit.SECONDS);
      engine.resume();
      List<Result> results = drain(count);
      assertThat(results.get(results.size() - 1).records().get(0)).containsEntry("n", 400L);
    }
    List<Integer> sizes = source.batchSizes;
    // a first guess of 1 KiB a record, then a moving average of the ~4 KiB records read
    assertThat(sizes.get(0)).isEqualTo(16);
    assertThat(sizes.subList(sizes.size() / 2, sizes.size() - 1)).allMatch(n -> n == 4);
  }

  @Test
  void aQueryRunsUnderTheLimitsItWasSubmittedWithOthersUnderTheEngines() throws Exception {
    ListSource source = new ListSource();
    Engine engine = Engine.startPaused(source, CONFIG);
    try (engine) {
      String byId = "SELECT id, COUNT(*) AS n FROM STREAM(FOREVER) GROUP BY id";
      QueryHandle few =
          engine.submit(
              "few",
              byId,
              new Engine.SubmitOptions(-1, null, false, CONFIG.limits().withMaxExactGroups(5)));
      QueryHandle all = engine.submit("all", byId);
      few.awaitRunning(10, TimeUnit.SECONDS);
      all.awaitRunning(10, TimeUnit.SECONDS);
      source.add(events(20));
      source.end();
      engine.resume();
      Result last = drain(few).get(0);
      assertThat(last.records()).hasSizeLessThanOrEqualTo(5);
      assertThat(last.meta().errors().get(0).message()).contains("more than 5 groups");
      Result every = drain(all).get(0);
      assertThat(every.records()).hasSize(20);
      assertThat(every.meta().errors()).isEmpty();
    }
  }

  @Test
  void boundedSourceFinishesEveryQueryWithItsFinalResult() throws Exception {
    ListSource source = new ListSource();
    try (Engine engine = Engine.start(source, CONFIG)) {
      QueryHandle count =
          engine.submit("SELECT COUNT(*) AS n FROM STREAM(60000, TIME) WHERE status = 500");
      QueryHandle group =
          engine.submit(
              "SELECT country, COUNT(*) AS n, SUM(duration) AS s FROM STREAM(60000, TIME)"
                  + " GROUP BY country");
      QueryHandle distinct =
          engine.submit("SELECT COUNT(DISTINCT country) AS c FROM STREAM(60000, TIME)");
      QueryHandle quantile =
          engine.submit("SELECT QUANTILE(duration, MANUAL, 0.5) FROM STREAM(60000, TIME)");
      QueryHandle top = engine.submit("SELECT TOP(1, country) AS n FROM STREAM(60000, TIME)");
      QueryHandle raw = engine.submit("SELECT id FROM STREAM(60000, TIME) WHERE duration < 3");
      awaitRunning(count, group, distinct, quantile, top, raw);
      source.add(events(1000));
      source.end();
      assertThat(engine.awaitStopped(20, TimeUnit.SECONDS)).isTrue();

      assertThat(drain(count).get(0).records()).containsExactly(Map.of("n", 500L));
      assertThat(drain(group).get(0).records())
          .containsExactlyInAnyOrder(
              Map.of("country", "us", "n", 334L, "s", 166_833.0),
              Map.of("country", "fr", "n", 666L, "s", 332_667.0));
      assertThat(drain(distinct).get(0).records()).containsExactly(Map.of("c", 2L));
      assertThat(drain(quantile).get(0).records().get(0).get("Value")).isEqualTo(500.0);
      assertThat(drain(top).get(0).records()).containsExactly(Map.of("country", "fr", "n", 666L));
      assertThat(drain(raw).get(0).records())
          .containsExactlyInAnyOrder(Map.of("id", "r0"), Map.of("id", "r1"), Map.of("id", "r2"));
      assertThat(engine.metrics().recordsProcessed()).isEqualTo(1000);
      // each keeps its counters after it ended: a service shows them for a query it never polled
      assertThat(count.finalStats())
          .hasValueSatisfying(
              s -> {
                assertThat(s.seen()).isEqualTo(1000);
                assertThat(s.matched()).isEqualTo(500);
              });
      assertThat(raw.finalStats().orElseThrow().matched()).isEqualTo(3);
    }
  }

  /** Waits until every worker runs the queries, so that the records added next reach them. */
  private static void awaitRunning(QueryHandle... handles) throws InterruptedException {
    for (QueryHandle h : handles) {
      assertThat(h.awaitRunning(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void rawQueryFinishesAsSoonAsItHasItsRecords() throws Exception {
    ListSource source = new ListSource();
    try (Engine engine = Engine.start(source, CONFIG.withTickMs(0))) {
      QueryHandle q = engine.submit("SELECT * FROM STREAM(MAX, TIME) WHERE country = 'us' LIMIT 2");
      awaitRunning(q);
      source.add(events(10));
      Result r = q.poll(10, TimeUnit.SECONDS);
      assertThat(r).isNotNull();
      assertThat(r.meta().isFinal()).isTrue();
      assertThat(r.records()).hasSize(2);
      assertThat(r.records().get(0)).containsKey("_read_ms");
      assertThat(q.awaitDone(5, TimeUnit.SECONDS)).isTrue();
      // no tick ever published counters: the ones that came with its partials are kept
      assertThat(q.finalStats().orElseThrow().matched()).isGreaterThanOrEqualTo(2);
    }
  }

  @Test
  void badQueriesAreRejectedAndMalformedRecordsCounted() throws Exception {
    ListSource source = new ListSource();
    try (Engine engine = Engine.start(source, CONFIG)) {
      assertThatThrownBy(() -> engine.submit("SELECT FROM")).isInstanceOf(BqlException.class);
      QueryHandle q = engine.submit("SELECT COUNT(*) AS n FROM STREAM(60000, TIME)");
      awaitRunning(q);
      source.add(List.of("{\"a\":1}", "{not json", "[1]", "{\"a\":2}", "{\"a\":\"\\ud800\"}"));
      source.end();
      assertThat(engine.awaitStopped(10, TimeUnit.SECONDS)).isTrue();
      assertThat(drain(q).get(0).records()).containsExactly(Map.of("n", 3L));
      assertThat(engine.metrics().malformed()).isEqualTo(2);
    }
  }

  @Test
  void tooManyQueriesAreRefused() {
    try (Engine engine = Engine.start(new ListSource(), CONFIG.withMaxQueries(2))) {
      engine.submit("SELECT * FROM STREAM()");
      engine.submit("SELECT * FROM STREAM()");
      assertThatThrownBy(() -> engine.submit("SELECT * FROM STREAM()"))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("Too many queries");
    }
  }

  @Test
  void slowSubscriberIsCutOffWithoutStallingOthers() throws Exception {
    ListSource source = new ListSource();
    try (Engine engine = Engine.start(source, CONFIG.withResultQueue(4).withTickMs(0))) {
      QueryHandle slow =
          engine.submit(
              "SELECT * FROM STREAM(MAX, TIME) WHERE country = 'us'"
                  + " WINDOWING EVERY(1, RECORD, FIRST, 1, RECORD)");
      QueryHandle other = engine.submit("SELECT COUNT(*) AS n FROM STREAM(MAX, TIME)");
      awaitRunning(slow, other);
      source.add(events(300));
      assertThat(slow.awaitDone(10, TimeUnit.SECONDS)).isTrue();
      assertThat(slow.error()).contains("fell behind");
      source.add(events(300));
      source.end();
      assertThat(engine.awaitStopped(10, TimeUnit.SECONDS)).isTrue();
      assertThat(drain(other).get(0).records()).containsExactly(Map.of("n", 600L));
    }
  }

  @Test
  void killFreesTheQueryEverywhere() throws Exception {
    ListSource source = new ListSource();
    try (Engine engine = Engine.start(source, CONFIG)) {
      QueryHandle q = engine.submit("SELECT COUNT(*) FROM STREAM(MAX, TIME)");
      awaitRunning(q);
      source.add(events(100));
      q.kill();
      assertThat(q.awaitDone(5, TimeUnit.SECONDS)).isTrue();
      assertThat(engine.running()).isEmpty();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      while (!engine.metrics().queries().isEmpty() && System.nanoTime() < deadline) {
        engine.tick();
        Thread.sleep(5);
      }
      assertThat(engine.metrics().queries()).isEmpty();
    }
  }
}
