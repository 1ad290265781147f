package io.spyglass.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a start of {@link MeteringRun} restores, and its settings. */
class MeteringRunTest {
  @TempDir Path dir;

  private Path checkpoint(String job, int n, boolean complete) throws Exception {
    Path c = Files.createDirectories(dir.resolve(job).resolve("chk-" + n));
    if (complete) {
      Files.write(c.resolve("_metadata"), new byte[] {1});
    }
    return c;
  }

  @Test
  void theLatestCompletedCheckpointIsRestoredNotOneAProcessDiedWriting() throws Exception {
    assertThat(MeteringRun.latestCheckpoint(dir.resolve("none"))).isNull();
    checkpoint("a1", 3, true);
    Path latest = checkpoint("b2", 5, true); // a later run, restored from a1's chk-3
    checkpoint("b2", 6, false); // being written when the process was killed
    Files.createDirectories(dir.resolve("b2").resolve("shared"));
    assertThat(MeteringRun.latestCheckpoint(dir)).isEqualTo(latest);
  }

  @Test
  void settingsOutOfRangeAreRefused() {
    assertThatThrownBy(() -> MeteringRun.Settings.DEFAULTS.withCheckpointEveryMs(5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least 10 ms");
    assertThatThrownBy(() -> MeteringRun.Settings.DEFAULTS.withParallelism(0))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
