package io.spyglass.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.result.Result;
import io.spyglass.sources.GeneratorSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * 10,000 simultaneous needle queries over the generator, each finding exactly its own 10 records
 * among the background stream, as in Bullet's query-scaling test (at a small rate here: the rate
 * the engine sustains is measured by the benchmark, not by a test).
 */
class NeedleQueriesTest {
  private static final int QUERIES = 10_000;
  private static final int NEEDLES_PER_QUERY = 10;

  @Test
  void everyNeedleQueryFindsExactlyItsRecords() throws Exception {
    GeneratorSource source =
        new GeneratorSource(GeneratorSource.Options.DEFAULTS.withSeed(7).withRate(2_000));
    EngineConfig config = EngineConfig.defaults().withWorkers(2).withResultQueue(16);
    try (Engine engine = Engine.startPaused(source, config)) {
      List<QueryHandle> handles = new ArrayList<>();
      for (int i = 0; i < QUERIES; i++) {
        handles.add(
            engine.submit(
                "SELECT id, needle FROM STREAM(120000, TIME) WHERE id = 'needle-"
                    + i
                    + "' LIMIT "
                    + NEEDLES_PER_QUERY));
      }
      for (QueryHandle h : handles) {
        assertThat(h.awaitRunning(30, TimeUnit.SECONDS)).isTrue();
      }
      engine.resume();
      for (int n = 0; n < NEEDLES_PER_QUERY; n++) {
        for (int i = 0; i < QUERIES; i++) {
          source.insertNeedle(Map.of("id", "needle-" + i, "needle", (long) n));
        }
      }
      int finished = 0;
      for (int i = 0; i < QUERIES; i++) {
        QueryHandle h = handles.get(i);
        Result r = h.poll(60, TimeUnit.SECONDS);
        assertThat(r).as("result of query %d", i).isNotNull();
        assertThat(r.meta().isFinal()).isTrue();
        Set<Object> needles = new HashSet<>();
        for (Map<String, Object> record : r.records()) {
          assertThat(record.get("id")).isEqualTo("needle-" + i);
          needles.add(record.get("needle"));
        }
        assertThat(needles).hasSize(NEEDLES_PER_QUERY);
        finished++;
      }
      assertThat(finished).isEqualTo(QUERIES);
      assertThat(engine.metrics().malformed()).isZero();
    }
  }
}
