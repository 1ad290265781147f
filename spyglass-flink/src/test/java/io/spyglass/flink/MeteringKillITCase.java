package io.spyglass.flink;

import static io.spyglass.flink.MeteringDocs.SETTINGS;
import static io.spyglass.flink.MeteringDocs.await;
import static io.spyglass.flink.MeteringDocs.hour;
import static io.spyglass.flink.MeteringDocs.position;
import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.flink.client.Reply;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job over the ingest log in a process of its own ({@link MeteringProcess}) killed with SIGKILL
 * (as {@code kill -9}) in the middle of its windows, then started again on the same folders: it
 * restores its last completed checkpoint, reads the log on from there (documents written while no
 * process ran included), and every window reaches a listener once after dropping repeats by window
 * number, with the embedded engine's totals.
 */
class MeteringKillITCase {
  @TempDir Path data;

  private static List<Reply> replies(Path file) {
    try {
      return MeteringProcess.read(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static MeteringDocs.Collected of(List<Reply> replies) {
    MeteringDocs.Collected c = new MeteringDocs.Collected();
    c.replies.addAll(replies);
    return c;
  }

  @Test
  void killedWithSigkillMidWindowAndStartedAgainEveryWindowOnceWithTheEnginesTotals()
      throws Exception {
    Path file = data.resolve("replies");
    try (MeteringLog log = new MeteringLog(data)) {
      Path flinkDir = log.flinkDir;
      Process p =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-Xmx400m",
                  "-cp",
                  System.getProperty("java.class.path"),
                  MeteringProcess.class.getName(),
                  log.ingestDir.toString(),
                  flinkDir.toString(),
                  file.toString(),
                  String.valueOf(log.committedEnd()))
              .redirectErrorStream(true)
              .redirectOutput(data.resolve("process.log").toFile())
              .start();
      long killedAt;
      try {
        await("the query runs", () -> of(replies(file)).running("q"), p);
        log.writeHours(0, 4);
        await("two final windows", () -> of(replies(file)).windows("q").size() >= 2, p);
        long read = log.committedEnd();
        await(
            "a checkpoint covers every document",
            () -> {
              try {
                return MeteringRun.checkpointedPosition(flinkDir) >= read;
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            },
            p);
        // half of hour 4: in a window no checkpoint holds whole; then kill -9
        log.write(hour(4).subList(0, 3));
        await("hour 2 final", () -> of(replies(file)).windows("q").size() >= 3, p);
      } finally {
        p.destroyForcibly();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        killedAt = System.nanoTime();
      }
      assertThat(p.exitValue()).as("killed by SIGKILL").isEqualTo(137);
      List<Reply> before = replies(file);
      List<String> h4 = hour(4);
      log.write(h4.subList(3, h4.size()));
      MeteringDocs.Collected got = new MeteringDocs.Collected();
      got.replies.addAll(before);
      try (MeteringRun again = MeteringRun.start(log.ingestDir, flinkDir, SETTINGS, got)) {
        assertThat(again.restoredFrom()).as("restored from a checkpoint").isNotNull();
        log.write(hour(5));
        log.write(hour(7));
        Map<String, String> expected = log.awaitEnginesWindows(got, "q");
        assertThat(position(again)).isPositive();
        System.out.printf(
            "killed %d ms ago: %d windows, %d replies of results (repeats dropped by number)%n",
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt),
            expected.size(),
            got.delivered("q"));
      }
    }
  }
}
