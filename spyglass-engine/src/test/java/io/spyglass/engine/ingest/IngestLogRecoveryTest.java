package io.spyglass.engine.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The recovery matrix of the ingest log on real files: a torn tail is cut, damage inside
 * acknowledged data drops only the damaged records (said, and kept in quarantine), what the
 * checkpoint covers is never cut, and when the start cannot go on safely it is refused without
 * changing a byte.
 */
class IngestLogRecoveryTest {
  @TempDir Path dir;
  final AtomicLong clock = new AtomicLong(1_767_225_600_000L);

  static final Ingestor.Options OPTIONS = Ingestor.Options.DEFAULTS;

  Ingestor open() throws IOException {
    return Ingestor.open(dir, OPTIONS, clock::get);
  }

  Ingestor open(long checkpoint) throws IOException {
    return Ingestor.open(dir, OPTIONS, clock::get, new IngestLog.Recovery(checkpoint, false));
  }

  static String json(String id) {
    return "{\"id\":\"" + id + "\",\"n\":1}";
  }

  /** Writes {@code groups} groups of {@code per} documents {@code d0, d1, ...}; their ends. */
  long[] write(int groups, int per) throws Exception {
    long[] ends = new long[groups];
    try (Ingestor in = open()) {
      for (int g = 0; g < groups; g++) {
        in.submit(IngestorTest.docs("d", g * per, g * per + per)).get(10, TimeUnit.SECONDS);
        ends[g] = in.log().committedEnd();
      }
    }
    return ends;
  }

  Path active() throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(p -> p.toString().endsWith(".log")).sorted().reduce((a, b) -> b).get();
    }
  }

  static int indexOf(byte[] data, String text) {
    byte[] t = text.getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i + t.length <= data.length; i++) {
      if (Arrays.equals(data, i, i + t.length, t, 0, t.length)) {
        return i;
      }
    }
    throw new AssertionError(text + " is not in the file");
  }

  static void flip(Path file, long at) throws IOException {
    byte[] b = Files.readAllBytes(file);
    b[(int) at] ^= 0x01;
    Files.write(file, b);
  }

  /** A record as the log writes it, by hand. */
  static byte[] record(String id, long ms) {
    byte[] idBytes = id.getBytes(StandardCharsets.UTF_8);
    byte[] doc = json(id).getBytes(StandardCharsets.UTF_8);
    long[] h = IdIndex.hash(idBytes);
    int len = LogFormat.PAYLOAD_FIXED + idBytes.length + doc.length;
    ByteBuffer b = ByteBuffer.allocate(LogFormat.RECORD_HEADER + len);
    b.putInt(len).putInt(0).putLong(ms).putLong(h[0]).putLong(h[1]).putInt(idBytes.length);
    b.put(idBytes).put(doc);
    b.putInt(4, LogFormat.crc(b.array(), LogFormat.RECORD_HEADER, len));
    return b.array();
  }

  static void append(Path file, byte[]... parts) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.APPEND)) {
      for (byte[] p : parts) {
        ch.write(ByteBuffer.wrap(p));
      }
      ch.force(true);
    }
  }

  List<String> readAll(Ingestor in) throws IOException {
    return IngestorTest.readAll(in.log(), in.log().start());
  }

  static List<String> expected(int from, int to, int... missing) {
    List<String> out = new ArrayList<>();
    for (int i = from; i < to; i++) {
      int k = i;
      if (Arrays.stream(missing).noneMatch(m -> m == k)) {
        out.add(json("d" + k));
      }
    }
    return out;
  }

  @Test
  void aGroupTornByACrashIsCutAndItsDocumentsAreNew() throws Exception {
    long[] ends = write(3, 10);
    Path seg = active();
    // the writer killed in the middle of a group: two whole records and half its marker
    byte[] marker = new byte[LogFormat.MARKER];
    ByteBuffer.wrap(marker).putInt(LogFormat.MARKER_TAG).put(LogFormat.MARKER_MAGIC);
    append(seg, record("t1", clock.get()), record("t2", clock.get()), Arrays.copyOf(marker, 13));
    try (Ingestor in = open()) {
      assertThat(in.log().committedEnd()).isEqualTo(ends[2]);
      assertThat(in.log().recoveryNotices())
          .singleElement()
          .asString()
          .contains("were cut off")
          .contains("never acknowledged")
          .contains("2 complete documents (ids t1, t2)");
      assertThat(readAll(in)).isEqualTo(expected(0, 30));
      assertThat(in.submit(IngestorTest.docs("t", 1, 3)).get(10, TimeUnit.SECONDS))
          .isEqualTo(new Ingestor.Outcome(2, 0));
    }
    assertThat(Files.size(seg)).isGreaterThan(ends[2]);
  }

  @Test
  void aFlippedByteInAnAcknowledgedRecordDropsThatRecordOnly() throws Exception {
    long[] ends = write(3, 10);
    Path seg = active();
    byte[] before = Files.readAllBytes(seg);
    int at = indexOf(before, json("d14")) + 12; // inside the document's bytes
    flip(seg, at);
    try (Ingestor in = open()) {
      assertThat(in.log().committedEnd()).isEqualTo(ends[2]);
      assertThat(readAll(in)).isEqualTo(expected(0, 30, 14));
      String notice = in.log().recoveryNotices().get(0);
      assertThat(notice)
          .contains("do not read back (a record whose checksum does not match)")
          .contains("1 document lost (id \"d14\")")
          .contains("not counted yet: send it again");
      // the damaged bytes are kept aside, the file keeps its size (positions do not move)
      try (Stream<Path> q = Files.list(dir.resolve("quarantine"))) {
        Path kept = q.findFirst().orElseThrow();
        byte[] bad = Files.readAllBytes(kept);
        assertThat(new String(bad, StandardCharsets.UTF_8)).contains("d14");
        assertThat(notice).contains(kept.toString()).contains(bad.length + " bytes at byte");
      }
      assertThat(Files.size(seg)).isEqualTo(before.length);
      // sent again, the lost document is taken; the others are duplicates
      assertThat(in.submit(IngestorTest.docs("d", 10, 20)).get(10, TimeUnit.SECONDS))
          .isEqualTo(new Ingestor.Outcome(1, 9));
    }
    try (Ingestor in = open()) {
      assertThat(in.log().recoveryNotices()).isEmpty(); // the hole reads
      assertThat(readAll(in)).hasSize(30).endsWith(json("d14"));
    }
  }

  @Test
  void aDamagedLengthIsResolvedByTheGroupsMarker() throws Exception {
    write(3, 10);
    Path seg = active();
    byte[] b = Files.readAllBytes(seg);
    int doc = indexOf(b, json("d15"));
    // the record's length field: 8 + 28 + id bytes before the document
    int record = doc - "d15".length() - LogFormat.PAYLOAD_FIXED - LogFormat.RECORD_HEADER;
    flip(seg, record + 1);
    try (Ingestor in = open()) {
      assertThat(readAll(in)).isEqualTo(expected(0, 30, 15));
      assertThat(in.log().recoveryNotices().get(0))
          .contains("a record cut short or with a wrong length")
          .contains("1 document lost");
    }
  }

  @Test
  void damageInTheLastGroupIsDroppedTooWhenItsMarkerReads() throws Exception {
    write(3, 10);
    Path seg = active();
    flip(seg, indexOf(Files.readAllBytes(seg), json("d27")) + 12);
    try (Ingestor in = open()) {
      assertThat(readAll(in)).isEqualTo(expected(0, 30, 27));
    }
  }

  @Test
  void aDamagedCommitMarkerLosesNothing() throws Exception {
    long[] ends = write(3, 10);
    Path seg = active();
    long middle = LogFormat.HEADER + ends[0] - LogFormat.MARKER + 10;
    long last = LogFormat.HEADER + ends[2] - LogFormat.MARKER + 20;
    flip(seg, middle);
    flip(seg, last);
    try (Ingestor in = open()) {
      assertThat(readAll(in)).isEqualTo(expected(0, 30));
      assertThat(in.log().committedEnd()).isEqualTo(ends[2]);
      assertThat(in.log().recoveryNotices())
          .hasSize(2)
          .satisfiesExactly(
              n ->
                  assertThat(n)
                      .contains("a damaged commit marker")
                      .contains("no document was lost"),
              n -> assertThat(n).contains("is whole but its commit marker").contains("are kept"));
    }
  }

  @Test
  void whatTheCheckpointCoversIsNeverCut() throws Exception {
    long[] ends = write(3, 10);
    Path seg = active();
    // the last group's marker cut short, the checkpoint after its last record: kept, counted
    long lastRecordEnd = ends[2] - LogFormat.MARKER;
    try (FileChannel ch = FileChannel.open(seg, StandardOpenOption.WRITE)) {
      ch.truncate(LogFormat.HEADER + ends[2] - 5);
    }
    try (Ingestor in = open(lastRecordEnd)) {
      assertThat(in.log().committedEnd()).isEqualTo(lastRecordEnd);
      assertThat(readAll(in)).isEqualTo(expected(0, 30));
    }
  }

  @Test
  void withoutACheckpointTheSameTailIsNeverAcknowledged() throws Exception {
    long[] ends = write(3, 10);
    Path seg = active();
    try (FileChannel ch = FileChannel.open(seg, StandardOpenOption.WRITE)) {
      ch.truncate(LogFormat.HEADER + ends[2] - 5);
    }
    try (Ingestor in = open()) {
      assertThat(in.log().committedEnd()).isEqualTo(ends[1]);
      assertThat(readAll(in)).isEqualTo(expected(0, 20));
    }
  }

  @Test
  void aCheckpointBeyondTheLogRefusesWithoutTouchingIt() throws Exception {
    long[] ends = write(3, 10);
    Path seg = active();
    try (FileChannel ch = FileChannel.open(seg, StandardOpenOption.WRITE)) {
      ch.truncate(LogFormat.HEADER + ends[2] - 5);
    }
    byte[] before = Files.readAllBytes(seg);
    assertThatThrownBy(() -> open(ends[2]))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("checkpoint is at ingest log position " + ends[2])
        .hasMessageContaining("beyond the end of the log")
        .hasMessageContaining("Restore the ingest folder from a copy");
    assertThat(Files.readAllBytes(seg)).isEqualTo(before);
  }

  @Test
  void damageBeforeTheCheckpointKeepsItsIdRemembered() throws Exception {
    long[] ends = write(3, 10);
    Path seg = active();
    flip(seg, indexOf(Files.readAllBytes(seg), json("d3")) + 12);
    try (Ingestor in = open(ends[1])) {
      assertThat(in.log().recoveryNotices().get(0))
          .contains("1 document lost (id \"d3\")")
          .contains("counted by the standing queries before")
          .contains("its id stays remembered");
      // counted once already: sent again, it is a duplicate
      assertThat(in.submit(IngestorTest.docs("d", 3, 4)).get(10, TimeUnit.SECONDS))
          .isEqualTo(new Ingestor.Outcome(0, 1));
    }
    try (Ingestor in = open(ends[1])) {
      assertThat(in.submit(IngestorTest.docs("d", 3, 4)).get(10, TimeUnit.SECONDS))
          .isEqualTo(new Ingestor.Outcome(0, 1)); // the hole remembers it
    }
  }

  @Test
  void aDamagedHeaderRefusesWithoutTouchingTheFile() throws Exception {
    write(1, 10);
    Path seg = active();
    flip(seg, 1);
    byte[] before = Files.readAllBytes(seg);
    assertThatThrownBy(this::open)
        .isInstanceOf(IOException.class)
        .hasMessageContaining(seg.toString())
        .hasMessageContaining("restore it from a copy");
    assertThat(Files.readAllBytes(seg)).isEqualTo(before);
  }

  @Test
  void aDamagedRecordOfASealedSegmentWithItsIdsIsCountedExactly() throws Exception {
    Ingestor.Options small = OPTIONS.withSegmentBytes(800);
    try (Ingestor in = Ingestor.open(dir, small, clock::get)) {
      for (int g = 0; g < 6; g++) {
        in.submit(IngestorTest.docs("d", g * 5, g * 5 + 5)).get(10, TimeUnit.SECONDS);
      }
    }
    Path first = dir.resolve(IngestLog.name(0) + ".log");
    byte[] b = Files.readAllBytes(first);
    int doc = indexOf(b, json("d2"));
    flip(first, doc - 2 - LogFormat.PAYLOAD_FIXED - LogFormat.RECORD_HEADER + 2); // its length
    try (Ingestor in = Ingestor.open(dir, small, clock::get)) {
      assertThat(in.log().recoveryNotices().get(0))
          .contains(first.toString())
          .contains("1 document lost");
      assertThat(readAll(in)).isEqualTo(expected(0, 30, 2));
      assertThat(in.submit(IngestorTest.docs("d", 0, 5)).get(10, TimeUnit.SECONDS))
          .isEqualTo(new Ingestor.Outcome(1, 4));
    }
    // the ids file now forgets it, and no second notice comes
    try (Ingestor in = Ingestor.open(dir, small, clock::get)) {
      assertThat(in.log().recoveryNotices()).isEmpty();
      assertThat(in.submit(IngestorTest.docs("d", 0, 5)).get(10, TimeUnit.SECONDS))
          .isEqualTo(new Ingestor.Outcome(0, 5));
    }
  }

  /** Six groups in segments of 800 bytes, the first segment's records retired; its end. */
  long retireTheFirstSegment(Ingestor.Options small) throws Exception {
    try (Ingestor in = Ingestor.open(dir, small, clock::get)) {
      for (int g = 0; g < 6; g++) {
        in.submit(IngestorTest.docs("d", g * 5, g * 5 + 5)).get(10, TimeUnit.SECONDS);
      }
      IngestorTest.readAll(in.log(), 0);
      long end = in.log().committedEnd();
      in.replayFrom(end);
      in.log().retain(end, clock.get() - small.horizonMs(), (h, l, ms) -> {});
      assertThat(in.log().start()).isGreaterThan(0);
      assertThat(dir.resolve(IngestLog.name(0) + ".log")).doesNotExist();
      return end;
    }
  }

  @Test
  void missingIdsWithinTheHorizonRefuseTheStart() throws Exception {
    Ingestor.Options small = OPTIONS.withSegmentBytes(800);
    long end = retireTheFirstSegment(small);
    Files.delete(dir.resolve(IngestLog.name(0) + ".ids"));
    assertThatThrownBy(
            () -> Ingestor.open(dir, small, clock::get, new IngestLog.Recovery(end, false)))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("the ids of the documents accepted at ingest log positions 0 to")
        .hasMessageContaining("--accept-missing-ids");
    try (Ingestor in = Ingestor.open(dir, small, clock::get, new IngestLog.Recovery(end, true))) {
      assertThat(in.log().recoveryNotices()).anySatisfy(n -> assertThat(n).contains("going on"));
    }
  }

  @Test
  void missingIdsOlderThanTheHorizonDoNotMatter() throws Exception {
    Ingestor.Options small = OPTIONS.withSegmentBytes(800);
    long end = retireTheFirstSegment(small);
    Files.delete(dir.resolve(IngestLog.name(0) + ".ids"));
    clock.addAndGet(small.horizonMs() + 1);
    try (Ingestor in = Ingestor.open(dir, small, clock::get, new IngestLog.Recovery(end, false))) {
      assertThat(in.log().recoveryNotices()).isEmpty();
    }
  }

  @Test
  void aSegmentWhoseHeaderNeverReachedTheDiskIsStartedAgain() throws Exception {
    Ingestor.Options small = OPTIONS.withSegmentBytes(800);
    long end;
    try (Ingestor in = Ingestor.open(dir, small, clock::get)) {
      for (int g = 0; g < 4; g++) {
        in.submit(IngestorTest.docs("d", g * 5, g * 5 + 5)).get(10, TimeUnit.SECONDS);
      }
      end = in.log().committedEnd();
    }
    Path seg = dir.resolve(IngestLog.name(end) + ".log");
    Files.write(seg, new byte[] {'S', 'G'}); // the crash came right after the file was created
    try (Ingestor in = Ingestor.open(dir, small, clock::get)) {
      assertThat(in.log().committedEnd()).isEqualTo(end);
      assertThat(in.submit(IngestorTest.docs("d", 18, 22)).get(10, TimeUnit.SECONDS))
          .isEqualTo(new Ingestor.Outcome(2, 2));
      assertThat(readAll(in)).hasSize(22);
    }
  }

  @Test
  void aMissingSegmentTheCheckpointHasNotCountedRefusesTheStart() throws Exception {
    Ingestor.Options small = OPTIONS.withSegmentBytes(800);
    try (Ingestor in = Ingestor.open(dir, small, clock::get)) {
      for (int g = 0; g < 8; g++) {
        in.submit(IngestorTest.docs("d", g * 5, g * 5 + 5)).get(10, TimeUnit.SECONDS);
      }
    }
    List<Path> logs;
    try (Stream<Path> files = Files.list(dir)) {
      logs = files.filter(p -> p.toString().endsWith(".log")).sorted().toList();
    }
    assertThat(logs.size()).isGreaterThan(2);
    Path middle = logs.get(1);
    Files.delete(middle);
    Files.delete(middle.resolveSibling(middle.getFileName().toString().replace(".log", ".ids")));
    assertThatThrownBy(() -> open(0))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("are missing from " + dir)
        .hasMessageContaining("the standing queries have not counted them yet")
        .hasMessageContaining("restore the missing segment files");
  }

  @Test
  void aLogThatIsGoneUnderACheckpointRefusesTheStartAndCreatesNothing() throws Exception {
    Path gone = dir.resolve("ingest");
    assertThatThrownBy(
            () -> Ingestor.open(gone, OPTIONS, clock::get, new IngestLog.Recovery(500, false)))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("is gone (no segment file)")
        .hasMessageContaining("checkpoint is at position 500");
    assertThat(gone).doesNotExist();
    Files.createDirectories(gone);
    assertThatThrownBy(
            () -> Ingestor.open(gone, OPTIONS, clock::get, new IngestLog.Recovery(500, false)))
        .hasMessageContaining("is gone");
    try (Stream<Path> files = Files.list(gone)) {
      assertThat(files).isEmpty();
    }
  }

  @Test
  void theEvidenceOfCheckpointsIsInTheLog() throws Exception {
    assertThat(IngestLog.checkpointEvidence(dir)).isNull();
    try (Ingestor in = open()) {
      in.submit(IngestorTest.docs("d", 0, 3)).get(10, TimeUnit.SECONDS);
      assertThat(IngestLog.checkpointEvidence(dir)).isNull();
      in.replayFrom(in.log().committedEnd());
    }
    assertThat(IngestLog.checkpointEvidence(dir)).contains("records a checkpoint at position");
  }
}
