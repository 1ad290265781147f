package io.spyglass.sources.ingest;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.TreeMap;
import java.util.zip.CRC32C;

/**
 * The ingest log's layout on disk, as its writer (the embedded engine's {@code IngestLog}) and its
 * readers (the engine, and the Flink job through {@link IngestLogFollower}) share it. The layout
 * itself is described in the Javadoc of {@code io.spyglass.engine.ingest.IngestLog}: segment files
 * {@code NNNNNNNNNNNNNNNNNNNN.log} (their base position, 20 digits) of records, commit markers
 * (version 2) and holes; ids files {@code NNNNNNNNNNNNNNNNNNNN.ids}; a manifest.
 */
public final class IngestLogFormat {
  private IngestLogFormat() {}

  public static final byte[] LOG_MAGIC = {'S', 'G', 'I', 'L'};
  public static final byte[] IDS_MAGIC = {'S', 'G', 'I', 'D'};

  /** Segments of records only: what was acknowledged is not recorded. Read, no longer written. */
  public static final int V1 = 1;

  /** Segments whose every group ends with a commit marker; holes stand for quarantined bytes. */
  public static final int V2 = 2;

  /** The version new segments are written in. */
  public static final int CURRENT = V2;

  /** A segment's header: magic, version, three zero bytes, base position. */
  public static final int HEADER = 16;

  /** A record's header: its payload's length, the payload's CRC32C. */
  public static final int RECORD_HEADER = 8;

  /** A payload's fixed part: accepted at (8), id hash (16), id length (4). */
  public static final int PAYLOAD_FIXED = 8 + 16 + 4;

  /** The length field of a commit marker, where a record has its payload's length. */
  public static final int MARKER_TAG = -1;

  public static final byte[] MARKER_MAGIC = {'S', 'G', 'C', 'M'};

  /** A commit marker's size. */
  public static final int MARKER = 32;

  /** The length field of a hole. */
  public static final int HOLE_TAG = -2;

  public static final byte[] HOLE_MAGIC = {'S', 'G', 'H', 'O'};

  /** A hole's header, before the ids it remembers. */
  public static final int HOLE_HEADER = 28;

  /** The file name of the segment at {@code base}, without its extension. */
  public static String name(long base) {
    return String.format("%020d", base);
  }

  /** CRC32C of {@code len} bytes of {@code b} from {@code off}. */
  public static int crc(byte[] b, int off, int len) {
    CRC32C c = new CRC32C();
    c.update(b, off, len);
    return (int) c.getValue();
  }

  /**
   * The segment files in {@code dir}, by base position: whether each has its {@code .log} (index 0)
   * and its {@code .ids} (index 1).
   */
  public static TreeMap<Long, boolean[]> segmentFiles(Path dir) throws IOException {
    TreeMap<Long, boolean[]> files = new TreeMap<>();
    try (DirectoryStream<Path> list = Files.newDirectoryStream(dir)) {
      for (Path p : list) {
        String f = p.getFileName().toString();
        if (f.length() == 24 && f.matches("\\d{20}\\.(log|ids)")) {
          boolean[] has =
              files.computeIfAbsent(Long.parseLong(f.substring(0, 20)), k -> new boolean[2]);
          has[f.endsWith(".log") ? 0 : 1] = true;
        }
      }
    }
    return files;
  }
}
