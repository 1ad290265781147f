package io.spyglass.service.metering;

import static io.spyglass.service.metering.CheckpointMarkerTest.T0;
import static io.spyglass.service.metering.CheckpointMarkerTest.await;
import static io.spyglass.service.metering.CheckpointMarkerTest.docs;
import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.plan.QueryLimits;
import io.spyglass.engine.EngineConfig;
import io.spyglass.engine.ingest.Ingestor;
import io.spyglass.service.UsageLimits;
import io.spyglass.service.auth.User;
import io.spyglass.service.runtime.EmbeddedRuntime;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Standing queries through the embedded runtime, on a real ingest log and SQLite database, their
 * checkpoints a marker in each query's result stream: a process that stops without its last
 * checkpoint (as a crash does) restarts from the last one written, and every final window counts
 * each document once.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StandingQueriesRecoveryTest {
  @TempDir Path data;

  static final User OPS = new User("ops", true);

  /** Windows of 10 s; a document 20 s late still counts. */
  static final String COUNT =
      "SELECT COUNT(*) AS docs FROM STREAM(FOREVER)"
          + " WINDOWING TUMBLING(10s, EVENT_TIME(time), LATENESS 20s)";

  /** Metering on {@link #data} through an embedded runtime reading its log, checkpoints often. */
  private final class Service {
    final Metering metering;
    final EmbeddedRuntime runtime;

    Service() throws Exception {
      metering =
          Metering.open(data, new Metering.Settings("id", Ingestor.Options.DEFAULTS, 10, null));
      runtime =
          EmbeddedRuntime.startPaused(
              metering.source(), EngineConfig.defaults().withWorkers(2).withTickMs(5));
      metering.start(runtime, QueryLimits.DEFAULTS, UsageLimits.DEFAULTS.standing(), null);
      runtime.resume();
    }

    StandingQueries standing() {
      return metering.standing();
    }

    /** Stops as a crash would: the runtime first, so that no last checkpoint is written. */
    void crash() throws Exception {
      runtime.close();
      metering.close();
    }

    void stop() throws Exception {
      metering.standing().close();
      runtime.close();
      metering.close();
    }
  }

  private static final Pattern DOCS = Pattern.compile("\"docs\":(\\d+)");

  private static long docsOf(StandingReport.Window w) {
    Matcher m = DOCS.matcher(w.records());
    return m.find() ? Long.parseLong(m.group(1)) : 0;
  }

  @Test
  void finalWindowsCountEachDocumentOnceAcrossAStopWithoutLastCheckpoint() throws Exception {
    Service s = new Service();
    s.standing().create("usage", COUNT, OPS);
    for (int b = 0; b < 30; b++) { // 600 documents, one a second, while checkpoints are taken
      s.metering.ingestor().submit(docs(b * 20, (b + 1) * 20)).get(10, TimeUnit.SECONDS);
    }
    long checkpoints = s.standing().checkpoints();
    await(() -> s.standing().checkpoints() > checkpoints + 3);
    s.crash();

    Service again = new Service();
    try {
      assertThat(again.standing().list(OPS))
          .extracting(StandingQueries.Info::name)
          .containsExactly("usage");
      // one document far ahead closes every window
      again.metering.ingestor().submit(docs(10_000, 10_001)).get(10, TimeUnit.SECONDS);
      await(
          () -> {
            List<StandingReport.Window> w =
                again.standing().report("usage", 0, T0 + 600_000L, OPS).windows();
            return w.size() == 60 && w.stream().allMatch(StandingReport.Window::isFinal);
          });
      List<StandingReport.Window> windows =
          again.standing().report("usage", 0, T0 + 600_000L, OPS).windows();
      for (int i = 0; i < 60; i++) {
        StandingReport.Window w = windows.get(i);
        assertThat(w.start()).isEqualTo(T0 + i * 10_000L);
        assertThat(docsOf(w)).as("documents of window %d", i).isEqualTo(10);
      }
    } finally {
      again.stop();
    }
  }
}
