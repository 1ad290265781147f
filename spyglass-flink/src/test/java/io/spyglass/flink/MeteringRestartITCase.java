package io.spyglass.flink;

import static io.spyglass.flink.MeteringDocs.HOUR;
import static io.spyglass.flink.MeteringDocs.SETTINGS;
import static io.spyglass.flink.MeteringDocs.T0;
import static io.spyglass.flink.MeteringDocs.await;
import static io.spyglass.flink.MeteringDocs.checked;
import static io.spyglass.flink.MeteringDocs.doc;
import static io.spyglass.flink.MeteringDocs.embedded;
import static io.spyglass.flink.MeteringDocs.hour;
import static io.spyglass.flink.MeteringDocs.ingest;
import static io.spyglass.flink.MeteringDocs.position;
import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.engine.ingest.Ingestor;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Standing queries on the job over the ingest log ({@link MeteringRun}, on a mini cluster of its
 * own as the service runs it): an event-time query with lateness gives the embedded engine's final
 * windows and late updates over the same documents; a run closed abruptly (no savepoint) and
 * started again on the same folders restores its last checkpoint, reads on from there (documents
 * written while no job ran included), and every window reaches the listener once after dropping
 * repeats by window number.
 */
class MeteringRestartITCase {
  @TempDir Path data;

  @Test
  void closedAbruptlyAndStartedAgainOnTheSameFoldersEveryWindowOnceWithTheEnginesTotals()
      throws Exception {
    MeteringDocs.Collected got = new MeteringDocs.Collected();
    try (MeteringLog log = new MeteringLog(data)) {
      MeteringRun run =
          MeteringRun.start(log.ingestDir, log.flinkDir, SETTINGS, got, log::committedEnd);
      assertThat(run.restoredFrom()).isNull();
      run.submit("q", checked(), T0, log.committedEnd());
      await("the query runs", () -> got.running("q"), got);
      log.writeHours(0, 4);
      // hours 0 and 1 are final once hour 3's documents are read (3h07 > 2h + 10m)
      await("two final windows", () -> got.windows("q").size() >= 2, got);
      long read = log.committedEnd();
      await("a checkpoint covers every document", () -> position(run) >= read, got);
      // a document late for hour 0: a late update
      log.write(List.of(doc("o1", 1000, T0 + 30 * 60_000L)));
      await(
          "the late update",
          () -> got.windows("q").keySet().stream().anyMatch(k -> k.startsWith("late")),
          got);
      log.write(hour(4));
      run.close(); // no savepoint: the next run goes on from the last checkpoint

      // documents acknowledged while no job ran
      log.write(hour(5));
      MeteringRun again =
          MeteringRun.start(log.ingestDir, log.flinkDir, SETTINGS, got, log::committedEnd);
      try {
        assertThat(again.restoredFrom()).as("restored from a checkpoint").isNotNull();
        log.write(hour(6));
        log.write(hour(8));
        Map<String, String> expected = log.awaitEnginesWindows(got, "q");
        System.out.printf(
            "%d windows and late updates, %d replies of results (repeats dropped by number)%n",
            expected.size(), got.delivered("q"));
      } finally {
        again.close();
      }
    }
  }

  @Test
  void aQueryCountsTheDocumentsFromItsPositionOnAndAKilledOneStops() throws Exception {
    MeteringDocs.Collected got = new MeteringDocs.Collected();
    try (MeteringLog log = new MeteringLog(data);
        MeteringRun run = MeteringRun.start(log.ingestDir, log.flinkDir, SETTINGS, got)) {
      Ingestor in = log.in;
      run.submit("all", checked(), T0, in.log().committedEnd());
      List<String> h0 = hour(0);
      ingest(in, h0);
      // defined after hour 0 was acknowledged: it counts from there on, whenever the job reads it
      run.submit("later", checked(), T0, in.log().committedEnd());
      List<String> h1 = hour(1);
      ingest(in, h1);
      List<String> h3 = hour(3);
      ingest(in, h3);
      Map<String, String> all = embedded(List.of(h0, h1, h3));
      Map<String, String> later = embedded(List.of(h1, h3));
      await(
          "both queries' windows",
          () ->
              got.windows("all").keySet().containsAll(all.keySet())
                  && got.windows("later").keySet().containsAll(later.keySet()),
          got);
      assertThat(got.windows("all")).isEqualTo(all);
      assertThat(got.windows("later")).isEqualTo(later);
      assertThat(later).hasSize(1);

      run.kill("all");
      List<String> h5 = hour(5);
      ingest(in, h5);
      Map<String, String> laterOn = embedded(List.of(h1, h3, h5));
      await(
          "the query left running goes on",
          () -> got.windows("later").keySet().containsAll(laterOn.keySet()),
          got);
      assertThat(got.windows("later")).isEqualTo(laterOn);
      assertThat(got.windows("all")).as("the killed query sent nothing more").isEqualTo(all);

      // a look at the open window (hour 5): what the documents read so far make of it, as the
      // engine's window once final; a look at a query the job does not run: the answer alone
      long look = run.inspect("later", true);
      long none = run.inspect("no-such-query", true);
      await("both looks answered", () -> got.answered(look) && got.answered(none), got);
      List<String> h8 = List.of(doc("o1", 1, T0 + 8 * HOUR));
      String hour5 =
          embedded(List.of(h1, h3, h5, h8))
              .get(String.format("window %08d", (T0 + 5 * HOUR) / HOUR));
      assertThat(hour5).isNotNull();
      assertThat(got.looked("later", look)).containsExactly(hour5);
      assertThat(got.looked("no-such-query", none)).isEmpty();
    }
  }
}
