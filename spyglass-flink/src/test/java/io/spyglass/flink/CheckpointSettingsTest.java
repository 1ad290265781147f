package io.spyglass.flink;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;

/** The checkpoints the job turns on when Flink's configuration says nothing of them. */
class CheckpointSettingsTest {
  private static CheckpointSettings build(Configuration flink) {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(flink);
    SpyglassJob.checkpoints(env, new Configuration());
    return new CheckpointSettings(
        env.getCheckpointConfig().getCheckpointInterval(),
        env.getCheckpointConfig().getTolerableCheckpointFailureNumber());
  }

  private record CheckpointSettings(long intervalMs, int tolerableFailures) {}

  @Test
  void aCheckpointThatFailsOnceDoesNotRestartTheJob() {
    assertThat(build(new Configuration()))
        .isEqualTo(new CheckpointSettings(10_000, SpyglassJob.TOLERABLE_CHECKPOINT_FAILURES));
  }

  @Test
  void flinksOwnCheckpointSettingsAreKept() {
    Configuration flink = new Configuration();
    flink.setString("execution.checkpointing.interval", "5 s");
    assertThat(build(flink)).isEqualTo(new CheckpointSettings(5_000, 0));
    flink = new Configuration();
    flink.setString("execution.checkpointing.tolerable-failed-checkpoints", "1");
    assertThat(build(flink)).isEqualTo(new CheckpointSettings(10_000, 1));
  }
}
