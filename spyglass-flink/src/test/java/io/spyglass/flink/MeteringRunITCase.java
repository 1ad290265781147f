package io.spyglass.flink;

import static io.spyglass.flink.MeteringDocs.SETTINGS;
import static io.spyglass.flink.MeteringDocs.T0;
import static io.spyglass.flink.MeteringDocs.await;
import static io.spyglass.flink.MeteringDocs.checked;
import static io.spyglass.flink.MeteringDocs.hour;
import static io.spyglass.flink.MeteringDocs.position;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Standing queries on the job over the ingest log ({@link MeteringRun}) across a TaskManager killed
 * in the middle of a window: the job restarts from its checkpoint, reads the log again from the
 * checkpoint's position, and every window reaches the listener (once, after dropping repeats by
 * window number) with the embedded engine's totals.
 */
@OnMiniCluster
class MeteringRunITCase {
  @TempDir Path data;

  @Test
  void aTaskManagerKilledMidWindowLosesNoWindowAndCountsNoDocumentTwice(
      @InjectMiniCluster MiniCluster cluster) throws Exception {
    MeteringDocs.Collected got = new MeteringDocs.Collected();
    try (MeteringLog log = new MeteringLog(data)) {
      MeteringRun run =
          MeteringRun.start(
              log.ingestDir,
              log.flinkDir,
              SETTINGS.withParallelism(2),
              got,
              log::committedEnd,
              true,
              Map.of(
                  RestartStrategyOptions.RESTART_STRATEGY.key(),
                  "fixed-delay",
                  RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS.key(),
                  "20",
                  RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY.key(),
                  Duration.ofMillis(200).toMillis() + " ms"));
      try {
        run.submit("q", checked(), T0, log.committedEnd());
        await("the query runs", () -> got.running("q"), got);
        log.writeHours(0, 3);
        await("hour 0 final", () -> got.windows("q").size() >= 1, got);
        // half of hour 3, checkpointed; then the TaskManager dies in the middle of the window
        List<String> h3 = hour(3);
        log.write(h3.subList(0, 3));
        long read = log.committedEnd();
        await("a checkpoint covers hour 3's first half", () -> position(run) >= read, got);
        cluster.terminateTaskManager(0).get(30, TimeUnit.SECONDS);
        cluster.startTaskManager();
        log.write(h3.subList(3, h3.size()));
        log.write(hour(4));
        log.write(hour(6));
        log.awaitEnginesWindows(got, "q");
        assertThat(
                cluster
                    .getExecutionGraph(run.jobId())
                    .get()
                    .getStatusTimestamp(org.apache.flink.api.common.JobStatus.RESTARTING))
            .as("the job restarted after the TaskManager died")
            .isPositive();
      } finally {
        run.close();
      }
    }
  }
}
