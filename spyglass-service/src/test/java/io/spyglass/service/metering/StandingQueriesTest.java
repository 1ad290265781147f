package io.spyglass.service.metering;

import static io.spyglass.service.metering.CheckpointerTest.COUNT;
import static io.spyglass.service.metering.CheckpointerTest.OPS;
import static io.spyglass.service.metering.CheckpointerTest.docs;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.query.Query;
import io.spyglass.core.syntax.BqlException;
import io.spyglass.engine.Engine;
import io.spyglass.engine.EngineConfig;
import io.spyglass.engine.ingest.Ingestor;
import io.spyglass.service.UsageLimits;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Standing queries on a real engine, ingest log and SQLite database: what a definition is refused
 * for, the query the engine runs (checked once, with the standing queries' limit of exact groups),
 * and windows counted once across a restart on the same data folder.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StandingQueriesTest {
  @TempDir Path data;

  /** Metering on {@link #data} with an engine reading its log; closed in order. */
  private final class Running implements AutoCloseable {
    final Metering metering;
    final Engine engine;

    Running() throws Exception {
      metering =
          Metering.open(
              data, new Metering.Settings("id", Ingestor.Options.DEFAULTS, 3_600_000, null));
      engine =
          Engine.startPaused(
              metering.source(), EngineConfig.defaults().withWorkers(1).withTickMs(20));
      metering.start(engine, QueryLimits.DEFAULTS, UsageLimits.DEFAULTS.standing());
      engine.resume();
    }

    StandingQueries standing() {
      return metering.standing();
    }

    /** Ingests {@code docs} and waits until the engine has read them. */
    void ingest(List<Ingestor.Doc> docs) throws Exception {
      metering.ingestor().submit(docs).get(10, TimeUnit.SECONDS);
      long end = metering.ingestor().log().committedEnd();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (metering.ingestor().log().readPosition() < end && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertThat(metering.ingestor().log().readPosition()).isEqualTo(end);
    }

    /** The records of the query's one window, once they count {@code docs}; what they are else. */
    String window(String name, long docs) throws InterruptedException {
      String want = "\"docs\":" + docs;
      String records = null;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (System.nanoTime() < deadline) {
        StandingReport r = standing().report(name, 0, 4_000_000_000_000L, OPS);
        records = r.windows().isEmpty() ? null : r.windows().get(0).records();
        if (records != null && records.contains(want)) {
          return records;
        }
        Thread.sleep(20);
      }
      return records;
    }

    @Override
    public void close() throws IOException {
      if (metering.standing() != null) {
        metering.standing().close();
      }
      engine.close();
      metering.close();
    }
  }

  @Test
  void aDefinitionIsCheckedOnceAndRefusedSayingWhy() throws Exception {
    try (Running r = new Running()) {
      StandingQueries s = r.standing();
      assertThat(s.create("usage", COUNT, OPS).error()).isNull();
      List<Query> running = r.engine.running();
      assertThat(running).hasSize(1);
      Query q = running.get(0);
      assertThat(q.id()).isEqualTo(StandingQuery.ID_PREFIX + "usage");
      // the standing queries' own limit of exact groups, fixed as it was defined
      assertThat(q.limits().maxExactGroups())
          .isEqualTo(
              Math.min(
                  QueryLimits.DEFAULTS.maxExactGroups(),
                  UsageLimits.DEFAULTS.standing().maxGroups()));
      assertThat(q.plan().runsForever()).isTrue();

      assertThatThrownBy(() -> s.create("usage", COUNT, OPS))
          .isInstanceOf(StandingQueries.Refused.class)
          .satisfies(e -> assertThat(((StandingQueries.Refused) e).status()).isEqualTo(409));
      assertThatThrownBy(() -> s.create("no spaces", COUNT, OPS))
          .isInstanceOf(StandingQueries.Refused.class)
          .satisfies(e -> assertThat(((StandingQueries.Refused) e).status()).isEqualTo(400));
      assertThatThrownBy(() -> s.create("ends", "SELECT COUNT(*) FROM STREAM(10s, TIME)", OPS))
          .isInstanceOf(StandingQueries.Refused.class)
          .hasMessageContaining("STREAM(FOREVER)")
          .satisfies(e -> assertThat(((StandingQueries.Refused) e).status()).isEqualTo(400));
      assertThatThrownBy(() -> s.create("typo", "SELEC COUNT(*) FROM STREAM(FOREVER)", OPS))
          .isInstanceOf(BqlException.class);
      assertThat(s.list(OPS)).extracting(StandingQueries.Info::name).containsExactly("usage");
      assertThat(r.engine.running()).hasSize(1);
    }
  }

  @Test
  void aWindowCountsEachDocumentOnceAcrossARestart() throws Exception {
    try (Running r = new Running()) {
      r.standing().create("usage", COUNT, OPS);
      r.ingest(docs(0, 20));
      assertThat(r.window("usage", 20)).contains("\"docs\":20");
    } // the last checkpoint is written as the standing queries close
    try (Running r = new Running()) {
      assertThat(r.standing().list(OPS))
          .extracting(StandingQueries.Info::name)
          .containsExactly("usage");
      r.ingest(docs(20, 30));
      assertThat(r.window("usage", 30)).contains("\"docs\":30");
    }
  }
}
