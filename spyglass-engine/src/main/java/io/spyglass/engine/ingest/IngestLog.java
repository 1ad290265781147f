package io.spyglass.engine.ingest;

import io.spyglass.engine.source.RawBatch;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ingest log: every accepted document, in the order accepted, in segment files under one
 * folder. A position (offset) is a byte count over the records of all segments, from 0 for the
 * first record ever written; it never goes back. What a reader may see ends at {@link
 * #committedEnd()}: records written and forced to the disk. A group of records is appended and
 * forced at once ({@link #commitGroup}), so that many requests share one {@code fsync}.
 *
 * <pre>
 * segment file NNNNNNNNNNNNNNNNNNNN.log (its base position, 20 digits):
 *   header: 'S' 'G' 'I' 'L', version 1, three zero bytes, base position (8 bytes, big-endian)
 *   records: payload length (4 bytes), CRC32C of the payload (4 bytes), payload:
 *     accepted at (epoch ms, 8 bytes), id hash (16 bytes), id length (4 bytes), id (UTF-8),
 *     the document (JSON, the rest of the payload)
 * ids file NNNNNNNNNNNNNNNNNNNN.ids, written when a segment is sealed:
 *   'S' 'G' 'I' 'D', version 1, three zero bytes, count (8 bytes), the segment's size in bytes
 *   after its header (8 bytes), CRC32C of the entries (4 bytes), then per record: id hash (16
 *   bytes), accepted at (8 bytes)
 * </pre>
 *
 * <p>Opening recovers: a torn record at the end of the last segment (a crash while a group was
 * written, before it was acknowledged) is cut off; anything else that does not read is an error
 * that says which file. Sealed segments no longer needed for replay lose their {@code .log}; their
 * {@code .ids} stay until every id in them is older than the horizon.
 *
 * <p>Writing ({@code append}, {@code commitGroup}, {@code abortGroup}, {@code retain}) is for one
 * thread at a time; readers and {@link #committedEnd()} for any thread.
 */
public final class IngestLog implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(IngestLog.class);
  static final byte[] LOG_MAGIC = {'S', 'G', 'I', 'L'};
  static final byte[] IDS_MAGIC = {'S', 'G', 'I', 'D'};
  static final int VERSION = 1;
  static final int HEADER = 16;
  static final int RECORD_HEADER = 8;
  static final int PAYLOAD_FIXED = 8 + 16 + 4;

  /** A segment: its data are the bytes after the header, {@code size} of them committed. */
  private static final class Segment {
    final long base;
    final Path log;
    final Path ids;
    volatile long size;
    boolean sealed;
    boolean logDeleted;
    long newestMs = Long.MIN_VALUE;

    Segment(Path dir, long base) {
      this.base = base;
      this.log = dir.resolve(name(base) + ".log");
      this.ids = dir.resolve(name(base) + ".ids");
    }

    long end() {
      return base + size;
    }
  }

  private final Path dir;
  private final long segmentBytes;
  private final TreeMap<Long, Segment> segments = new TreeMap<>();
  private Segment active;
  private FileChannel channel;
  private long[] activeIds = new long[3 * 1024];
  private int activeIdCount;
  private ByteBuffer group = ByteBuffer.allocate(1 << 20);
  private final List<long[]> groupIds = new ArrayList<>();
  private volatile long committedEnd;
  private volatile long readPosition;
  private final Object committed = new Object();
  private final CRC32C crc = new CRC32C();

  private IngestLog(Path dir, long segmentBytes) {
    this.dir = dir;
    this.segmentBytes = segmentBytes;
  }

  static String name(long base) {
    return String.format("%020d", base);
  }

  /**
   * Opens the log in {@code dir} (created if needed) and recovers it; the ids it holds that were
   * accepted at {@code sinceMs} or later go into {@code ids}.
   *
   * @param segmentBytes about how large a segment grows before the next one starts
   * @throws IOException when a file cannot be read or is damaged beyond a torn last record
   */
  static IngestLog open(Path dir, long segmentBytes, IdIndex ids, long sinceMs) throws IOException {
    Files.createDirectories(dir);
    IngestLog log = new IngestLog(dir, segmentBytes);
    log.recover(ids, sinceMs);
    return log;
  }

  private void recover(IdIndex ids, long sinceMs) throws IOException {
    TreeMap<Long, Boolean> bases = new TreeMap<>();
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
      for (Path p : files) {
        String f = p.getFileName().toString();
        if (f.matches("\\d{20}\\.(log|ids)")) {
          bases.merge(Long.parseLong(f.substring(0, 20)), f.endsWith(".log"), Boolean::logicalOr);
        }
      }
    }
    for (Map.Entry<Long, Boolean> e : bases.entrySet()) {
      Segment s = new Segment(dir, e.getKey());
      s.logDeleted = !e.getValue();
      s.sealed = !e.getKey().equals(bases.lastKey()) || s.logDeleted;
      segments.put(s.base, s);
    }
    long expected = -1;
    for (Segment s : segments.values()) {
      if (expected >= 0 && s.base != expected) {
        throw new IOException(
            "the ingest log in "
                + dir
                + " has a gap before "
                + s.log.getFileName()
                + " (the previous segment ends at "
                + expected
                + "); restore the missing segment, or move the folder away to start afresh");
      }
      boolean idsRead = s.sealed && readIds(s, ids, sinceMs);
      if (!idsRead) {
        if (s.logDeleted) {
          throw new IOException(
              "the ingest log's ids file " + s.ids + " is damaged and its segment is gone");
        }
        scan(s, ids, sinceMs, s == segments.lastEntry().getValue());
      }
      expected = s.end();
    }
    if (segments.isEmpty()) {
      startSegment(0);
    } else {
      Segment last = segments.lastEntry().getValue();
      if (last.sealed) {
        startSegment(last.end());
      } else {
        active = last;
        channel = FileChannel.open(last.log, StandardOpenOption.READ, StandardOpenOption.WRITE);
      }
    }
    committedEnd = active.end();
    readPosition = committedEnd;
  }

  static final int IDS_HEADER = 28;

  /** Reads a sealed segment's ids file; false when it is missing or damaged. */
  private boolean readIds(Segment s, IdIndex ids, long sinceMs) throws IOException {
    ByteBuffer b = idsFile(s);
    if (b == null) {
      return false;
    }
    long count = b.getLong(8);
    s.size = b.getLong(16);
    b.position(IDS_HEADER);
    for (long i = 0; i < count; i++) {
      long h = b.getLong();
      long l = b.getLong();
      long ms = b.getLong();
      s.newestMs = Math.max(s.newestMs, ms);
      if (ms >= sinceMs) {
        ids.put(h, l, ms);
      }
    }
    return true;
  }

  /** A segment's ids file, checked; null when it is missing or damaged. */
  private static ByteBuffer idsFile(Segment s) throws IOException {
    byte[] all;
    try {
      all = Files.readAllBytes(s.ids);
    } catch (NoSuchFileException e) {
      return null;
    }
    if (all.length < IDS_HEADER
        || !Arrays.equals(all, 0, 4, IDS_MAGIC, 0, 4)
        || all[4] != VERSION) {
      return null;
    }
    ByteBuffer b = ByteBuffer.wrap(all);
    long count = b.getLong(8);
    if (count < 0 || count * 24 != all.length - IDS_HEADER) {
      return null;
    }
    CRC32C c = new CRC32C();
    c.update(all, IDS_HEADER, all.length - IDS_HEADER);
    return (int) c.getValue() == b.getInt(24) ? b : null;
  }

  /** Writes the ids file of a sealed segment from the ids gathered for it, and forces it. */
  private void writeIds(Segment s) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(IDS_HEADER + activeIdCount * 24);
    b.put(IDS_MAGIC).put((byte) VERSION).put(new byte[3]).putLong(activeIdCount);
    b.putLong(s.size).putInt(0);
    for (int i = 0; i < activeIdCount; i++) {
      b.putLong(activeIds[i * 3]).putLong(activeIds[i * 3 + 1]).putLong(activeIds[i * 3 + 2]);
    }
    CRC32C c = new CRC32C();
    c.update(b.array(), IDS_HEADER, b.capacity() - IDS_HEADER);
    b.putInt(24, (int) c.getValue());
    b.flip();
    Path tmp = s.ids.resolveSibling(s.ids.getFileName() + ".tmp");
    try (FileChannel ch =
        FileChannel.open(
            tmp,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
      while (b.hasRemaining()) {
        ch.write(b);
      }
      ch.force(true);
    }
    Files.move(tmp, s.ids, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    syncDir();
    activeIdCount = 0;
  }

  /** Reads a segment's records, checking each; the last segment's torn end is cut off. */
  private void scan(Segment s, IdIndex ids, long sinceMs, boolean last) throws IOException {
    try (FileChannel ch =
        FileChannel.open(s.log, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      long fileSize = ch.size();
      ByteBuffer header = ByteBuffer.allocate(HEADER);
      readFully(ch, header, 0);
      header.flip();
      byte[] magic = new byte[4];
      header.get(magic);
      if (header.remaining() < 12 || !Arrays.equals(magic, LOG_MAGIC)) {
        if (last && fileSize < HEADER) {
          // created but its header never reached the disk: nothing was acknowledged in it
          ch.truncate(0);
          writeHeader(ch, s.base);
          ch.force(true);
          s.size = 0;
          return;
        }
        throw new IOException(s.log + " is not an ingest log segment (wrong magic bytes)");
      }
      int version = header.get();
      header.position(8);
      long base = header.getLong();
      if (version != VERSION || base != s.base) {
        throw new IOException(
            s.log + ": version " + version + " and base " + base + " (expected 1 and " + s.base);
      }
      long pos = HEADER;
      ByteBuffer rh = ByteBuffer.allocate(RECORD_HEADER);
      ByteBuffer payload = ByteBuffer.allocate(64 * 1024);
      String damage = null;
      while (pos < fileSize) {
        if (fileSize - pos < RECORD_HEADER) {
          damage = "a record header cut short";
          break;
        }
        rh.clear();
        readFully(ch, rh, pos);
        rh.flip();
        int len = rh.getInt();
        int sum = rh.getInt();
        if (len < PAYLOAD_FIXED || fileSize - pos - RECORD_HEADER < len) {
          damage = "a record cut short or with a wrong length";
          break;
        }
        if (payload.capacity() < len) {
          payload = ByteBuffer.allocate(Math.max(len, payload.capacity() * 2));
        }
        payload.clear().limit(len);
        readFully(ch, payload, pos + RECORD_HEADER);
        crc.reset();
        crc.update(payload.array(), 0, len);
        if ((int) crc.getValue() != sum) {
          damage = "a record whose checksum does not match";
          break;
        }
        payload.flip();
        long ms = payload.getLong();
        long h = payload.getLong();
        long l = payload.getLong();
        addActiveId(h, l, ms);
        s.newestMs = Math.max(s.newestMs, ms);
        if (ms >= sinceMs) {
          ids.put(h, l, ms);
        }
        pos += RECORD_HEADER + len;
      }
      if (damage != null) {
        if (!last) {
          throw new IOException(
              s.log
                  + " is damaged at byte "
                  + pos
                  + " ("
                  + damage
                  + ") although later segments follow; restore it from a copy");
        }
        LOG.warn(
            "ingest log {}: {} bytes after byte {} were never acknowledged ({}); cut off",
            s.log,
            fileSize - pos,
            pos,
            damage);
        ch.truncate(pos);
        ch.force(true);
      }
      s.size = pos - HEADER;
    }
    if (!last) {
      writeIds(s); // a sealed segment whose ids file was lost: written again
    }
  }

  private static void readFully(FileChannel ch, ByteBuffer b, long at) throws IOException {
    long p = at;
    while (b.hasRemaining()) {
      int n = ch.read(b, p);
      if (n < 0) {
        break;
      }
      p += n;
    }
  }

  private static void writeHeader(FileChannel ch, long base) throws IOException {
    ByteBuffer h = ByteBuffer.allocate(HEADER);
    h.put(LOG_MAGIC).put((byte) VERSION).put(new byte[3]).putLong(base).flip();
    while (h.hasRemaining()) {
      ch.write(h, h.position());
    }
  }

  private void startSegment(long base) throws IOException {
    Segment s = new Segment(dir, base);
    FileChannel ch =
        FileChannel.open(
            s.log,
            StandardOpenOption.CREATE_NEW,
            StandardOpenOption.READ,
            StandardOpenOption.WRITE);
    writeHeader(ch, base);
    ch.force(true);
    syncDir();
    synchronized (this) {
      segments.put(base, s);
    }
    active = s;
    channel = ch;
    activeIdCount = 0;
  }

  private void syncDir() {
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    } catch (IOException e) {
      // some file systems cannot sync a folder; the files themselves are forced
    }
  }

  private void addActiveId(long h, long l, long ms) {
    if (activeIdCount * 3 + 3 > activeIds.length) {
      activeIds = Arrays.copyOf(activeIds, activeIds.length * 2);
    }
    activeIds[activeIdCount * 3] = h;
    activeIds[activeIdCount * 3 + 1] = l;
    activeIds[activeIdCount * 3 + 2] = ms;
    activeIdCount++;
  }

  /** Adds a record to the group being written; it is durable once {@link #commitGroup} returns. */
  void append(long acceptedMs, long[] idHash, byte[] id, byte[] doc, int offset, int length) {
    int len = PAYLOAD_FIXED + id.length + length;
    int need = RECORD_HEADER + len;
    if (group.remaining() < need) {
      ByteBuffer bigger =
          ByteBuffer.allocate(Math.max(group.capacity() * 2, group.position() + need));
      group.flip();
      bigger.put(group);
      group = bigger;
    }
    int start = group.position();
    group.putInt(len).putInt(0);
    group.putLong(acceptedMs).putLong(idHash[0]).putLong(idHash[1]).putInt(id.length).put(id);
    group.put(doc, offset, length);
    crc.reset();
    crc.update(group.array(), start + RECORD_HEADER, len);
    group.putInt(start + 4, (int) crc.getValue());
    groupIds.add(new long[] {idHash[0], idHash[1], acceptedMs});
  }

  /** Bytes appended to the group not yet committed. */
  int groupBytes() {
    return group.position();
  }

  /**
   * Writes the group and forces it to the disk; then readers see it. On failure the segment is cut
   * back to what was committed before and the group is dropped.
   */
  void commitGroup() throws IOException {
    if (group.position() == 0) {
      return;
    }
    try {
      if (active.size > 0 && active.size + group.position() > segmentBytes) {
        seal();
      }
      group.flip();
      long at = HEADER + active.size;
      while (group.hasRemaining()) {
        at += channel.write(group, at);
      }
      channel.force(false);
    } catch (IOException | RuntimeException e) {
      abortGroup();
      try {
        channel.truncate(HEADER + active.size);
      } catch (IOException again) {
        e.addSuppressed(again);
      }
      throw e;
    }
    long written = group.limit();
    for (long[] id : groupIds) {
      addActiveId(id[0], id[1], id[2]);
      active.newestMs = Math.max(active.newestMs, id[2]);
    }
    group.clear();
    groupIds.clear();
    active.size += written;
    synchronized (committed) {
      committedEnd = active.end();
      committed.notifyAll();
    }
  }

  /** Drops the group being written. */
  void abortGroup() {
    group.clear();
    groupIds.clear();
  }

  /** Seals the active segment (its ids file written and forced) and starts the next. */
  private void seal() throws IOException {
    writeIds(active);
    channel.close();
    active.sealed = true;
    startSegment(active.end());
  }

  /**
   * Deletes what is no longer needed: the records of sealed segments that end at or before {@code
   * replayFrom} (no restart reads them again), and the ids of segments whose every id was accepted
   * before {@code sinceMs}; each such id goes to {@code expired} (hash high, low, accepted at).
   *
   * @return the segments whose files were deleted
   */
  int retain(long replayFrom, long sinceMs, IdConsumer expired) throws IOException {
    int deleted = 0;
    for (Segment s : new ArrayList<>(segments.values())) {
      if (s == active || !s.sealed || s.end() > replayFrom || s.end() > readPosition) {
        continue;
      }
      if (!s.logDeleted) {
        Files.deleteIfExists(s.log);
        syncDir();
        s.logDeleted = true;
        deleted++;
      }
      if (s.newestMs < sinceMs && s.base == segments.firstKey()) {
        ByteBuffer b = idsFile(s);
        if (b != null) {
          long count = b.getLong(8);
          b.position(IDS_HEADER);
          for (long i = 0; i < count; i++) {
            expired.accept(b.getLong(), b.getLong(), b.getLong());
          }
        }
        Files.deleteIfExists(s.ids);
        synchronized (this) {
          segments.remove(s.base);
        }
        deleted++;
      }
    }
    return deleted;
  }

  /** Sees one id. */
  @FunctionalInterface
  interface IdConsumer {
    void accept(long hashHigh, long hashLow, long acceptedMs);
  }

  /** The position after the last record forced to the disk: what readers may read up to. */
  public long committedEnd() {
    return committedEnd;
  }

  /** The first position the log still holds records from. */
  public synchronized long start() {
    for (Segment s : segments.values()) {
      if (!s.logDeleted) {
        return s.base;
      }
    }
    return active.base;
  }

  /** How far the engine has read (the furthest position a reader reached). */
  public long readPosition() {
    return readPosition;
  }

  /** Waits until records beyond {@code position} are committed; true if there are. */
  boolean awaitBeyond(long position, long maxWaitMs) throws InterruptedException {
    if (committedEnd > position) {
      return true;
    }
    long deadline = System.nanoTime() + maxWaitMs * 1_000_000;
    synchronized (committed) {
      while (committedEnd <= position) {
        long left = (deadline - System.nanoTime()) / 1_000_000;
        if (left <= 0) {
          return false;
        }
        committed.wait(left);
      }
    }
    return true;
  }

  /**
   * A reader from {@code position}.
   *
   * @throws IOException when the log no longer holds that position, or never held it
   */
  public Reader reader(long position) throws IOException {
    long start = start();
    if (position < start || position > committedEnd) {
      throw new IOException(
          "the ingest log in "
              + dir
              + " holds positions "
              + start
              + " to "
              + committedEnd
              + ", not "
              + position);
    }
    return new Reader(position);
  }

  private synchronized Segment segmentAt(long position) {
    Map.Entry<Long, Segment> e = segments.floorEntry(position);
    if (e == null) {
      return null;
    }
    Segment s = e.getValue();
    if (position == s.end() && s.sealed) {
      Map.Entry<Long, Segment> next = segments.higherEntry(s.base);
      return next == null ? s : next.getValue();
    }
    return s;
  }

  /**
   * Reads documents from a position on, up to what is committed. Not thread-safe: one reader per
   * thread.
   */
  public final class Reader implements Closeable {
    private long position;
    private Segment segment;
    private FileChannel ch;
    private ByteBuffer buf = ByteBuffer.allocate(1 << 20).order(ByteOrder.BIG_ENDIAN);
    private long bufStart = -1; // position of buf's first byte

    private Reader(long position) {
      this.position = position;
    }

    /** The position after the last document read. */
    public long position() {
      return position;
    }

    /**
     * Appends up to {@code max} documents to {@code batch}, as many as are committed; returns how
     * many.
     */
    public int read(RawBatch batch, int max) throws IOException {
      long end = committedEnd;
      int n = 0;
      while (n < max && position < end) {
        if (segment == null || position >= segment.end() && segment.sealed) {
          open(segmentAt(position));
        }
        long segEnd = Math.min(segment.end(), end);
        if (position >= segEnd) {
          break;
        }
        if (!buffered(position, RECORD_HEADER)) {
          fill(position, segEnd);
        }
        int at = (int) (position - bufStart);
        int len = buf.getInt(at);
        if (!buffered(position, RECORD_HEADER + len)) {
          fill(position, segEnd);
          at = 0;
        }
        int idLen = buf.getInt(at + RECORD_HEADER + 24);
        int docAt = at + RECORD_HEADER + PAYLOAD_FIXED + idLen;
        int docLen = len - PAYLOAD_FIXED - idLen;
        batch.add(buf.array(), docAt, docLen);
        position += RECORD_HEADER + len;
        n++;
      }
      if (position > readPosition) {
        readPosition = position;
      }
      return n;
    }

    private boolean buffered(long from, int bytes) {
      return bufStart >= 0 && from >= bufStart && from + bytes <= bufStart + buf.limit();
    }

    private void open(Segment s) throws IOException {
      if (ch != null) {
        ch.close();
      }
      if (s == null || s.logDeleted) {
        throw new IOException("the ingest log no longer holds position " + position);
      }
      segment = s;
      ch = FileChannel.open(s.log, StandardOpenOption.READ);
      bufStart = -1;
    }

    /** Reads the segment from {@code from} into the buffer, as far as committed. */
    private void fill(long from, long segEnd) throws IOException {
      buf.clear();
      int len = -1;
      long fileAt = HEADER + (from - segment.base);
      ByteBuffer head = ByteBuffer.allocate(4);
      readFully(ch, head, fileAt);
      len = head.getInt(0);
      int need = RECORD_HEADER + len;
      if (buf.capacity() < need) {
        buf = ByteBuffer.allocate(Math.max(need, buf.capacity() * 2));
      }
      long available = segEnd - from;
      buf.limit((int) Math.min(buf.capacity(), available));
      readFully(ch, buf, fileAt);
      buf.flip();
      bufStart = from;
    }

    @Override
    public void close() throws IOException {
      if (ch != null) {
        ch.close();
      }
    }
  }

  @Override
  public void close() throws IOException {
    synchronized (committed) {
      committed.notifyAll();
    }
    if (channel != null) {
      channel.close();
    }
  }
}
