package io.spyglass.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.result.Result;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A pattern that backtracking regex engines take exponential time on, next to an innocent query on
 * the same engine: RLIKE runs in linear time, so the innocent query's windows keep coming and the
 * regex query ends with its result.
 */
class CatastrophicRegexTest {
  private static final EngineConfig CONFIG = EngineConfig.defaults().withWorkers(2).withTickMs(20);

  @Test
  void aCatastrophicRegexDoesNotStallTheOtherQueries() throws Exception {
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      // 39 a's then b: java.util.regex needs about 39^12 steps to fail (.*a){12} on it
      lines.add("{\"id\":" + i + ",\"s\":\"" + "a".repeat(39) + "b\"}");
    }
    ListSource source = new ListSource();
    try (Engine engine = Engine.start(source, CONFIG)) {
      QueryHandle regex =
          engine.submit("SELECT id FROM STREAM(60000, TIME) WHERE s RLIKE '(.*a){12}'");
      QueryHandle innocent =
          engine.submit(
              "SELECT COUNT(*) AS n FROM STREAM(60000, TIME) WINDOWING TUMBLING(100, TIME)");
      regex.awaitRunning(10, TimeUnit.SECONDS);
      innocent.awaitRunning(10, TimeUnit.SECONDS);
      source.add(lines);
      long counted = 0;
      while (counted < lines.size()) {
        Result window = innocent.poll(10, TimeUnit.SECONDS);
        assertThat(window).as("the innocent query's windows keep coming").isNotNull();
        if (!window.records().isEmpty()) {
          counted += ((Number) window.records().get(0).get("n")).longValue();
        }
      }
      assertThat(counted).isEqualTo(lines.size());
      source.end();
      Result last = null;
      while (last == null || !last.meta().isFinal()) {
        last = regex.poll(10, TimeUnit.SECONDS);
        assertThat(last).as("the regex query ends with its result").isNotNull();
      }
      assertThat(last.records()).isEmpty();
    }
  }
}
