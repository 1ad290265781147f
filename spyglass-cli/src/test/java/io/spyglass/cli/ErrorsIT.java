package io.spyglass.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** What people see when they get something wrong: where, why, and what to write instead. */
class ErrorsIT {
  @Test
  void badQueryExitsWithTwoAndShowsTheSpotAndTheFix() throws Exception {
    Spyglass.Run run =
        Spyglass.run(
            "query", "--source", "gen", "--format", "json", "SELECT COUNT(* FROM STREAM()");
    assertThat(run.exitCode()).as(run.toString()).isEqualTo(2);
    assertThat(run.stdout()).isEmpty();
    assertThat(run.stderr())
        .contains("invalid query at line 1, column 16")
        .contains("  SELECT COUNT(* FROM STREAM()\n")
        .contains("\n                 ^^^^\n")
        .contains("  fix: ");
  }

  @Test
  void badQueryInAFileNamesIt() throws Exception {
    Path file = Files.createTempFile("queries", ".bql");
    try {
      Files.writeString(
          file, "SELECT COUNT(*) FROM STREAM(1s, TIME)\nSELECT * FROM STREAM() WHERE a =\n");
      Spyglass.Run run = Spyglass.run("query", "--queries", file.toString());
      assertThat(run.exitCode()).as(run.toString()).isEqualTo(2);
      assertThat(run.stdout()).isEmpty();
      assertThat(run.stderr()).containsPattern("query 2: invalid query at line 1, column \\d+");
      assertThat(run.stderr()).contains("^").contains("fix: ");
    } finally {
      Files.deleteIfExists(file);
    }
  }

  @Test
  void badInputIsCountedAndSaidOnStderrWithItsLines() throws Exception {
    Path file = Files.createTempFile("events", ".json");
    try {
      Files.writeString(file, "{\"a\": 1}\n{\"a\": 2,\n[1, 2]\n{\"a\": 3}\n{\"a\": NaN}\n{\"a\"");
      Spyglass.Run run =
          Spyglass.run(
              "query",
              "--source",
              "file:" + file,
              "--format",
              "json",
              "SELECT COUNT(*) AS n FROM STREAM(MAX, TIME)");
      assertThat(run.exitCode()).as(run.toString()).isZero();
      assertThat(run.json())
          .singleElement()
          .satisfies(
              r -> {
                assertThat(r.at("/records/0/n").asLong()).isEqualTo(2);
                assertThat(r.at("/meta/badInput/truncated").asLong()).isEqualTo(2);
                assertThat(r.at("/meta/badInput/notAnObject").asLong()).isEqualTo(1);
                assertThat(r.at("/meta/badInput/notANumber").asLong()).isEqualTo(1);
              });
      assertThat(run.stderr())
          .contains(
              "spyglass: file:"
                  + file
                  + ": 4 bad records skipped: 2 truncated JSON (line 2, line 6), 1 NaN or"
                  + " Infinity, which JSON has no numbers for (line 5), 1 not a JSON object"
                  + " (line 3)\n");
    } finally {
      Files.deleteIfExists(file);
    }
  }

  @Test
  void unknownSourceExitsWithOneAndListsTheAcceptedForms() throws Exception {
    Spyglass.Run run = Spyglass.run("query", "--source", "bogus", "SELECT * FROM STREAM()");
    assertThat(run.exitCode()).as(run.toString()).isEqualTo(1);
    assertThat(run.stdout()).isEmpty();
    assertThat(run.stderr())
        .contains("spyglass: cannot open source bogus: Unknown source 'bogus'")
        .contains("Accepted: gen")
        .contains("file:PATH")
        .contains("kafka://HOST:PORT");
  }
}
