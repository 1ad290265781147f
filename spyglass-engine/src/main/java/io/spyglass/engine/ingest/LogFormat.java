package io.spyglass.engine.ingest;

import io.spyglass.sources.ingest.IngestLogFormat;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.TreeMap;
import java.util.zip.CRC32C;

/**
 * The ingest log's bytes on disk (described in {@link IngestLog}): constants (shared with the log's
 * readers outside the engine: {@link IngestLogFormat}), and the commit markers and holes of version
 * 2.
 */
final class LogFormat {
  private LogFormat() {}

  static final byte[] LOG_MAGIC = IngestLogFormat.LOG_MAGIC;
  static final byte[] IDS_MAGIC = IngestLogFormat.IDS_MAGIC;

  /** Segments of records only: what was acknowledged is not recorded. Read, no longer written. */
  static final int V1 = IngestLogFormat.V1;

  /** Segments whose every group ends with a commit marker; holes stand for quarantined bytes. */
  static final int V2 = IngestLogFormat.V2;

  /** The version new segments are written in. */
  static final int CURRENT = IngestLogFormat.CURRENT;

  /**
   * Ids files whose checksum covers their entries only (not their count and size). Read, no longer
   * written.
   */
  static final int IDS_V1 = 1;

  /** Ids files whose checksum covers their header (count, size) and their entries. */
  static final int IDS_V2 = 2;

  /** The version ids files are written in. */
  static final int IDS_VERSION = IDS_V2;

  static final int HEADER = IngestLogFormat.HEADER;
  static final int RECORD_HEADER = IngestLogFormat.RECORD_HEADER;
  static final int PAYLOAD_FIXED = IngestLogFormat.PAYLOAD_FIXED;

  /** The length field of a commit marker, where a record has its payload's length. */
  static final int MARKER_TAG = IngestLogFormat.MARKER_TAG;

  static final byte[] MARKER_MAGIC = IngestLogFormat.MARKER_MAGIC;
  static final int MARKER = IngestLogFormat.MARKER;

  /** The length field of a hole. */
  static final int HOLE_TAG = IngestLogFormat.HOLE_TAG;

  static final byte[] HOLE_MAGIC = IngestLogFormat.HOLE_MAGIC;
  static final int HOLE_HEADER = IngestLogFormat.HOLE_HEADER;

  /** An id in an ids file or a hole: hash (16 bytes), accepted at (8). */
  static final int ID_ENTRY = 24;

  static final int IDS_HEADER = 28;

  /** The first 8 bytes of every commit marker: what recovery looks for after damage. */
  static final byte[] MARKER_START = {
    (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 'S', 'G', 'C', 'M'
  };

  /**
   * Puts a commit marker at {@code b}'s position: the group it ends starts at position {@code
   * first}, the marker ends at {@code end}, and the group holds {@code documents} records.
   */
  static void putMarker(ByteBuffer b, long first, long end, int documents) {
    int at = b.position();
    b.putInt(MARKER_TAG).put(MARKER_MAGIC).putLong(first).putLong(end).putInt(documents);
    b.putInt(crc(b.array(), b.arrayOffset() + at, MARKER - 4));
  }

  /**
   * The first bytes of a hole of {@code size} bytes that stands for {@code documents} records, and
   * remembers {@code remembered} ids (hash high, low, accepted at; three longs each); the rest of
   * the hole is zeros.
   */
  static byte[] hole(long size, int documents, long[] remembered) {
    int m = remembered.length / 3;
    ByteBuffer b = ByteBuffer.allocate(HOLE_HEADER + m * ID_ENTRY);
    b.putInt(HOLE_TAG).put(HOLE_MAGIC).putLong(size).putInt(documents).putInt(m).putInt(0);
    for (int i = 0; i < m; i++) {
      b.putLong(remembered[i * 3]).putLong(remembered[i * 3 + 1]).putLong(remembered[i * 3 + 2]);
    }
    CRC32C c = new CRC32C();
    c.update(b.array(), 0, HOLE_HEADER - 4);
    c.update(b.array(), HOLE_HEADER, m * ID_ENTRY);
    b.putInt(HOLE_HEADER - 4, (int) c.getValue());
    return b.array();
  }

  static int crc(byte[] b, int off, int len) {
    CRC32C c = new CRC32C();
    c.update(b, off, len);
    return (int) c.getValue();
  }

  static String name(long base) {
    return IngestLogFormat.name(base);
  }

  /**
   * The segment files in {@code dir}, by base position: whether each has its {@code .log} (index 0)
   * and its {@code .ids} (index 1).
   */
  static TreeMap<Long, boolean[]> segmentFiles(Path dir) throws IOException {
    return IngestLogFormat.segmentFiles(dir);
  }

  /**
   * Writes {@code bytes} as the whole of {@code file}, atomically: into a file beside it, forced to
   * the disk, then moved over it, and the folder synced. A crash leaves the old file or the new.
   */
  static void writeAtomically(Path file, ByteBuffer bytes) throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    try {
      try (FileChannel ch =
          FileChannel.open(
              tmp,
              StandardOpenOption.CREATE,
              StandardOpenOption.TRUNCATE_EXISTING,
              StandardOpenOption.WRITE)) {
        while (bytes.hasRemaining()) {
          ch.write(bytes);
        }
        ch.force(true);
      }
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException | RuntimeException e) {
      try {
        Files.deleteIfExists(tmp); // a full disk leaves no half-written file behind
      } catch (IOException again) {
        e.addSuppressed(again);
      }
      throw e;
    }
    syncDir(file.getParent());
  }

  /** Forces a folder's entries (files created, moved) to the disk, where the file system can. */
  static void syncDir(Path dir) {
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    } catch (IOException e) {
      // some file systems cannot sync a folder; the files themselves are forced
    }
  }
}
