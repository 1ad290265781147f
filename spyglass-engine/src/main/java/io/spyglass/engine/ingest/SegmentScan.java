package io.spyglass.engine.ingest;

import static io.spyglass.engine.ingest.LogFormat.HEADER;
import static io.spyglass.engine.ingest.LogFormat.HOLE_HEADER;
import static io.spyglass.engine.ingest.LogFormat.HOLE_TAG;
import static io.spyglass.engine.ingest.LogFormat.ID_ENTRY;
import static io.spyglass.engine.ingest.LogFormat.MARKER;
import static io.spyglass.engine.ingest.LogFormat.MARKER_TAG;
import static io.spyglass.engine.ingest.LogFormat.PAYLOAD_FIXED;
import static io.spyglass.engine.ingest.LogFormat.RECORD_HEADER;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Reads one segment file of the ingest log, checking every record, and works out without changing
 * the file what recovery does with it: the records it holds, the damaged ranges to drop, where a
 * torn tail starts, or why the start must be refused.
 *
 * <p>What tells acknowledged bytes from a torn write: in a version 2 segment a group is
 * acknowledged only after its commit marker is on the disk, so a valid marker after a damaged range
 * (found again by its first bytes and checked by its checksum and its own position) shows that the
 * range was acknowledged; so does the standing queries' checkpoint, which covers only what was
 * acknowledged; and every byte of a sealed segment was. Acknowledged damage is dropped (the records
 * around it are kept); bytes after the last acknowledged group with nothing acknowledged after them
 * are a torn tail, cut off. Version 1 segments have no markers: damage followed by readable records
 * is dropped, damage at the very end is taken for a torn tail.
 */
final class SegmentScan {
  /** What a segment holds, in order: records, holes (dropped before), and ranges to drop now. */
  sealed interface Entry permits Rec, Hole, Drop {}

  /** A readable record at file offset {@code off}. */
  record Rec(long off, int size, long ms, long hi, long lo) implements Entry {}

  /** A hole written by an earlier recovery: it stands for {@code documents} records. */
  record Hole(long off, long size, int documents, long[] remembered) implements Entry {}

  /** A document lost to damage whose id could still be read (and checked against its hash). */
  record Lost(String id, long hi, long lo, long ms) {}

  /**
   * A damaged range of acknowledged bytes to drop: {@code [off, to)}, about {@code documents}
   * records ({@code exact} when they could be counted); {@code counted} when the standing queries'
   * checkpoint is past it.
   */
  record Drop(
      long off, long to, int documents, boolean exact, boolean counted, String why, List<Lost> ids)
      implements Entry {}

  /** Why a drop is only the damaged commit marker of the group written last. */
  static final String LAST_MARKER = "a damaged commit marker ending the group written last";

  final Path file;
  final long base;
  final boolean last;
  final long checkpoint;
  private final Bytes b;

  int version = LogFormat.CURRENT;
  long fileSize;

  /** Where the segment's data end once recovered (a file offset); before the file's end: cut. */
  long end;

  /** The last segment was created but its header never reached the disk. */
  boolean noHeader;

  final List<Entry> entries = new ArrayList<>();

  /** Why the start must be refused; the file must not be touched. */
  String refusal;

  /** Bytes after {@link #end} ignored (a sealed segment longer than when it was sealed). */
  String ignored;

  /** Why the tail is cut, the complete records it held (never acknowledged), some of their ids. */
  String cutWhy;

  int cutRecords;
  List<String> cutIds = List.of();

  private long fileEnd;
  private long ckOff;
  private boolean markers;

  private SegmentScan(Path file, long base, boolean last, long checkpoint, Bytes b) {
    this.file = file;
    this.base = base;
    this.last = last;
    this.checkpoint = checkpoint;
    this.b = b;
  }

  /**
   * Scans {@code file}.
   *
   * @param last whether it is the log's last segment (the only one that can have a torn tail)
   * @param sealedEnd the file offset its data ended at when sealed (from its ids file), or -1
   * @param checkpoint the standing queries' checkpoint position, or -1
   */
  static SegmentScan scan(Path file, long base, boolean last, long sealedEnd, long checkpoint)
      throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      SegmentScan s = new SegmentScan(file, base, last, checkpoint, new Bytes(ch, ch.size()));
      s.run(sealedEnd);
      return s;
    }
  }

  long position(long off) {
    return base + off - HEADER;
  }

  private void run(long sealedEnd) throws IOException {
    fileSize = b.size;
    if (fileSize < HEADER) {
      if (last && checkpoint <= base) {
        noHeader = true; // created, but its header never reached the disk: nothing in it
        end = HEADER;
        return;
      }
      refusal =
          file
              + " is cut short: it has no whole header ("
              + fileSize
              + " bytes); restore it from a copy";
      return;
    }
    byte[] h = b.read(0, HEADER);
    if (!Arrays.equals(h, 0, 4, LogFormat.LOG_MAGIC, 0, 4)) {
      refusal =
          file
              + " is not an ingest log segment, or its header is damaged (it does not begin with"
              + " SGIL); restore it from a copy";
      return;
    }
    version = h[4];
    long said = ByteBuffer.wrap(h).getLong(8);
    if (version != LogFormat.V1 && version != LogFormat.V2) {
      refusal =
          file
              + " is in version "
              + version
              + " of the ingest log format, which this Spyglass does not know (it reads 1 and 2):"
              + " run a newer Spyglass, or restore the file if its header is damaged";
      return;
    }
    if (said != base) {
      refusal =
          file
              + "'s header says it starts at position "
              + said
              + ", its name says "
              + base
              + ": the header is damaged or the file was renamed; restore it from a copy";
      return;
    }
    fileEnd = fileSize;
    if (sealedEnd >= 0) {
      if (fileSize < sealedEnd) {
        refusal =
            file
                + " has "
                + fileSize
                + " bytes, fewer than the "
                + sealedEnd
                + " it had when it was sealed: acknowledged documents are missing from it; restore"
                + " it from a copy";
        return;
      }
      if (fileSize > sealedEnd) {
        ignored =
            (fileSize - sealedEnd)
                + " bytes after its sealed end at byte "
                + sealedEnd
                + " ignored";
        fileEnd = sealedEnd;
      }
    }
    ckOff = checkpoint < 0 ? -1 : checkpoint - base + HEADER;
    if (last && ckOff > fileEnd) {
      refusal =
          "the standing queries' checkpoint is at ingest log position "
              + checkpoint
              + ", beyond the end of the log ("
              + file
              + " ends at position "
              + position(fileEnd)
              + "): documents that were acknowledged and counted are missing from the log (it was"
              + " cut, or replaced by an older copy). Restore the ingest folder from a copy, or"
              + " give the --data folder and --database that were used together";
      return;
    }
    markers = version >= LogFormat.V2 && last;
    long off = HEADER;
    long committed = HEADER;
    List<Rec> pending = new ArrayList<>();
    while (off < fileEnd) {
      if (off == ckOff) {
        entries.addAll(pending); // the checkpoint covers only acknowledged records
        pending.clear();
        committed = off;
      }
      Parsed e = parse(off, fileEnd);
      if (e.kind != BAD && ckOff > off && ckOff < off + e.size) {
        refusal =
            "the standing queries' checkpoint (ingest log position "
                + checkpoint
                + ") is not at the start of a record of "
                + file
                + ": the database and the ingest log do not belong together; give the --data"
                + " folder and --database that were used together";
        return;
      }
      switch (e.kind) {
        case RECORD -> {
          if (markers) {
            pending.add(e.rec);
          } else {
            entries.add(e.rec);
            committed = off + e.size;
          }
          off += e.size;
        }
        case COMMIT, HOLE -> {
          entries.addAll(pending);
          pending.clear();
          if (e.kind == HOLE) {
            entries.add(e.hole);
          }
          off += e.size;
          committed = off;
        }
        default -> {
          long next = damage(off, e.why, pending);
          if (refusal != null) {
            return;
          }
          if (next < 0) {
            cut(committed, pending, e.why);
            return;
          }
          off = next;
          committed = next;
        }
      }
    }
    if (off == ckOff) {
      entries.addAll(pending);
      pending.clear();
      committed = off;
    }
    if (!pending.isEmpty()) {
      cut(committed, pending, "the group written last has no commit marker");
      return;
    }
    end = fileEnd;
  }

  /**
   * Damage at {@code d}: drops it when something after it shows it was acknowledged and returns
   * where reading goes on; -1 when it starts a torn tail.
   */
  private long damage(long d, String why, List<Rec> pending) {
    long m = version >= LogFormat.V2 ? findMarker(d + 1) : -1;
    long evidence = m;
    if (ckOff > d && ckOff <= fileEnd && (evidence < 0 || ckOff < evidence)) {
      evidence = ckOff;
    }
    if (evidence < 0) {
      if (!last) {
        evidence = fileEnd; // every byte of a sealed segment was acknowledged
      } else if (version == LogFormat.V1 && findChain(d + HOLE_HEADER, fileEnd)[0] < fileEnd) {
        evidence = fileEnd; // records follow the damage: it is not the end of a torn write
      }
    }
    if (evidence >= 0) {
      if (evidence - d < HOLE_HEADER) {
        refusal =
            file
                + " is damaged at byte "
                + d
                + " ("
                + why
                + ") just before the standing queries' checkpoint at position "
                + checkpoint
                + ", which is not at a record's start then: the database and the log do not"
                + " belong together, or the file is damaged; restore it from a copy";
        return -1;
      }
      entries.addAll(pending);
      pending.clear();
      long[] chain = findChain(d + HOLE_HEADER, evidence);
      long q = chain[0];
      Parsed marker = m >= 0 && q <= m ? parse(m, fileEnd) : null;
      drop(d, q, why, marker, m, (int) chain[1]);
      return q;
    }
    if (markers && !pending.isEmpty() && fileEnd - d == MARKER) {
      // the whole group is there, only its marker does not read: keep its records (had it not
      // been acknowledged, they are duplicates when sent again)
      entries.addAll(pending);
      pending.clear();
      entries.add(new Drop(d, fileEnd, 0, true, ckOff >= fileEnd, LAST_MARKER, List.of()));
      return fileEnd;
    }
    return -1;
  }

  private void drop(long d, long q, String why, Parsed marker, long m, int chainDocuments) {
    int documents = -1;
    boolean exact = false;
    if (marker != null && marker.kind == COMMIT) {
      long groupStart = marker.first - base + HEADER;
      if (groupStart >= HEADER && groupStart <= d) {
        int before = 0;
        for (int i = entries.size() - 1; i >= 0; i--) {
          Entry e = entries.get(i);
          long at = e instanceof Rec r ? r.off : e instanceof Hole h ? h.off : ((Drop) e).off;
          if (at < groupStart) {
            break;
          }
          before += e instanceof Rec ? 1 : e instanceof Hole h ? h.documents : ((Drop) e).documents;
        }
        int n = marker.documents - before - chainDocuments;
        if (n >= 0) {
          documents = n;
          exact = true;
        }
      }
    }
    List<Lost> ids = new ArrayList<>();
    long w = d;
    int walked = 0;
    while (w + 4 <= q) {
      int len = b.getInt(w);
      if (len >= PAYLOAD_FIXED && w + RECORD_HEADER + len <= q) {
        Lost l = salvage(w, len);
        if (l != null) {
          ids.add(l);
        }
        walked++;
        w += RECORD_HEADER + len;
      } else if (len == MARKER_TAG && w + MARKER <= q) {
        w += MARKER;
      } else {
        break;
      }
    }
    if (documents < 0) {
      if (w == q) {
        documents = walked;
        exact = true;
      } else {
        documents = q - d >= RECORD_HEADER + PAYLOAD_FIXED ? 1 : 0; // at least
      }
    }
    entries.add(new Drop(d, q, documents, exact, ckOff >= q, why, ids));
  }

  /** The id of a damaged record, when it still reads and matches the hash stored beside it. */
  private Lost salvage(long at, int len) {
    long p = at + RECORD_HEADER;
    int idLen = b.getInt(p + 24);
    if (idLen < 1 || idLen > len - PAYLOAD_FIXED) {
      return null;
    }
    byte[] id = b.read(p + PAYLOAD_FIXED, idLen);
    long[] h = IdIndex.hash(id);
    if (h[0] != b.getLong(p + 8) || h[1] != b.getLong(p + 16)) {
      return null;
    }
    String text = utf8(id);
    return text == null ? null : new Lost(text, h[0], h[1], b.getLong(p));
  }

  /** The id of a readable record. */
  private String idOf(Rec r) {
    long p = r.off + RECORD_HEADER;
    int idLen = b.getInt(p + 24);
    if (idLen < 0 || idLen > r.size - RECORD_HEADER - PAYLOAD_FIXED) {
      return "?";
    }
    String t = utf8(b.read(p + PAYLOAD_FIXED, idLen));
    return t == null ? "?" : t;
  }

  private static String utf8(byte[] bytes) {
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }

  private void cut(long at, List<Rec> pending, String why) {
    end = at;
    cutWhy = why;
    cutRecords = pending.size();
    List<String> some = new ArrayList<>();
    for (int i = 0; i < pending.size() && i < 10; i++) {
      some.add(idOf(pending.get(i)));
    }
    if (pending.isEmpty() && fileEnd - at >= RECORD_HEADER + PAYLOAD_FIXED) {
      int len = b.getInt(at); // a damaged last record: its id, when it still reads
      if (len >= PAYLOAD_FIXED && at + RECORD_HEADER + len <= fileEnd) {
        Lost l = salvage(at, len);
        if (l != null) {
          some.add(l.id());
        }
      }
    }
    cutIds = some;
  }

  /** The first valid commit marker at or after {@code from}; -1 when there is none. */
  private long findMarker(long from) {
    long p = from;
    while (true) {
      p = b.indexOf(LogFormat.MARKER_START, p, fileEnd);
      if (p < 0) {
        return -1;
      }
      if (parse(p, fileEnd).kind == COMMIT) {
        return p;
      }
      p++;
    }
  }

  /**
   * The first offset in {@code [from, to]} from which records and holes read one after another up
   * to exactly {@code to}, and the documents they hold; {@code to} when there is none.
   */
  private long[] findChain(long from, long to) {
    for (long q = from; q < to; q++) {
      long n = chain(q, to);
      if (n >= 0) {
        return new long[] {q, n};
      }
    }
    return new long[] {to, 0};
  }

  private long chain(long from, long to) {
    long p = from;
    long n = 0;
    while (p < to) {
      if (to - p < 4) {
        return -1;
      }
      int len = b.getInt(p);
      if (len >= 0 && (len < PAYLOAD_FIXED || to - p - RECORD_HEADER < len)) {
        return -1; // the common case, quickly
      }
      if (len < 0 && len != HOLE_TAG) {
        return -1;
      }
      Parsed e = parse(p, to);
      if (e.kind == RECORD) {
        n++;
      } else if (e.kind == HOLE) {
        n += e.hole.documents;
      } else {
        return -1;
      }
      p += e.size;
    }
    return n;
  }

  private static final int RECORD = 0;
  private static final int COMMIT = 1;
  private static final int HOLE = 2;
  private static final int BAD = 3;

  /** One entry read at an offset. */
  private static final class Parsed {
    int kind;
    long size;
    String why;
    Rec rec;
    Hole hole;
    long first;
    int documents;

    static Parsed bad(String why) {
      Parsed p = new Parsed();
      p.kind = BAD;
      p.why = why;
      return p;
    }
  }

  private Parsed parse(long off, long limit) {
    if (limit - off < 4) {
      return Parsed.bad("a record header cut short");
    }
    int len = b.getInt(off);
    Parsed p = new Parsed();
    if (len >= 0) {
      if (limit - off < RECORD_HEADER) {
        return Parsed.bad("a record header cut short");
      }
      if (len < PAYLOAD_FIXED || limit - off - RECORD_HEADER < len) {
        return Parsed.bad("a record cut short or with a wrong length");
      }
      if (b.crc(off + RECORD_HEADER, len) != b.getInt(off + 4)) {
        return Parsed.bad("a record whose checksum does not match");
      }
      p.kind = RECORD;
      p.size = RECORD_HEADER + len;
      long at = off + RECORD_HEADER;
      p.rec = new Rec(off, (int) p.size, b.getLong(at), b.getLong(at + 8), b.getLong(at + 16));
      return p;
    }
    if (len == MARKER_TAG && version >= LogFormat.V2) {
      if (limit - off < MARKER) {
        return Parsed.bad("a commit marker cut short");
      }
      ByteBuffer m = ByteBuffer.wrap(b.read(off, MARKER));
      if (!Arrays.equals(m.array(), 4, 8, LogFormat.MARKER_MAGIC, 0, 4)
          || LogFormat.crc(m.array(), 0, MARKER - 4) != m.getInt(MARKER - 4)
          || m.getLong(16) != position(off + MARKER)) {
        return Parsed.bad("a damaged commit marker");
      }
      p.kind = COMMIT;
      p.size = MARKER;
      p.first = m.getLong(8);
      p.documents = m.getInt(24);
      return p;
    }
    if (len == HOLE_TAG) {
      if (limit - off < HOLE_HEADER) {
        return Parsed.bad("a hole cut short");
      }
      ByteBuffer h = ByteBuffer.wrap(b.read(off, HOLE_HEADER));
      long size = h.getLong(8);
      int documents = h.getInt(16);
      int m = h.getInt(20);
      if (!Arrays.equals(h.array(), 4, 8, LogFormat.HOLE_MAGIC, 0, 4)
          || documents < 0
          || m < 0
          || size < HOLE_HEADER + (long) m * ID_ENTRY
          || size > limit - off) {
        return Parsed.bad("a damaged hole");
      }
      byte[] ids = b.read(off + HOLE_HEADER, m * ID_ENTRY);
      CRC32C c = new CRC32C();
      c.update(h.array(), 0, HOLE_HEADER - 4);
      c.update(ids, 0, ids.length);
      if ((int) c.getValue() != h.getInt(HOLE_HEADER - 4)) {
        return Parsed.bad("a damaged hole");
      }
      long[] remembered = new long[m * 3];
      ByteBuffer r = ByteBuffer.wrap(ids);
      for (int i = 0; i < remembered.length; i++) {
        remembered[i] = r.getLong();
      }
      p.kind = HOLE;
      p.size = size;
      p.hole = new Hole(off, size, documents, remembered);
      return p;
    }
    return Parsed.bad("a record with a wrong length");
  }

  /** A file read through a window of 1 MiB. */
  private static final class Bytes {
    final FileChannel ch;
    final long size;
    final ByteBuffer win = ByteBuffer.allocate(1 << 20);
    long winStart = -1;
    int winLen;

    Bytes(FileChannel ch, long size) {
      this.ch = ch;
      this.size = size;
    }

    /** Makes {@code [at, at + len)} readable in the window ({@code len} at most its size). */
    private void ensure(long at, int len) {
      if (winStart >= 0 && at >= winStart && at + len <= winStart + winLen) {
        return;
      }
      win.clear();
      win.limit((int) Math.min(win.capacity(), size - at));
      long p = at;
      try {
        while (win.hasRemaining()) {
          int n = ch.read(win, p);
          if (n < 0) {
            break;
          }
          p += n;
        }
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      winStart = at;
      winLen = win.position();
      if (winLen < len) {
        throw new java.io.UncheckedIOException(
            new IOException("read past the end of the file at byte " + at));
      }
    }

    int getInt(long at) {
      ensure(at, 4);
      return win.getInt((int) (at - winStart));
    }

    long getLong(long at) {
      ensure(at, 8);
      return win.getLong((int) (at - winStart));
    }

    byte[] read(long at, int len) {
      byte[] out = new byte[len];
      int done = 0;
      while (done < len) {
        int n = Math.min(len - done, win.capacity());
        ensure(at + done, n);
        System.arraycopy(win.array(), (int) (at + done - winStart), out, done, n);
        done += n;
      }
      return out;
    }

    int crc(long at, int len) {
      CRC32C c = new CRC32C();
      int done = 0;
      while (done < len) {
        int n = Math.min(len - done, win.capacity());
        ensure(at + done, n);
        c.update(win.array(), (int) (at + done - winStart), n);
        done += n;
      }
      return (int) c.getValue();
    }

    long indexOf(byte[] pattern, long from, long to) {
      long p = from;
      while (p + pattern.length <= to) {
        int n = (int) Math.min(win.capacity(), to - p);
        ensure(p, n);
        byte[] a = win.array();
        int first = (int) (p - winStart);
        int lastStart = first + n - pattern.length;
        for (int i = first; i <= lastStart; i++) {
          if (a[i] == pattern[0]
              && Arrays.equals(a, i, i + pattern.length, pattern, 0, pattern.length)) {
            return winStart + i;
          }
        }
        p += n - pattern.length + 1;
      }
      return -1;
    }
  }
}
