package io.spyglass.engine.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spyglass.sources.RawBatch;
import io.spyglass.sources.ingest.IngestLogFollower;
import io.spyglass.sources.ingest.IngestLogFormat;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ingest log read from its files alone ({@link IngestLogFollower}, what the Flink job reads),
 * against the engine's own writer and the golden files: the same documents at the same positions as
 * the engine's reader, committed groups only, across segments, holes and versions.
 */
class IngestLogFollowerTest {
  @TempDir Path dir;

  private static final Ingestor.Options SMALL = IngestLogFormatTest.OPTIONS;

  static List<String> readAll(IngestLogFollower f, long limit) throws IOException {
    List<String> out = new ArrayList<>();
    RawBatch b = new RawBatch();
    while (true) {
      b.clear();
      int n = f.read(b, 2, limit);
      if (n == 0) {
        return out;
      }
      for (int i = 0; i < b.size(); i++) {
        out.add(new String(b.data(), b.start(i), b.length(i), StandardCharsets.UTF_8));
      }
    }
  }

  @Test
  void followsTheWriterAcrossSegmentsAtTheEnginesPositions() throws Exception {
    AtomicLong clock = new AtomicLong(IngestLogFormatTest.START_MS);
    List<String> written = new ArrayList<>();
    try (Ingestor in = Ingestor.open(dir, SMALL, clock::get);
        IngestLogFollower f = new IngestLogFollower(dir, 0)) {
      assertThat(readAll(f, Long.MAX_VALUE)).isEmpty();
      for (int g = 0; g < 6; g++) {
        in.submit(IngestLogFormatTest.group(g)).get(10, TimeUnit.SECONDS);
        for (Ingestor.Doc d : IngestLogFormatTest.group(g)) {
          written.add(new String(d.data(), StandardCharsets.UTF_8));
        }
        assertThat(readAll(f, Long.MAX_VALUE)).isEqualTo(written.subList(g * 3, g * 3 + 3));
        assertThat(f.position()).isEqualTo(in.log().committedEnd());
        assertThat(IngestLogFollower.committedEnd(dir)).isEqualTo(in.log().committedEnd());
      }
      assertThat(IngestLogFormat.segmentFiles(dir)).hasSizeGreaterThan(2);
      // from a position the engine's reader gives, the same documents as the engine reads
      IngestLog.Reader r = in.log().reader(0);
      RawBatch b = new RawBatch();
      r.read(b, 4);
      try (IngestLogFollower from = new IngestLogFollower(dir, r.position())) {
        assertThat(readAll(from, Long.MAX_VALUE)).isEqualTo(written.subList(4, written.size()));
      }
      r.close();
    }
  }

  @Test
  void aGroupWithoutItsCommitMarkerIsNotRead() throws Exception {
    try (Ingestor in = Ingestor.open(dir, SMALL, () -> IngestLogFormatTest.START_MS);
        IngestLogFollower f = new IngestLogFollower(dir, 0)) {
      in.submit(IngestLogFormatTest.group(0)).get(10, TimeUnit.SECONDS);
      assertThat(readAll(f, Long.MAX_VALUE)).hasSize(3);
      // a record written after the last marker (a group being written, or a torn write)
      Path active = dir.resolve(IngestLog.name(0) + ".log");
      byte[] doc = "{\"id\":\"torn\"}".getBytes(StandardCharsets.UTF_8);
      byte[] id = "torn".getBytes(StandardCharsets.UTF_8);
      int len = LogFormat.PAYLOAD_FIXED + id.length + doc.length;
      ByteBuffer rec = ByteBuffer.allocate(LogFormat.RECORD_HEADER + len);
      rec.putInt(len).putInt(0).putLong(1).putLong(2).putLong(3).putInt(id.length).put(id).put(doc);
      CRC32C c = new CRC32C();
      c.update(rec.array(), LogFormat.RECORD_HEADER, len);
      rec.putInt(4, (int) c.getValue()).flip();
      try (FileChannel ch = FileChannel.open(active, StandardOpenOption.WRITE)) {
        ch.write(rec, ch.size());
      }
      assertThat(readAll(f, Long.MAX_VALUE)).isEmpty();
      assertThat(f.position()).isEqualTo(in.log().committedEnd());
    }
  }

  @Test
  void givenTheWritersCommittedEndAGroupWhoseSyncFailedIsNeverRead() throws Exception {
    try (Ingestor in = Ingestor.open(dir, SMALL, () -> IngestLogFormatTest.START_MS);
        IngestLogFollower bounded = new IngestLogFollower(dir, 0, in.log()::committedEnd);
        IngestLogFollower unbounded = new IngestLogFollower(dir, 0)) {
      in.submit(IngestLogFormatTest.group(0)).get(10, TimeUnit.SECONDS);
      long end = in.log().committedEnd();
      // a whole group with its marker in the file, which the writer did not acknowledge (its
      // fsync failed: the writer cuts it off and answers 503)
      byte[] doc = "{\"id\":\"unsynced\"}".getBytes(StandardCharsets.UTF_8);
      byte[] id = "unsynced".getBytes(StandardCharsets.UTF_8);
      int len = LogFormat.PAYLOAD_FIXED + id.length + doc.length;
      ByteBuffer g = ByteBuffer.allocate(LogFormat.RECORD_HEADER + len + LogFormat.MARKER);
      g.putInt(len).putInt(0).putLong(1).putLong(2).putLong(3).putInt(id.length).put(id).put(doc);
      CRC32C c = new CRC32C();
      c.update(g.array(), LogFormat.RECORD_HEADER, len);
      g.putInt(4, (int) c.getValue());
      LogFormat.putMarker(g, end, end + g.capacity(), 1);
      g.flip();
      Path active = dir.resolve(IngestLog.name(0) + ".log");
      try (FileChannel ch = FileChannel.open(active, StandardOpenOption.WRITE)) {
        ch.write(g, ch.size());
      }
      assertThat(readAll(bounded, Long.MAX_VALUE)).hasSize(3);
      assertThat(bounded.position()).isEqualTo(end);
      // a follower in another process cannot tell: it reads the group in the moment before the
      // writer cuts it
      assertThat(readAll(unbounded, Long.MAX_VALUE)).hasSize(4);
    }
  }

  @Test
  void readsNoDocumentAtOrAfterTheLimit() throws Exception {
    try (Ingestor in = Ingestor.open(dir, SMALL, () -> IngestLogFormatTest.START_MS);
        IngestLogFollower f = new IngestLogFollower(dir, 0)) {
      in.submit(IngestLogFormatTest.group(0)).get(10, TimeUnit.SECONDS);
      long cut = in.log().committedEnd();
      in.submit(IngestLogFormatTest.group(1)).get(10, TimeUnit.SECONDS);
      assertThat(readAll(f, cut)).hasSize(3);
      assertThat(f.position()).isEqualTo(cut);
      assertThat(readAll(f, Long.MAX_VALUE)).hasSize(3);
    }
  }

  @Test
  void theGoldenLogsReadTheSameOnceTheWriterOpenedThem() throws Exception {
    String[][] goldens = {
      {"v1", "00000000000000000225", "00000000000000000450"},
      {"v2", "00000000000000000257", "00000000000000000514"},
      {"v2-ids2", "00000000000000000257", "00000000000000000514"}
    };
    for (String[] g : goldens) {
      Path into = dir.resolve(g[0]);
      IngestLogFormatTest.copy(g[0], g[1], g[2], into);
      try (Ingestor in = Ingestor.open(into, SMALL, () -> IngestLogFormatTest.START_MS);
          IngestLogFollower f = new IngestLogFollower(into, 0)) {
        assertThat(readAll(f, Long.MAX_VALUE)).as(g[0]).isEqualTo(IngestLogFormatTest.documents());
        assertThat(f.position()).as(g[0]).isEqualTo(in.log().committedEnd());
      }
    }
  }

  @Test
  void aHoleRecoveryLeftInPlaceOfDamageIsSkipped() throws Exception {
    IngestLogFormatTest.copy("v1", "00000000000000000225", "00000000000000000450", dir);
    Path last = dir.resolve("00000000000000000450.log");
    byte[] b = Files.readAllBytes(last);
    String text = new String(b, StandardCharsets.ISO_8859_1);
    b[text.indexOf("{\"id\":\"g-7\"") + 14] ^= 1;
    Files.write(last, b);
    try (Ingestor in = Ingestor.open(dir, SMALL, () -> IngestLogFormatTest.START_MS);
        IngestLogFollower f = new IngestLogFollower(dir, 0)) {
      assertThat(in.log().recoveryNotices()).singleElement().asString().contains("g-7");
      List<String> docs = new ArrayList<>(IngestLogFormatTest.documents());
      docs.remove(7);
      assertThat(readAll(f, Long.MAX_VALUE)).isEqualTo(docs);
      assertThat(f.position()).isEqualTo(in.log().committedEnd());
    }
  }

  @Test
  void aRetiredPositionIsRefusedWithWhereTheLogStarts() throws Exception {
    Path into = dir.resolve("retired");
    Files.createDirectories(into);
    try (var files = Files.list(IngestLogFormatTest.golden("v2-retired"))) {
      for (Path p : files.toList()) {
        Files.copy(p, into.resolve(p.getFileName()));
      }
    }
    long start = IngestLogFollower.start(into);
    assertThat(start).isEqualTo(514);
    try (IngestLogFollower f = new IngestLogFollower(into, 0)) {
      assertThatThrownBy(() -> f.read(new RawBatch(), 10, Long.MAX_VALUE))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("no longer holds position 0")
          .hasMessageContaining("starts at 514");
    }
    try (IngestLogFollower f = new IngestLogFollower(into, start)) {
      assertThat(readAll(f, Long.MAX_VALUE))
          .isEqualTo(IngestLogFormatTest.documents().subList(6, 9));
    }
  }
}
