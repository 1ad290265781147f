package io.spyglass.flink;

import static io.spyglass.flink.MeteringDocs.SETTINGS;
import static io.spyglass.flink.MeteringDocs.T0;
import static io.spyglass.flink.MeteringDocs.await;
import static io.spyglass.flink.MeteringDocs.embedded;
import static io.spyglass.flink.MeteringDocs.hour;
import static io.spyglass.flink.MeteringDocs.ingest;
import static io.spyglass.flink.MeteringDocs.position;
import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.engine.ingest.Ingestor;
import io.spyglass.flink.client.Reply;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
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
    Path ingestDir = data.resolve("ingest");
    Path flinkDir = data.resolve("flink");
    Path file = data.resolve("replies");
    List<List<String>> phases = new ArrayList<>();
    try (Ingestor in = Ingestor.open(ingestDir, Ingestor.Options.DEFAULTS, () -> T0)) {
      Process p =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-Xmx400m",
                  "-cp",
                  System.getProperty("java.class.path"),
                  MeteringProcess.class.getName(),
                  ingestDir.toString(),
                  flinkDir.toString(),
                  file.toString(),
                  String.valueOf(in.log().committedEnd()))
              .redirectErrorStream(true)
              .redirectOutput(data.resolve("process.log").toFile())
              .start();
      long killedAt;
      try {
        await("the query runs", () -> of(replies(file)).running("q"), p);
        for (int h = 0; h < 4; h++) {
          phases.add(hour(h));
          ingest(in, phases.get(phases.size() - 1));
        }
        await("two final windows", () -> of(replies(file)).windows("q").size() >= 2, p);
        long read = in.log().committedEnd();
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
        List<String> h4 = hour(4);
        phases.add(h4.subList(0, 3));
        ingest(in, phases.get(phases.size() - 1));
        await("hour 2 final", () -> of(replies(file)).windows("q").size() >= 3, p);
      } finally {
        p.destroyForcibly();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        killedAt = System.nanoTime();
      }
      assertThat(p.exitValue()).as("killed by SIGKILL").isEqualTo(137);
      List<Reply> before = replies(file);
      List<String> h4 = hour(4);
      phases.add(h4.subList(3, h4.size()));
      ingest(in, phases.get(phases.size() - 1));
      MeteringDocs.Collected got = new MeteringDocs.Collected();
      got.replies.addAll(before);
      try (MeteringRun again = MeteringRun.start(ingestDir, flinkDir, SETTINGS, got)) {
        assertThat(again.restoredFrom()).as("restored from a checkpoint").isNotNull();
        phases.add(hour(5));
        ingest(in, phases.get(phases.size() - 1));
        phases.add(hour(7));
        ingest(in, phases.get(phases.size() - 1));
        Map<String, String> expected = embedded(phases);
        await(
            "every window the engine closed",
            () -> got.windows("q").keySet().containsAll(expected.keySet()),
            got);
        assertThat(got.windows("q")).isEqualTo(expected);
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
