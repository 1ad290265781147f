package io.spyglass.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;
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
  void badQueryInAFileNamesTheFileAndItsLine() throws Exception {
    Path file = Files.createTempFile("queries", ".bql");
    try {
      // a byte order mark, a comment and a blank line: the bad query is on the file's line 4
      Files.writeString(
          file,
          "\uFEFFSELECT COUNT(*) FROM STREAM(1s, TIME)\n# counts\n\n"
              + "SELECT * FROM STREAM() WHERE a =\n");
      Spyglass.Run run = Spyglass.run("query", "--queries", file.toString());
      assertThat(run.exitCode()).as(run.toString()).isEqualTo(2);
      assertThat(run.stdout()).isEmpty();
      assertThat(run.stderr())
          .containsOnlyOnce("invalid query")
          .containsPattern(
              "spyglass: "
                  + Pattern.quote(file.toString())
                  + ": invalid query at line 4, column 3\\d");
      assertThat(run.stderr()).contains("^").contains("fix: ");
    } finally {
      Files.deleteIfExists(file);
    }
  }

  @Test
  void badOptionsAndMissingFilesSayWhat() throws Exception {
    Spyglass.Run run = Spyglass.run("query", "--duration", "-5s", "SELECT * FROM STREAM()");
    assertThat(run.exitCode()).as(run.toString()).isEqualTo(2);
    assertThat(run.stderr()).contains("--duration -5s must be longer than zero");

    run = Spyglass.run("query", "--queries", "/no/such/queries.bql");
    assertThat(run.exitCode()).as(run.toString()).isEqualTo(1);
    assertThat(run.stderr())
        .isEqualTo("spyglass: cannot read the queries file: no such file: /no/such/queries.bql\n");

    run = Spyglass.run("query", "--source", "file:/no/such/events.json", "SELECT * FROM STREAM()");
    assertThat(run.exitCode()).as(run.toString()).isEqualTo(1);
    assertThat(run.stderr())
        .isEqualTo(
            "spyglass: cannot open source file:/no/such/events.json:"
                + " no such file: /no/such/events.json\n");

    Path file = Files.createTempFile("queries", ".bql");
    try {
      Files.writeString(file, "SELECT * FROM STREAM()\nSELECT * FROM STREAM()\n");
      run = Spyglass.run("query", "--max-queries", "1", "--queries", file.toString());
      assertThat(run.exitCode()).as(run.toString()).isEqualTo(2);
      assertThat(run.stderr())
          .contains("2 queries, more than --max-queries 1 lets run at once; raise --max-queries");
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
  void aSourceThatFailsIsSaidOnceWithTheResultsReadBeforeIt() throws Exception {
    Path file = Files.createTempFile("events", ".json.gz");
    try {
      java.io.ByteArrayOutputStream gz = new java.io.ByteArrayOutputStream();
      try (java.util.zip.GZIPOutputStream out = new java.util.zip.GZIPOutputStream(gz)) {
        for (int i = 0; i < 20_000; i++) {
          out.write(("{\"n\": " + i + ", \"pad\": \"" + i * 7919 + "\"}\n").getBytes());
        }
      }
      byte[] all = gz.toByteArray();
      Files.write(file, java.util.Arrays.copyOf(all, all.length / 2)); // cut: not valid gzip
      Path queries = file.resolveSibling(file.getFileName() + ".bql");
      Files.writeString(
          queries,
          "SELECT COUNT(*) AS n FROM STREAM(MAX, TIME)\nSELECT MAX(n) AS m FROM STREAM(MAX, TIME)\n");
      Spyglass.Run run =
          Spyglass.run("query", "--source", "file:" + file, "--queries", queries.toString());
      Files.delete(queries);
      assertThat(run.exitCode()).as(run.toString()).isEqualTo(1);
      assertThat(run.stdout()).contains("The source failed: Unexpected end of ZLIB input stream");
      // once, not in a log line and again for each query
      assertThat(run.stderr())
          .as(run.toString())
          .isEqualTo(
              "spyglass: source file:" + file + " failed: Unexpected end of ZLIB input stream\n");
    } finally {
      Files.deleteIfExists(file);
    }
  }

  @Test
  void bytesThatAreNotUtf8AreBadInputAndSelectStarWritesEveryOtherRecord() throws Exception {
    // a surrogate encoded in UTF-8 in a field no query reads, and a name starting with 0xFF after
    // a record with the name it would be mistaken for: the whole record of SELECT * once ended
    // the command half way through its output
    Path file = Files.createTempFile("events", ".json");
    try {
      java.io.ByteArrayOutputStream lines = new java.io.ByteArrayOutputStream();
      lines.writeBytes("{\"id\":\"v\",\"n\":1}\n".getBytes(StandardCharsets.UTF_8));
      lines.writeBytes("{\"id\":\"v\",\"z\":\"".getBytes(StandardCharsets.UTF_8));
      lines.writeBytes(new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80});
      lines.writeBytes("\"}\n{\"\\u0078\":1,\"id\":\"a\"}\n{\"".getBytes(StandardCharsets.UTF_8));
      lines.writeBytes(new byte[] {(byte) 0xFF});
      lines.writeBytes(
          "id\":\"v\"}\n{\"id\":\"v\",\"s\":\"\\ud800\"}\n".getBytes(StandardCharsets.UTF_8));
      Files.write(file, lines.toByteArray());
      Spyglass.Run run =
          Spyglass.run(
              "query",
              "--source",
              "file:" + file,
              "--workers",
              "1",
              "--format",
              "json",
              "SELECT * FROM STREAM(MAX, TIME) WHERE id = 'v'");
      assertThat(run.exitCode()).as(run.toString()).isZero();
      assertThat(run.stdout()).endsWith("\n");
      assertThat(run.json())
          .singleElement()
          .satisfies(
              r -> {
                assertThat(r.at("/records").size()).isEqualTo(2);
                assertThat(r.at("/records/0/n").asLong()).isEqualTo(1);
                assertThat(r.at("/records/1/s").asText()).isEqualTo("\ud800");
                assertThat(r.at("/meta/badInput/invalidUtf8").asLong()).isEqualTo(2);
              });
      // the unpaired surrogate is written as the escape it was read as, not as '?'
      assertThat(run.stdout()).contains("\"s\":\"\\ud800\"");
      assertThat(run.stderr()).contains("2 invalid UTF-8 (line 2, line 4)");
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
