package io.spyglass.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.flink.MeteringRun;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code serve --runtime flink --source http}: at the start, the job's control log ({@code
 * DATA/flink}) and the standing queries' database are compared. A query on the job that the
 * database does not hold (the service stopped between submitting it and saving it; here: the
 * database replaced by the copy taken before it was defined) is killed on the job; a database whose
 * running standing queries the job's folder does not know (the folder deleted) stops the start,
 * saying what to do, with no file changed.
 */
class MeteringJobFolderIT {
  @TempDir Path data;
  @TempDir Path copy;

  /** The standing queries' database files of {@code from}, copied to {@code to}. */
  static void copyDatabase(Path from, Path to) throws Exception {
    try (Stream<Path> files = Files.list(from)) {
      for (Path f :
          files.filter(f -> f.getFileName().toString().startsWith("standing.db")).toList()) {
        Files.copy(f, to.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
      }
    }
  }

  @Test
  void aQueryTheDatabaseLacksIsKilledOnTheJobAndALostJobFolderStopsTheStart() throws Exception {
    try (Spyglass.Running s = MeteringIT.serve(data, "flink")) {
      MeteringIT.url(s);
      MeteringServe.stop(s);
    }
    copyDatabase(data, copy); // the database before "ghost" was defined
    try (Spyglass.Running s = MeteringIT.serve(data, "flink")) {
      MeteringServe.define(MeteringIT.url(s), "ghost", MeteringIT.COUNT);
      MeteringServe.stop(s);
    }
    String ghost =
        MeteringRun.queries(data.resolve("flink")).keySet().stream()
            .filter(id -> id.startsWith("standing-ghost@"))
            .findFirst()
            .orElseThrow();
    assertThat(MeteringRun.queries(data.resolve("flink"))).containsEntry(ghost, true);

    copyDatabase(copy, data);
    try (Spyglass.Running s = MeteringIT.serve(data, "flink")) {
      String url = MeteringIT.url(s);
      MeteringServe.awaitStderr(
          s, "standing query " + ghost + " runs on the Flink job but is not in the");
      HttpResponse<String> listed = MeteringServe.get(url, "api/standing-queries");
      assertThat(Spyglass.parse(listed.body()).get("standingQueries")).isEmpty();
      MeteringServe.define(url, "kept", MeteringIT.COUNT);
      MeteringServe.stop(s);
    }
    Map<String, Boolean> onJob = MeteringRun.queries(data.resolve("flink"));
    assertThat(onJob).containsEntry(ghost, false);
    assertThat(onJob.entrySet().stream().filter(e -> e.getKey().startsWith("standing-kept@")))
        .singleElement()
        .satisfies(e -> assertThat(e.getValue()).isTrue());

    // the job's folder deleted: the database's running query "kept" would start afresh short of
    // what it counted; the start is refused and changes nothing
    try (Stream<Path> all = Files.walk(data.resolve("flink"))) {
      all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
    List<String> before = listing(data);
    try (Spyglass.Running s = MeteringIT.serve(data, "flink")) {
      assertThat(s.awaitExit()).as(s.toString()).isNotZero();
      assertThat(s.stderr())
          .contains("runs 1 standing query [kept] that the Flink job's folder")
          .contains("Restore " + data.resolve("flink"))
          .contains("--reset-standing-queries");
    }
    assertThat(data.resolve("flink")).doesNotExist();
    assertThat(listing(data)).isEqualTo(before);
  }

  /** Every file under {@code dir} with its size, but the lock's. */
  static List<String> listing(Path dir) throws Exception {
    try (Stream<Path> all = Files.walk(dir)) {
      return all.filter(Files::isRegularFile)
          .filter(p -> !p.getFileName().toString().equals("spyglass.lock"))
          .map(p -> dir.relativize(p) + " " + p.toFile().length())
          .sorted()
          .toList();
    }
  }
}
