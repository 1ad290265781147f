package io.spyglass.engine.ingest;

import static io.spyglass.engine.ingest.LogFormat.MARKER;
import static io.spyglass.engine.ingest.LogFormat.MARKER_TAG;

import io.spyglass.core.SpyglassClock;
import io.spyglass.sources.RawBatch;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * folder. A position (offset) is a byte count over the entries of all segments, from 0 for the
 * first ever written; it never goes back. What a reader may see ends at {@link #committedEnd()}:
 * groups written and forced to the disk. A group of records is appended with its commit marker and
 * forced at once ({@link #commitGroup}), so that many requests share one {@code fsync}.
 *
 * <pre>
 * segment file NNNNNNNNNNNNNNNNNNNN.log (its base position, 20 digits):
 *   header: 'S' 'G' 'I' 'L', version (1 or 2), three zero bytes, base position (8 bytes)
 *   entries, one after another (numbers big-endian):
 *   record: payload length (4 bytes, at least 28), CRC32C of the payload (4 bytes), payload:
 *     accepted at (epoch ms, 8 bytes), id hash (16 bytes), id length (4 bytes), id (UTF-8),
 *     the document (JSON, the rest of the payload)
 *   commit marker (version 2; ends every group, written and forced with it; 32 bytes):
 *     -1 (4 bytes), 'S' 'G' 'C' 'M', the group's first position (8 bytes), the position after
 *     the marker (8 bytes), the group's record count (4 bytes), CRC32C of the 28 bytes before
 *   hole (written by recovery in place of damaged bytes, moved to quarantine/):
 *     -2 (4 bytes), 'S' 'G' 'H' 'O', its size in bytes, all included (8 bytes), the records it
 *     stands for (4 bytes), ids it remembers m (4 bytes), CRC32C of the 24 bytes before and of
 *     the ids (4 bytes), m ids (hash 16 bytes, accepted at 8 bytes), zeros to its size
 * ids file NNNNNNNNNNNNNNNNNNNN.ids, written when a segment is sealed:
 *   'S' 'G' 'I' 'D', version (1 or 2), three zero bytes, count (8 bytes), the segment's size in
 *   bytes after its header (8 bytes), CRC32C (4 bytes; version 2: of the 24 bytes before and
 *   the entries, version 1: of the entries only), then per record (and per record a hole stands
 *   for): id hash (16 bytes, zeros for a lost document whose id is forgotten), accepted at (8
 *   bytes)
 * manifest: see {@link LogManifest}
 * </pre>
 *
 * <p>Version 1 segments (records only) are still read; a version 1 last segment is sealed at
 * opening and new records go to a version 2 segment. Version 1 ids files are still read: their
 * size, which their checksum does not cover, is checked against where the next segment starts (when
 * the segment's records say the size is wrong, the file is written again in version 2).
 *
 * <p>Opening recovers ({@link LogRecovery}): a torn tail (a group whose commit marker never reached
 * the disk: never acknowledged) is cut off; damage inside acknowledged data drops only the damaged
 * bytes (moved to {@code quarantine/}, replaced by a hole) and says which documents were lost; and
 * when what was acknowledged cannot be told, or acknowledged documents or ids are missing, opening
 * fails with a message that says what to do, without changing any file. Sealed segments no longer
 * needed for replay lose their {@code .log}; their {@code .ids} stay until every id in them is
 * older than the horizon.
 *
 * <p>Writing ({@code append}, {@code commitGroup}, {@code abortGroup}, {@code retain}) is for one
 * thread at a time; readers and {@link #committedEnd()} for any thread.
 */
public final class IngestLog implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(IngestLog.class);
  static final int HEADER = LogFormat.HEADER;
  static final int RECORD_HEADER = LogFormat.RECORD_HEADER;
  static final int PAYLOAD_FIXED = LogFormat.PAYLOAD_FIXED;

  /**
   * What opening the log knows from outside it.
   *
   * @param checkpoint the log position the standing queries' last checkpoint covers, -1 when there
   *     is none: recovery never cuts data before it, and takes what it covers as acknowledged
   * @param acceptMissingIds start although ids accepted within the horizon are missing (repeats of
   *     those documents are then counted again)
   */
  public record Recovery(long checkpoint, boolean acceptMissingIds) {
    /** No checkpoint; missing ids refuse the start. */
    public static final Recovery NONE = new Recovery(-1, false);
  }

  private final Path dir;
  private final long segmentBytes;
  private final TreeMap<Long, LogSegment> segments = new TreeMap<>();
  private LogSegment active;
  private FileChannel channel;
  private long[] activeIds = new long[3 * 1024];
  private int activeIdCount;
  private ByteBuffer group = ByteBuffer.allocate(1 << 20);
  private final List<long[]> groupIds = new ArrayList<>();
  private volatile long committedEnd;
  private volatile long readPosition;
  private final Object committed = new Object();
  private final CRC32C crc = new CRC32C();

  /**
   * What the manifest on disk says; guarded by {@link #manifestWrites}, which keeps its writes (an
   * {@code fsync}, a rename, a folder sync) in order and off the lock readers take.
   */
  private LogManifest manifest;

  private final Object manifestWrites = new Object();
  private List<String> notices = List.of();

  /**
   * The most bytes one group holds (records and marker): its buffer is indexed by {@code int}, and
   * the writer cuts its groups well below ({@link Ingestor}).
   */
  static final int MAX_GROUP_BYTES = (1 << 30) - MARKER;

  /** Test hook: runs before each record is added to the group (it may throw); null normally. */
  volatile Runnable beforeAppend;

  /** Something that may fail as the disk does. */
  @FunctionalInterface
  interface IoHook {
    void run(Path file) throws IOException;
  }

  /**
   * Test hook: runs when the file of a new segment was created, before its header is written (a
   * full disk fails there); null normally.
   */
  volatile IoHook segmentCreated;

  /** The engine clock: a reader's wait for new documents is timed by its monotonic count. */
  private final SpyglassClock clock;

  private IngestLog(Path dir, long segmentBytes, SpyglassClock clock) {
    this.dir = dir;
    this.segmentBytes = segmentBytes;
    this.clock = clock;
  }

  static String name(long base) {
    return LogFormat.name(base);
  }

  /**
   * Opens the log in {@code dir} (created if needed) and recovers it; the ids it holds that were
   * accepted at {@code sinceMs} or later go into {@code ids}.
   *
   * @param segmentBytes about how large a segment grows before the next one starts
   * @throws IOException when a file cannot be read, or recovery cannot go on without losing
   *     acknowledged documents or ids; the message says which file and what to do
   */
  static IngestLog open(Path dir, long segmentBytes, IdIndex ids, long sinceMs) throws IOException {
    return open(dir, segmentBytes, ids, sinceMs, Recovery.NONE);
  }

  static IngestLog open(Path dir, long segmentBytes, IdIndex ids, long sinceMs, Recovery recovery)
      throws IOException {
    return open(dir, segmentBytes, ids, sinceMs, recovery, SpyglassClock.system());
  }

  static IngestLog open(
      Path dir,
      long segmentBytes,
      IdIndex ids,
      long sinceMs,
      Recovery recovery,
      SpyglassClock clock)
      throws IOException {
    if (recovery.checkpoint() > 0 && !Files.isDirectory(dir)) {
      throw new IOException(LogRecovery.gone(dir, recovery.checkpoint()));
    }
    Files.createDirectories(dir);
    IngestLog log = new IngestLog(dir, segmentBytes, clock);
    log.recover(ids, sinceMs, recovery);
    return log;
  }

  /**
   * Why the log in {@code dir} shows that standing queries took checkpoints over it (a checkpoint
   * recorded in its manifest, records retired, or sealed segments); null when it shows none. Reads
   * only.
   */
  public static String checkpointEvidence(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return null;
    }
    LogManifest m = LogManifest.read(dir).manifest();
    if (m != null && m.checkpoint() >= 0) {
      return "the ingest log in " + dir + " records a checkpoint at position " + m.checkpoint();
    }
    TreeMap<Long, boolean[]> files = LogFormat.segmentFiles(dir);
    for (Map.Entry<Long, boolean[]> e : files.entrySet()) {
      if (e.getValue()[0]) {
        if (e.getKey() > 0) {
          return "the ingest log in "
              + dir
              + " starts at position "
              + e.getKey()
              + " (its earlier records were retired after checkpoints)";
        }
        break;
      }
    }
    if (files.values().stream().anyMatch(f -> f[1])) {
      return "the ingest log in " + dir + " has sealed segments";
    }
    return null;
  }

  private void recover(IdIndex ids, long sinceMs, Recovery recovery) throws IOException {
    LogRecovery r = new LogRecovery(dir, ids, sinceMs, recovery);
    r.run();
    segments.putAll(r.segments);
    notices = List.copyOf(r.notices);
    activeIds = r.activeIds;
    activeIdCount = r.activeIdCount;
    if (segments.isEmpty()) {
      startSegment(0);
    } else {
      LogSegment last = segments.lastEntry().getValue();
      if (!last.sealed && last.version != LogFormat.CURRENT && last.size == 0) {
        try (FileChannel ch = FileChannel.open(last.log, StandardOpenOption.WRITE)) {
          writeHeader(ch, last.base, LogFormat.CURRENT); // nothing in it yet: now version 2
          ch.force(true);
        }
        last.version = LogFormat.CURRENT;
      }
      if (!last.sealed && last.version != LogFormat.CURRENT) {
        LogRecovery.writeIds(last, activeIds, activeIdCount); // version 1: sealed as it is
        last.sealed = true;
      }
      if (last.sealed) {
        startSegment(last.end());
      } else {
        active = last;
        channel = FileChannel.open(last.log, StandardOpenOption.READ, StandardOpenOption.WRITE);
      }
    }
    long checkpoint = recovery.checkpoint();
    if (r.manifest != null) {
      checkpoint = Math.max(checkpoint, r.manifest.checkpoint());
    }
    LogManifest now = new LogManifest(segments.firstKey(), checkpoint);
    if (!now.equals(r.manifest)) {
      now.write(dir);
    }
    synchronized (manifestWrites) {
      manifest = now;
    }
    committedEnd = active.end();
    readPosition = committedEnd;
  }

  /** What recovery found and did at opening, one sentence each (also logged). */
  public List<String> recoveryNotices() {
    return notices;
  }

  /**
   * Records that a checkpoint covers the log up to {@code position}; the first one is written to
   * the manifest at once (later ones with retention), so that a lost database is noticed.
   */
  void checkpointed(long position) throws IOException {
    synchronized (manifestWrites) {
      if (manifest != null && manifest.checkpoint() < 0 && position >= 0) {
        LogManifest m = new LogManifest(manifest.firstBase(), position);
        writeManifest(m);
        manifest = m;
      } else if (manifest != null && position > manifest.checkpoint()) {
        manifest = new LogManifest(manifest.firstBase(), position); // written with the next change
      }
    }
  }

  /**
   * Test hook: runs before the manifest is written (it may block, to show who waits); null
   * normally.
   */
  volatile IoHook manifestWriting;

  /** Writes the manifest; the caller holds {@link #manifestWrites}, never this log's lock. */
  private void writeManifest(LogManifest m) throws IOException {
    IoHook hook = manifestWriting;
    if (hook != null) {
      hook.run(dir.resolve(LogManifest.FILE));
    }
    m.write(dir);
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

  static void writeHeader(FileChannel ch, long base, int version) throws IOException {
    ByteBuffer h = ByteBuffer.allocate(HEADER);
    h.put(LogFormat.LOG_MAGIC).put((byte) version).put(new byte[3]).putLong(base).flip();
    while (h.hasRemaining()) {
      ch.write(h, h.position());
    }
  }

  private void startSegment(long base) throws IOException {
    LogSegment s = new LogSegment(dir, base);
    FileChannel ch = createSegment(s);
    synchronized (this) {
      segments.put(base, s);
    }
    active = s;
    channel = ch;
    activeIdCount = 0;
  }

  /**
   * Creates the file of segment {@code s} with its header, forced to the disk; when that fails, no
   * file is left behind (a later try creates it again).
   */
  private FileChannel createSegment(LogSegment s) throws IOException {
    FileChannel ch;
    try {
      ch = openNew(s.log);
    } catch (java.nio.file.FileAlreadyExistsException e) {
      // left by a try that failed and could not delete it: its header at most, nothing in it
      if (Files.size(s.log) > HEADER) {
        throw e;
      }
      Files.delete(s.log);
      ch = openNew(s.log);
    }
    try {
      IoHook hook = segmentCreated;
      if (hook != null) {
        hook.run(s.log);
      }
      writeHeader(ch, s.base, LogFormat.CURRENT);
      ch.force(true);
      LogFormat.syncDir(dir);
      return ch;
    } catch (IOException | RuntimeException | Error e) {
      try {
        ch.close();
        Files.deleteIfExists(s.log);
        LogFormat.syncDir(dir);
      } catch (IOException again) {
        e.addSuppressed(again);
      }
      throw e;
    }
  }

  private static FileChannel openNew(Path file) throws IOException {
    return FileChannel.open(
        file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE);
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

  /**
   * Adds a record to the group being written; it is durable once {@link #commitGroup} returns.
   *
   * @throws IllegalStateException when the group would be over {@link #MAX_GROUP_BYTES}; the group
   *     is then as it was (drop it with {@link #abortGroup})
   */
  void append(long acceptedMs, long[] idHash, byte[] id, byte[] doc, int offset, int length) {
    Runnable hook = beforeAppend;
    if (hook != null) {
      hook.run();
    }
    long total = (long) group.position() + RECORD_HEADER + PAYLOAD_FIXED + id.length + length;
    if (total > MAX_GROUP_BYTES) {
      throw new IllegalStateException(
          "a group of the ingest log holds at most "
              + MAX_GROUP_BYTES
              + " bytes: with this record it would hold "
              + total);
    }
    int len = PAYLOAD_FIXED + id.length + length;
    int need = RECORD_HEADER + len;
    if (group.remaining() < need) {
      ByteBuffer bigger =
          ByteBuffer.allocate(
              (int) Math.min(MAX_GROUP_BYTES + MARKER, Math.max(group.capacity() * 2L, total)));
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
   * Writes the group, ended by its commit marker, and forces it to the disk; then readers see it.
   * On failure the segment is cut back to what was committed before and the group is dropped.
   */
  void commitGroup() throws IOException {
    if (group.position() == 0) {
      return;
    }
    try {
      if (active.size > 0 && active.size + group.position() + MARKER > segmentBytes) {
        seal();
      }
      if (group.remaining() < MARKER) {
        ByteBuffer bigger = ByteBuffer.allocate(group.capacity() + MARKER);
        group.flip();
        bigger.put(group);
        group = bigger;
      }
      long first = active.end();
      LogFormat.putMarker(group, first, first + group.position() + MARKER, groupIds.size());
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
    clearGroup();
    active.size += written;
    synchronized (committed) {
      committedEnd = active.end();
      committed.notifyAll();
    }
  }

  /** Drops the group being written. */
  void abortGroup() {
    clearGroup();
  }

  /** Empties the group; a buffer grown for a large group is given back. */
  private void clearGroup() {
    if (group.capacity() > 16 << 20) {
      group = ByteBuffer.allocate(1 << 20);
    } else {
      group.clear();
    }
    groupIds.clear();
  }

  /**
   * Seals the active segment (its ids file written and forced) and starts the next. Nothing changes
   * until the next segment's file is made: when that fails (a full disk), the active segment stays
   * active, open and unsealed, its ids file deleted again, and the next group tries again. (Were
   * the ids file left, it would not be read: recovery reads the last segment itself.)
   */
  private void seal() throws IOException {
    LogRecovery.writeIds(active, activeIds, activeIdCount);
    LogSegment next = new LogSegment(dir, active.end());
    FileChannel ch;
    try {
      ch = createSegment(next);
    } catch (IOException | RuntimeException | Error e) {
      try {
        Files.deleteIfExists(active.ids);
      } catch (IOException again) {
        e.addSuppressed(again);
      }
      throw e;
    }
    FileChannel old = channel;
    active.sealed = true;
    synchronized (this) {
      segments.put(next.base, next);
    }
    active = next;
    channel = ch;
    activeIdCount = 0;
    try {
      old.close();
    } catch (IOException e) {
      LOG.warn("closing a sealed segment of the ingest log: {}", e.toString());
    }
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
    for (LogSegment s : new ArrayList<>(segments.values())) {
      if (s == active || !s.sealed || s.end() > replayFrom || s.end() > readPosition) {
        continue;
      }
      if (!s.logDeleted) {
        Files.deleteIfExists(s.log);
        LogFormat.syncDir(dir);
        s.logDeleted = true;
        deleted++;
      }
      if (s.newestMs < sinceMs && s.base == segments.firstKey()) {
        LogRecovery.IdsFile idf = LogRecovery.readIds(s.ids);
        if (idf != null) {
          long[] t = idf.triples();
          for (int i = 0; i < t.length; i += 3) {
            if (t[i] != 0 || t[i + 1] != 0) {
              expired.accept(t[i], t[i + 1], t[i + 2]);
            }
          }
        }
        Long next;
        synchronized (this) {
          next = segments.higherKey(s.base);
        }
        synchronized (manifestWrites) {
          // the manifest first: a crash before the file goes leaves one more, not one missing
          LogManifest m = new LogManifest(next == null ? s.end() : next, manifest.checkpoint());
          writeManifest(m);
          manifest = m;
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
    for (LogSegment s : segments.values()) {
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
    long deadline = clock.deadlineIn(maxWaitMs);
    synchronized (committed) {
      while (committedEnd <= position) {
        long left = clock.msLeft(deadline);
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

  private synchronized LogSegment segmentAt(long position) {
    Map.Entry<Long, LogSegment> e = segments.floorEntry(position);
    if (e == null) {
      return null;
    }
    LogSegment s = e.getValue();
    if (position == s.end() && s.sealed) {
      Map.Entry<Long, LogSegment> next = segments.higherEntry(s.base);
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
    private LogSegment segment;
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

    /** Bytes every entry has: enough to tell a record from a marker or a hole, and its size. */
    private static final int PEEK = 16;

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
        if (!buffered(position, PEEK)) {
          fill(position, segEnd);
        }
        int at = (int) (position - bufStart);
        int len = buf.getInt(at);
        if (len < 0) {
          // a commit marker, or a hole: no document
          position += len == MARKER_TAG ? MARKER : buf.getLong(at + 8);
          continue;
        }
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

    private void open(LogSegment s) throws IOException {
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
      int need = len < 0 ? PEEK : RECORD_HEADER + len;
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
