package io.spyglass.sources.ingest;

import static io.spyglass.sources.ingest.IngestLogFormat.HEADER;
import static io.spyglass.sources.ingest.IngestLogFormat.HOLE_HEADER;
import static io.spyglass.sources.ingest.IngestLogFormat.HOLE_TAG;
import static io.spyglass.sources.ingest.IngestLogFormat.MARKER;
import static io.spyglass.sources.ingest.IngestLogFormat.MARKER_TAG;
import static io.spyglass.sources.ingest.IngestLogFormat.PAYLOAD_FIXED;
import static io.spyglass.sources.ingest.IngestLogFormat.RECORD_HEADER;

import io.spyglass.sources.RawBatch;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import java.util.zip.CRC32C;

/**
 * Follows an ingest log folder from its files alone, as another process (or a Flink job) may: the
 * documents of every committed group from a position on, as the writer appends them, without the
 * writer's help. A group is committed once its commit marker is on the disk (version 2 segments);
 * records after the last valid marker (a group being written, or a torn write that recovery will
 * cut) are not read until their marker is there. A version 1 segment (no markers) is read once a
 * later segment exists (the writer seals it at opening). Holes (damage dropped by recovery) are
 * skipped; positions are the log's own, so a position read here is one the engine knows too.
 *
 * <p>It reads the files as they are: the writer must have opened (recovered) the log before (the
 * service does at its start). A follower in the writer's process is given the writer's committed
 * end, and reads nothing beyond it: a group whose bytes reached the file but whose {@code fsync}
 * failed (the writer answers 503 and cuts it off) is then never read. A follower without it (in
 * another process) could read such a group in the moment before the writer cuts it. One thread at a
 * time.
 */
public final class IngestLogFollower implements Closeable {
  /** How far one call looks ahead for commit markers. */
  private static final int SCAN_BYTES = 4 << 20;

  private final Path dir;
  private final LongSupplier committedEnd;
  private long position;

  /** The position up to which entries are known to be committed; at least {@link #position}. */
  private long verified;

  private long segBase = -1;
  private int segVersion;
  private FileChannel ch;

  private byte[] win = new byte[1 << 20];
  private long winStart = -1; // a position
  private int winLen;

  /**
   * A follower of the log in {@code dir} from {@code position} (the start of an entry: a position
   * the log's writer or a follower gave).
   */
  public IngestLogFollower(Path dir, long position) {
    this(dir, position, () -> Long.MAX_VALUE);
  }

  /**
   * As {@link #IngestLogFollower(Path, long)}, reading nothing at or beyond {@code committedEnd}
   * (the writer's committed end, where the writer runs in this process).
   */
  public IngestLogFollower(Path dir, long position, LongSupplier committedEnd) {
    this.dir = dir;
    this.position = position;
    this.verified = position;
    this.committedEnd = committedEnd;
  }

  /** The position after the last document read: where a restart reads on from. */
  public long position() {
    return position;
  }

  /**
   * The first position the log in {@code dir} still holds records from (the base of its first
   * segment with records); 0 for a log without segments (or no folder).
   */
  public static long start(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return 0;
    }
    for (Map.Entry<Long, boolean[]> e : IngestLogFormat.segmentFiles(dir).entrySet()) {
      if (e.getValue()[0]) {
        return e.getKey();
      }
    }
    return 0;
  }

  /**
   * The position after the last committed group of the log in {@code dir} (what its writer calls
   * its committed end): reads its last segment through.
   */
  public static long committedEnd(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return 0;
    }
    TreeMap<Long, boolean[]> files = IngestLogFormat.segmentFiles(dir);
    Long last = null;
    for (Map.Entry<Long, boolean[]> e : files.descendingMap().entrySet()) {
      if (e.getValue()[0]) {
        last = e.getKey();
        break;
      }
    }
    if (last == null) {
      return 0;
    }
    try (IngestLogFollower f = new IngestLogFollower(dir, last)) {
      while (f.advance()) {
        f.position = f.verified;
      }
      return f.position;
    }
  }

  /**
   * Appends to {@code batch} up to {@code max} committed documents that start before {@code limit}
   * (a position; {@link Long#MAX_VALUE} for no limit); returns how many.
   *
   * @throws IOException when a file cannot be read, or the log no longer holds the position (its
   *     segment was retired)
   */
  public int read(RawBatch batch, int max, long limit) throws IOException {
    int n = 0;
    while (n < max && position < limit) {
      if (position >= verified && !advance()) {
        break;
      }
      if (!ensure(position, 4)) {
        break;
      }
      int len = intAt(position);
      if (len >= 0) {
        if (!ensure(position, RECORD_HEADER + len)) {
          break;
        }
        int at = (int) (position - winStart);
        int idLen = intAt(position + RECORD_HEADER + 24);
        int docLen = len - PAYLOAD_FIXED - idLen;
        batch.add(win, at + RECORD_HEADER + PAYLOAD_FIXED + idLen, docLen);
        position += RECORD_HEADER + len;
        n++;
      } else if (len == MARKER_TAG) {
        position += MARKER;
      } else {
        ensure(position, 16);
        position += longAt(position + 8);
      }
    }
    return n;
  }

  /** Moves {@link #verified} past the next committed group, when there is one; false if none. */
  private boolean advance() throws IOException {
    for (int segments = 0; segments < 1_000; segments++) {
      if (!openSegmentFor(position)) {
        return false;
      }
      if (scan()) {
        return true;
      }
      winStart = -1; // bytes after the last marker may still change: read them again next time
      TreeMap<Long, boolean[]> files = IngestLogFormat.segmentFiles(dir);
      boolean[] next = files.get(position);
      if (position > segBase && next != null && next[0]) {
        closeChannel(); // this segment ends here: the next one starts at this position
        continue;
      }
      return false;
    }
    return false;
  }

  /** Scans from {@link #position} for committed entries; true when some were found. */
  private boolean scan() throws IOException {
    long p = position;
    long scanEnd = position + SCAN_BYTES;
    boolean sealedV1 = false;
    if (segVersion == IngestLogFormat.V1) {
      sealedV1 = IngestLogFormat.segmentFiles(dir).higherKey(segBase) != null;
      if (!sealedV1) {
        return false;
      }
    }
    while (p < scanEnd) {
      if (!ensure(p, 4)) {
        break;
      }
      int len = intAt(p);
      if (len >= 0) {
        if (len < PAYLOAD_FIXED || !ensure(p, RECORD_HEADER + len)) {
          break;
        }
        int at = (int) (p - winStart);
        CRC32C c = new CRC32C();
        c.update(win, at + RECORD_HEADER, len);
        if ((int) c.getValue() != intAt(p + 4)) {
          break;
        }
        int idLen = intAt(p + RECORD_HEADER + 24);
        if (idLen < 0 || idLen > len - PAYLOAD_FIXED) {
          break;
        }
        p += RECORD_HEADER + len;
        if (sealedV1) {
          verified = p;
        }
      } else if (len == MARKER_TAG && segVersion >= IngestLogFormat.V2) {
        if (!ensure(p, MARKER)) {
          break;
        }
        int at = (int) (p - winStart);
        if (!Arrays.equals(win, at + 4, at + 8, IngestLogFormat.MARKER_MAGIC, 0, 4)
            || IngestLogFormat.crc(win, at, MARKER - 4) != intAt(p + MARKER - 4)
            || longAt(p + 16) != p + MARKER) {
          break;
        }
        p += MARKER;
        verified = p;
      } else if (len == HOLE_TAG) {
        if (!ensure(p, HOLE_HEADER)) {
          break;
        }
        int at = (int) (p - winStart);
        long size = longAt(p + 8);
        if (!Arrays.equals(win, at + 4, at + 8, IngestLogFormat.HOLE_MAGIC, 0, 4)
            || size < HOLE_HEADER) {
          break;
        }
        p += size; // written by recovery in place of acknowledged bytes: committed
        verified = p;
      } else {
        break;
      }
    }
    return verified > position;
  }

  /**
   * Opens the segment that holds {@code pos} (the last one starting at or before it); false when
   * the log has no segment yet, or the segment's header is not on the disk yet.
   */
  private boolean openSegmentFor(long pos) throws IOException {
    if (ch != null && pos >= segBase) {
      return true; // the segment read last: a later one is looked for once this one has no more
    }
    if (!Files.isDirectory(dir)) {
      return false;
    }
    TreeMap<Long, boolean[]> files = IngestLogFormat.segmentFiles(dir);
    Long base = null;
    Long first = null;
    for (Map.Entry<Long, boolean[]> e : files.entrySet()) {
      if (!e.getValue()[0]) {
        continue;
      }
      if (first == null) {
        first = e.getKey();
      }
      if (e.getKey() <= pos) {
        base = e.getKey();
      }
    }
    if (first == null) {
      return false;
    }
    if (base == null) {
      throw new IOException(
          "the ingest log in "
              + dir
              + " no longer holds position "
              + pos
              + ": it starts at "
              + first
              + " (the records before were retired)");
    }
    if (ch != null && base == segBase) {
      return true;
    }
    closeChannel();
    Path file = dir.resolve(IngestLogFormat.name(base) + ".log");
    FileChannel c;
    try {
      c = FileChannel.open(file, StandardOpenOption.READ);
    } catch (NoSuchFileException e) {
      throw new IOException(
          "the ingest log in "
              + dir
              + " no longer holds position "
              + pos
              + ": "
              + file
              + " is gone",
          e);
    }
    ByteBuffer h = ByteBuffer.allocate(HEADER);
    while (h.hasRemaining() && c.read(h, h.position()) > 0) {}
    if (h.hasRemaining()) {
      c.close();
      return false; // created, its header not written yet
    }
    if (!Arrays.equals(h.array(), 0, 4, IngestLogFormat.LOG_MAGIC, 0, 4)
        || h.getLong(8) != base
        || (h.get(4) != IngestLogFormat.V1 && h.get(4) != IngestLogFormat.V2)) {
      c.close();
      throw new IOException(
          file + " is not an ingest log segment of a version this Spyglass reads (1 or 2)");
    }
    ch = c;
    segBase = base;
    segVersion = h.get(4);
    winStart = -1;
    return true;
  }

  /** Makes positions {@code [pos, pos + len)} of the segment readable in the window. */
  private boolean ensure(long pos, int len) throws IOException {
    if (winStart >= 0 && pos >= winStart && pos + len <= winStart + winLen) {
      return true;
    }
    if (len > win.length) {
      win = new byte[Math.max(len, win.length * 2)];
    }
    ByteBuffer b = ByteBuffer.wrap(win);
    long fileAt = HEADER + (pos - segBase);
    while (b.hasRemaining()) {
      int n = ch.read(b, fileAt + b.position());
      if (n <= 0) {
        break;
      }
    }
    winStart = pos;
    // never the bytes beyond the writer's committed end: they may still be cut and written again
    winLen = (int) Math.min(b.position(), Math.max(0, committedEnd.getAsLong() - pos));
    return winLen >= len;
  }

  private int intAt(long pos) {
    int at = (int) (pos - winStart);
    return ((win[at] & 0xFF) << 24)
        | ((win[at + 1] & 0xFF) << 16)
        | ((win[at + 2] & 0xFF) << 8)
        | (win[at + 3] & 0xFF);
  }

  private long longAt(long pos) {
    return ((long) intAt(pos) << 32) | (intAt(pos + 4) & 0xFFFFFFFFL);
  }

  private void closeChannel() throws IOException {
    if (ch != null) {
      ch.close();
      ch = null;
      segBase = -1;
    }
  }

  @Override
  public void close() throws IOException {
    closeChannel();
  }
}
