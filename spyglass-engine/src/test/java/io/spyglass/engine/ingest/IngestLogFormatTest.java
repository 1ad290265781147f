package io.spyglass.engine.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ingest log's formats against files kept in the tests' resources: {@code golden-v1} (segments
 * of version 1, written before commit markers, with ids files of version 1), {@code golden-v2}
 * (segments of version 2, ids files of version 1: what the releases before checksummed ids headers
 * wrote), both still read, and {@code golden-v2-ids2} (segments of version 2, ids files of version
 * 2: what this Spyglass writes, byte for byte). All hold the same nine documents in three groups of
 * three, one segment each. {@code golden-v2-retired} is {@code golden-v2-ids2} after a checkpoint
 * covered its first two segments: their records are gone, their ids files stay (what remembers the
 * ids within {@code --id-horizon}), and the manifest records the checkpoint.
 */
class IngestLogFormatTest {
  @TempDir Path dir;

  /** When the golden files' documents were accepted: one group a second. */
  static final long START_MS = 1_767_225_600_000L;

  static final Ingestor.Options OPTIONS = Ingestor.Options.DEFAULTS.withSegmentBytes(400);

  static Path golden(String version) throws URISyntaxException {
    return Path.of(IngestLogFormatTest.class.getResource("golden-" + version).toURI());
  }

  static List<Ingestor.Doc> group(int g) {
    List<Ingestor.Doc> docs = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      int n = g * 3 + i;
      String id = "g-" + n;
      byte[] b =
          ("{\"id\":\"" + id + "\",\"org\":\"o" + (n % 2) + "\",\"quantity\":" + (n + 1) + "}")
              .getBytes(StandardCharsets.UTF_8);
      docs.add(new Ingestor.Doc(id, b, 0, b.length));
    }
    return docs;
  }

  static List<String> documents() {
    List<String> out = new ArrayList<>();
    for (int g = 0; g < 3; g++) {
      for (Ingestor.Doc d : group(g)) {
        out.add(new String(d.data(), StandardCharsets.UTF_8));
      }
    }
    return out;
  }

  /** Writes the nine documents as the golden files were written. */
  static void writeGolden(Path into) throws Exception {
    AtomicLong clock = new AtomicLong(START_MS);
    try (Ingestor in = Ingestor.open(into, OPTIONS, clock::get)) {
      for (int g = 0; g < 3; g++) {
        in.submit(group(g)).get(10, TimeUnit.SECONDS);
        clock.addAndGet(1000);
      }
    }
  }

  static final List<String> FILES =
      List.of(
          "00000000000000000000.log",
          "00000000000000000000.ids",
          "%1$s.log",
          "%1$s.ids",
          "%2$s.log");

  /** Copies a golden folder into the test's folder. */
  void copy(String version, String second, String third) throws Exception {
    copy(version, second, third, dir);
  }

  static void copy(String version, String second, String third, Path into) throws Exception {
    Files.createDirectories(into);
    for (String f : FILES) {
      String name = String.format(f, second, third);
      Files.copy(golden(version).resolve(name), into.resolve(name));
    }
  }

  void readsBack(String version) throws Exception {
    AtomicLong clock = new AtomicLong(START_MS + 3_600_000); // within the id horizon
    try (Ingestor in = Ingestor.open(dir, OPTIONS, clock::get)) {
      assertThat(in.log().recoveryNotices()).as(version).isEmpty();
      assertThat(IngestorTest.readAll(in.log(), 0)).as(version).isEqualTo(documents());
      for (int g = 0; g < 3; g++) {
        assertThat(in.submit(group(g)).get(10, TimeUnit.SECONDS))
            .as("%s: repeats are duplicates", version)
            .isEqualTo(new Ingestor.Outcome(0, 3));
      }
      assertThat(in.submit(group(3)).get(10, TimeUnit.SECONDS))
          .isEqualTo(new Ingestor.Outcome(3, 0));
    }
    List<String> all = new ArrayList<>(documents());
    for (Ingestor.Doc d : group(3)) {
      all.add(new String(d.data(), StandardCharsets.UTF_8));
    }
    try (Ingestor in = Ingestor.open(dir, OPTIONS, () -> START_MS + 3_600_000)) {
      assertThat(in.log().recoveryNotices()).isEmpty();
      assertThat(IngestorTest.readAll(in.log(), 0)).isEqualTo(all);
    }
  }

  @Test
  void version1IsStillRead() throws Exception {
    copy("v1", "00000000000000000225", "00000000000000000450");
    readsBack("v1");
    // its last segment was sealed as it was; what came after went to a version 2 segment
    Path last = dir.resolve("00000000000000000450.log");
    assertThat(Files.readAllBytes(last))
        .isEqualTo(Files.readAllBytes(golden("v1").resolve(last.getFileName())));
    assertThat(dir.resolve("00000000000000000450.ids")).exists();
    byte[] next = Files.readAllBytes(dir.resolve("00000000000000000675.log"));
    assertThat(next[4]).isEqualTo((byte) 2);
  }

  /** Opens the golden version 1 log with one byte flipped in document {@code id}'s JSON. */
  Ingestor openFlipped(String id) throws Exception {
    copy("v1", "00000000000000000225", "00000000000000000450");
    Path last = dir.resolve("00000000000000000450.log");
    byte[] b = Files.readAllBytes(last);
    String text = new String(b, StandardCharsets.ISO_8859_1);
    b[text.indexOf("{\"id\":\"" + id + "\"") + 14] ^= 1;
    Files.write(last, b);
    return Ingestor.open(dir, OPTIONS, () -> START_MS + 3_600_000);
  }

  @Test
  void aVersion1SegmentDropsDamageThatReadableRecordsFollow() throws Exception {
    try (Ingestor in = openFlipped("g-7")) {
      assertThat(in.log().recoveryNotices())
          .singleElement()
          .asString()
          .contains("dropped; 1 document lost (id \"g-7\")");
      List<String> docs = documents();
      docs.remove(7);
      assertThat(IngestorTest.readAll(in.log(), 0)).isEqualTo(docs);
      assertThat(in.submit(group(2)).get(10, TimeUnit.SECONDS))
          .isEqualTo(new Ingestor.Outcome(1, 2));
    }
  }

  @Test
  void aVersion1SegmentCutsDamageAtItsEndAndSaysItCannotTell() throws Exception {
    try (Ingestor in = openFlipped("g-8")) {
      assertThat(in.log().recoveryNotices())
          .singleElement()
          .asString()
          .contains("were cut off")
          .contains("version 1 segment, which does not record what was acknowledged")
          .contains("(id g-8)");
      assertThat(IngestorTest.readAll(in.log(), 0)).isEqualTo(documents().subList(0, 8));
      assertThat(in.submit(group(2)).get(10, TimeUnit.SECONDS))
          .isEqualTo(new Ingestor.Outcome(1, 2));
    }
  }

  @Test
  void version2IsRead() throws Exception {
    copy("v2", "00000000000000000257", "00000000000000000514");
    readsBack("v2");
  }

  @Test
  void idsFilesOfVersion2AreRead() throws Exception {
    copy("v2-ids2", "00000000000000000257", "00000000000000000514");
    readsBack("v2-ids2");
  }

  @Test
  void aFlippedBitInTheSizeOfAnIdsFileLosesNothing() throws Exception {
    // the size field is bytes 16 to 23 of an ids file; the first segment holds 257 bytes (0x101),
    // the first of version 1 225 (0xE1)
    record Flip(String golden, String second, String third, int at, int bit, String notice) {}
    String rewritten = "is damaged: it is written again";
    String checked = "its size field is damaged; it is written again";
    List<Flip> flips =
        List.of(
            new Flip("v2-ids2", "00000000000000000257", "00000000000000000514", 22, 1, rewritten),
            new Flip("v2-ids2", "00000000000000000257", "00000000000000000514", 23, 1, rewritten),
            new Flip("v2-ids2", "00000000000000000257", "00000000000000000514", 23, 32, rewritten),
            new Flip("v2", "00000000000000000257", "00000000000000000514", 22, 1, checked),
            new Flip("v2", "00000000000000000257", "00000000000000000514", 23, 1, checked),
            new Flip("v2", "00000000000000000257", "00000000000000000514", 23, 32, checked),
            new Flip("v1", "00000000000000000225", "00000000000000000450", 23, 128, checked),
            new Flip("v1", "00000000000000000225", "00000000000000000450", 23, 2, checked));
    int n = 0;
    for (Flip f : flips) {
      Path into = dir.resolve("case-" + n++);
      copy(f.golden(), f.second(), f.third(), into);
      Path ids = into.resolve("00000000000000000000.ids");
      byte[] b = Files.readAllBytes(ids);
      b[f.at()] ^= (byte) f.bit();
      Files.write(ids, b);
      String what = f.golden() + ", byte " + f.at() + " ^ " + f.bit();
      try (Ingestor in = Ingestor.open(into, OPTIONS, () -> START_MS + 3_600_000)) {
        assertThat(in.log().recoveryNotices())
            .as(what)
            .singleElement()
            .asString()
            .contains(ids.toString())
            .contains(f.notice());
        assertThat(IngestorTest.readAll(in.log(), 0)).as(what).isEqualTo(documents());
        assertThat(in.submit(group(0)).get(10, TimeUnit.SECONDS))
            .as("%s: its ids are remembered", what)
            .isEqualTo(new Ingestor.Outcome(0, 3));
      }
      try (Ingestor in = Ingestor.open(into, OPTIONS, () -> START_MS + 3_600_000)) {
        assertThat(in.log().recoveryNotices()).as("%s: written again", what).isEmpty();
        assertThat(Files.readAllBytes(ids)[4]).isEqualTo((byte) 2);
        assertThat(IngestorTest.readAll(in.log(), 0)).as(what).isEqualTo(documents());
      }
    }
  }

  @Test
  void version2IsWrittenAsTheGoldenFiles() throws Exception {
    writeGolden(dir);
    List<String> names = new ArrayList<>();
    try (Stream<Path> files = Files.list(golden("v2-ids2"))) {
      files.forEach(p -> names.add(p.getFileName().toString()));
    }
    List<String> written = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      files.forEach(p -> written.add(p.getFileName().toString()));
    }
    assertThat(written).containsExactlyInAnyOrderElementsOf(names);
    for (String name : names) {
      assertThat(Files.readAllBytes(dir.resolve(name)))
          .as(name)
          .isEqualTo(Files.readAllBytes(golden("v2-ids2").resolve(name)));
    }
  }

  /** The files of {@code golden-v2-retired}. */
  static final List<String> RETIRED =
      List.of(
          "00000000000000000000.ids",
          "00000000000000000257.ids",
          "00000000000000000514.log",
          "manifest");

  /**
   * Writes {@code golden-v2-retired}: the nine documents as the golden files were written, then a
   * checkpoint that covers the first two segments (position 514), and retention.
   */
  static void writeRetired(Path into) throws Exception {
    writeGolden(into);
    long now = START_MS + 3000;
    try (Ingestor in = Ingestor.open(into, OPTIONS, () -> now)) {
      assertThat(IngestorTest.readAll(in.log(), 0)).isEqualTo(documents());
      in.replayFrom(514);
      in.log().retain(514, now - OPTIONS.horizonMs(), (high, low, ms) -> {});
    }
  }

  @Test
  void idsFilesWhoseRecordsWereRetiredAreReadWithTheManifest() throws Exception {
    for (String name : RETIRED) {
      Files.copy(golden("v2-retired").resolve(name), dir.resolve(name));
    }
    assertThat(IngestLog.checkpointEvidence(dir)).contains("records a checkpoint at position 514");
    try (Ingestor in = Ingestor.open(dir, OPTIONS, () -> START_MS + 3_600_000)) {
      assertThat(in.log().recoveryNotices()).isEmpty();
      assertThat(in.log().start()).isEqualTo(514);
      assertThat(IngestorTest.readAll(in.log(), 514)).isEqualTo(documents().subList(6, 9));
      assertThat(in.idsKept()).isEqualTo(9);
      for (int g = 0; g < 3; g++) {
        assertThat(in.submit(group(g)).get(10, TimeUnit.SECONDS))
            .as("group %d: repeats within the horizon are duplicates, records or not", g)
            .isEqualTo(new Ingestor.Outcome(0, 3));
      }
      assertThat(in.submit(group(3)).get(10, TimeUnit.SECONDS))
          .isEqualTo(new Ingestor.Outcome(3, 0));
    }
  }

  @Test
  void pastTheHorizonTheRetiredIdsAreForgotten() throws Exception {
    for (String name : RETIRED) {
      Files.copy(golden("v2-retired").resolve(name), dir.resolve(name));
    }
    long later = START_MS + OPTIONS.horizonMs() + 3_600_000;
    try (Ingestor in = Ingestor.open(dir, OPTIONS, () -> later)) {
      assertThat(in.log().recoveryNotices()).isEmpty();
      assertThat(in.submit(group(0)).get(10, TimeUnit.SECONDS))
          .as("accepted long before the horizon: taken again")
          .isEqualTo(new Ingestor.Outcome(3, 0));
    }
  }

  @Test
  void aRetiredLogIsWrittenAsTheGoldenFiles() throws Exception {
    writeRetired(dir);
    List<String> written = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      files.forEach(p -> written.add(p.getFileName().toString()));
    }
    assertThat(written).containsExactlyInAnyOrderElementsOf(RETIRED);
    for (String name : RETIRED) {
      assertThat(Files.readAllBytes(dir.resolve(name)))
          .as(name)
          .isEqualTo(Files.readAllBytes(golden("v2-retired").resolve(name)));
    }
  }
}
