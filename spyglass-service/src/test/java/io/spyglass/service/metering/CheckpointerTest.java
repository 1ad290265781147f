package io.spyglass.service.metering;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spyglass.core.plan.QueryLimits;
import io.spyglass.engine.Engine;
import io.spyglass.engine.EngineConfig;
import io.spyglass.engine.ingest.Ingestor;
import io.spyglass.service.UsageLimits;
import io.spyglass.service.auth.User;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checkpoints of standing queries on a real engine, ingest log and SQLite database: the log
 * position written never passes what a running standing query has saved.
 */
class CheckpointerTest {
  @TempDir Path data;

  static final String COUNT =
      "SELECT COUNT(*) AS docs FROM STREAM(FOREVER)"
          + " WINDOWING TUMBLING(1h, EVENT_TIME(time), LATENESS 10m)";
  static final User OPS = new User("ops", true);

  static List<Ingestor.Doc> docs(int from, int to) {
    List<Ingestor.Doc> out = new ArrayList<>();
    for (int i = from; i < to; i++) {
      byte[] b =
          ("{\"id\":\"d" + i + "\",\"time\":1767225600000,\"quantity\":1}")
              .getBytes(StandardCharsets.UTF_8);
      out.add(new Ingestor.Doc("d" + i, b, 0, b.length));
    }
    return out;
  }

  static List<String> names(StandingStore store) {
    return store.list().stream().map(StandingStore.Stored::name).toList();
  }

  @Test
  void aCheckpointThatCannotSaveARunningQueryIsNotWritten() throws Exception {
    Metering m =
        Metering.open(
            data, new Metering.Settings("id", Ingestor.Options.DEFAULTS, 3_600_000, null));
    Engine engine =
        Engine.startPaused(m.source(), EngineConfig.defaults().withWorkers(1).withTickMs(20));
    try {
      m.start(engine, QueryLimits.DEFAULTS, UsageLimits.DEFAULTS.standing());
      engine.resume();
      StandingQueries s = m.standing();
      s.create("a", COUNT, OPS);
      s.create("b", COUNT, OPS);
      long saved = m.store().logPosition().orElseThrow();
      m.ingestor().submit(docs(0, 20)).get(10, TimeUnit.SECONDS);
      long end = m.ingestor().log().committedEnd();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (m.ingestor().log().readPosition() < end && System.nanoTime() < deadline) {
        Thread.sleep(10); // the engine reads what was ingested
      }
      assertThat(m.ingestor().log().readPosition()).isEqualTo(end);

      // query a's results before the cut do not come: no checkpoint may be written
      s.checkpointer().resultsLate = "a"::equals;
      assertThatThrownBy(() -> s.create("c", COUNT, OPS))
          .isInstanceOf(StandingQueries.Refused.class)
          .hasMessage(
              "Standing query c could not start: the checkpoint it starts at could not be"
                  + " taken")
          .satisfies(e -> assertThat(((StandingQueries.Refused) e).status()).isEqualTo(503))
          .hasRootCauseMessage(
              "the checkpoint was not written: the results of standing query a before the cut did"
                  + " not come within 30 s, and the log position may not pass what a running"
                  + " query has saved; the next checkpoint tries again");
      assertThat(m.store().logPosition()).hasValue(saved);
      assertThat(s.list(OPS)).extracting(StandingQueries.Info::name).containsExactly("a", "b");
      assertThat(names(m.store())).containsExactly("a", "b");

      // a deletion forgets the query all the same, and writes no position either
      s.delete("b", OPS);
      assertThat(names(m.store())).containsExactly("a");
      assertThat(m.store().logPosition()).hasValue(saved);
      assertThat(s.checkpointFailures()).isEqualTo(2);

      // once every query is saved again, the position moves on
      s.checkpointer().resultsLate = null;
      s.create("c", COUNT, OPS);
      assertThat(m.store().logPosition()).hasValue(end);
      assertThat(names(m.store())).containsExactly("a", "c");
    } finally {
      if (m.standing() != null) {
        m.standing().close();
      }
      engine.close();
      m.close();
    }
  }
}
