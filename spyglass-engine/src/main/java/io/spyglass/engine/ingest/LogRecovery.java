package io.spyglass.engine.ingest;

import static io.spyglass.engine.ingest.LogFormat.HEADER;
import static io.spyglass.engine.ingest.LogFormat.IDS_HEADER;
import static io.spyglass.engine.ingest.LogFormat.ID_ENTRY;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens the ingest log's folder: reads every file and checks it ({@link SegmentScan}), finds files
 * that are missing ({@link LogManifest}), and refuses, touching nothing, when it cannot tell what
 * was acknowledged or when acknowledged documents or their ids are gone; otherwise repairs: a torn
 * tail is cut off, damaged acknowledged bytes are moved to {@code quarantine/} and replaced by a
 * hole, every loss said in an error line. Then the ids accepted within the horizon are known.
 */
final class LogRecovery {
  private static final Logger LOG = LoggerFactory.getLogger(IngestLog.class);

  /**
   * An ids file, checked: {@code count} ids (hash high, low, accepted at) of {@code size} bytes; in
   * {@code version} 1 the size is not covered by the checksum.
   */
  record IdsFile(int version, long count, long size, long[] triples) {}

  /**
   * A segment's files and what their scan found; {@code sizeWrong} when its ids file (version 1)
   * gave a size the segment's records contradict: the file is written again.
   */
  private record Plan(LogSegment s, IdsFile idf, SegmentScan scan, boolean sizeWrong) {}

  final Path dir;
  private final IdIndex ids;
  private final long sinceMs;
  private final IngestLog.Recovery recovery;

  final TreeMap<Long, LogSegment> segments = new TreeMap<>();
  long[] activeIds = new long[3 * 1024];
  int activeIdCount;
  LogManifest manifest;
  final List<String> notices = new ArrayList<>();

  LogRecovery(Path dir, IdIndex ids, long sinceMs, IngestLog.Recovery recovery) {
    this.dir = dir;
    this.ids = ids;
    this.sinceMs = sinceMs;
    this.recovery = recovery;
  }

  void run() throws IOException {
    TreeMap<Long, boolean[]> files = LogFormat.segmentFiles(dir);
    if (files.isEmpty() && recovery.checkpoint() > 0) {
      throw new IOException(gone(dir, recovery.checkpoint()));
    }
    LogManifest.Read read = LogManifest.read(dir);
    if (read.problem() != null) {
      warn(read.problem());
    }
    manifest = read.manifest();
    List<String> refusals = new ArrayList<>();
    List<Plan> plans = new ArrayList<>();
    Long lastBase = files.isEmpty() ? null : files.lastKey();
    for (Map.Entry<Long, boolean[]> e : files.entrySet()) {
      LogSegment s = new LogSegment(dir, e.getKey());
      boolean hasLog = e.getValue()[0];
      boolean last = e.getKey().equals(lastBase);
      s.logDeleted = !hasLog;
      s.sealed = !last || !hasLog;
      IdsFile idf = e.getValue()[1] && s.sealed ? readIds(s.ids) : null;
      if (e.getValue()[1] && s.sealed && idf == null && hasLog) {
        warn(s.ids + " is damaged: it is written again from " + s.log.getFileName());
      }
      SegmentScan scan = null;
      boolean sizeWrong = false;
      if (hasLog) {
        scan =
            SegmentScan.scan(
                s.log, s.base, last, idf == null ? -1 : HEADER + idf.size(), recovery.checkpoint());
        Long next = files.higherKey(e.getKey());
        if (idf != null
            && idf.version() == LogFormat.IDS_V1
            && next != null
            && idf.size() != next - s.base) {
          // version 1 does not check its size, and the next segment starts elsewhere: when the
          // whole segment reads cleanly up to there, with the ids the file has, the size is wrong
          SegmentScan whole = SegmentScan.scan(s.log, s.base, last, -1, recovery.checkpoint());
          if (whole.refusal == null
              && whole.cutWhy == null
              && whole.end - HEADER == next - s.base
              && whole.entries.stream().noneMatch(x -> x instanceof SegmentScan.Drop)
              && countsMatch(whole, idf)) {
            warn(
                s.ids
                    + " gives a size of "
                    + idf.size()
                    + " bytes, but "
                    + s.log.getFileName()
                    + " holds "
                    + (next - s.base)
                    + " up to the next segment, with the very ids the file has: its size field is"
                    + " damaged; it is written again");
            scan = whole;
            sizeWrong = true;
          }
        }
        if (scan.refusal != null) {
          refusals.add(scan.refusal);
        }
      }
      plans.add(new Plan(s, idf, scan, sizeWrong));
    }
    findMissing(plans, refusals);
    if (!refusals.isEmpty()) {
      throw new IOException(String.join("\n", refusals));
    }
    for (Plan p : plans) {
      apply(p);
    }
  }

  /** Why a start is refused when the log is gone but a checkpoint covers part of it. */
  static String gone(Path dir, long checkpoint) {
    return "the ingest log in "
        + dir
        + " is gone (no segment file), but the standing queries' checkpoint is at position "
        + checkpoint
        + ": the documents they counted and their ids are missing. Restore the ingest folder from"
        + " a copy, or give the --data folder and --database that were used together";
  }

  /** Files that should be there and are not: the ids (or records) of a range of positions. */
  private void findMissing(List<Plan> plans, List<String> refusals) {
    long prevEnd = -1;
    for (int i = 0; i < plans.size(); i++) {
      Plan p = plans.get(i);
      if (i == 0 && manifest != null && manifest.firstBase() < p.s.base) {
        missing(manifest.firstBase(), p.s.base, "their files were deleted", plans, i, refusals);
      }
      if (i > 0 && prevEnd >= 0 && prevEnd != p.s.base) {
        if (prevEnd > p.s.base) {
          refusals.add(
              "the ingest log's segments overlap: "
                  + plans.get(i - 1).s.log.getFileName()
                  + " ends at position "
                  + prevEnd
                  + ", after "
                  + p.s.log.getFileName()
                  + " starts; a file of "
                  + dir
                  + " was replaced: restore the folder from a copy");
        } else {
          missing(prevEnd, p.s.base, "no file holds them", plans, i, refusals);
        }
      }
      if (p.scan == null && p.idf == null) {
        // an ids file that does not read, whose records were retired
        if (i + 1 == plans.size()) {
          refusals.add(
              p.s.ids
                  + " is damaged and its segment's records were retired: where the log goes on"
                  + " cannot be told; restore it from a copy");
          prevEnd = -1;
        } else {
          missing(
              p.s.base, plans.get(i + 1).s.base, p.s.ids + " is damaged", plans, i + 1, refusals);
          prevEnd = plans.get(i + 1).s.base;
        }
        continue;
      }
      if (p.scan != null && p.scan.refusal != null) {
        prevEnd = -1;
      } else {
        prevEnd = p.s.base + (p.scan != null ? p.scan.end - HEADER : p.idf.size());
      }
    }
  }

  private void missing(
      long from, long to, String why, List<Plan> plans, int next, List<String> refusals) {
    long checkpoint = recovery.checkpoint();
    if (checkpoint >= 0 && checkpoint < to) {
      refusals.add(
          "documents at ingest log positions "
              + from
              + " to "
              + to
              + " are missing from "
              + dir
              + " ("
              + why
              + ") and the standing queries have not counted them yet (their checkpoint is at "
              + checkpoint
              + "): restore the missing segment files from a copy");
      return;
    }
    long earliest = Long.MAX_VALUE; // unknown: taken as within the horizon
    for (int i = next; i < plans.size() && earliest == Long.MAX_VALUE; i++) {
      earliest = earliestMs(plans.get(i));
    }
    if (earliest < sinceMs) {
      return; // every id they held was older than the horizon: nothing is forgotten too early
    }
    String what =
        "the ids of the documents accepted at ingest log positions "
            + from
            + " to "
            + to
            + " are missing from "
            + dir
            + " ("
            + why
            + "); some were accepted within the --id-horizon (since "
            + Instant.ofEpochMilli(sinceMs)
            + "), so such a document sent again would be counted twice";
    if (recovery.acceptMissingIds()) {
      warn(what + "; going on without them (--accept-missing-ids)");
    } else {
      refusals.add(
          what
              + ". Restore the missing .ids files from a copy, or start with --accept-missing-ids"
              + " to go on without them");
    }
  }

  private static long earliestMs(Plan p) {
    long min = Long.MAX_VALUE;
    if (p.idf != null) {
      long[] t = p.idf.triples();
      for (int i = 0; i < t.length; i += 3) {
        if (t[i] != 0 || t[i + 1] != 0) {
          min = Math.min(min, t[i + 2]);
        }
      }
    } else if (p.scan != null) {
      for (SegmentScan.Entry e : p.scan.entries) {
        if (e instanceof SegmentScan.Rec r) {
          min = Math.min(min, r.ms());
        }
      }
    }
    return min;
  }

  /** Repairs one segment as its scan says, and takes in its ids. */
  private void apply(Plan p) throws IOException {
    LogSegment s = p.s;
    SegmentScan sc = p.scan;
    long[] triples;
    IdsFile idf = p.idf;
    if (sc == null) {
      triples = idf.triples();
      s.size = idf.size();
    } else if (sc.noHeader) {
      try (FileChannel ch = FileChannel.open(s.log, StandardOpenOption.WRITE)) {
        ch.truncate(0);
        IngestLog.writeHeader(ch, s.base, LogFormat.CURRENT);
        ch.force(true);
      }
      s.version = LogFormat.CURRENT;
      s.size = 0;
      triples = new long[0];
    } else {
      s.version = sc.version;
      if (idf != null && !countsMatch(sc, idf)) {
        warn(
            s.ids
                + " does not match the records of "
                + s.log.getFileName()
                + ": it is written again from them");
        idf = null;
      }
      for (SegmentScan.Entry e : sc.entries) {
        if (e instanceof SegmentScan.Drop d) {
          drop(s, sc, d, idf);
        }
      }
      if (sc.ignored != null) {
        warn("ingest log " + s.log + ": " + sc.ignored);
      }
      if (sc.cutWhy != null) {
        cut(s, sc);
      }
      s.size = sc.end - HEADER;
      triples = triples(sc, idf);
      if (idf != null && (p.sizeWrong || !Arrays.equals(triples, idf.triples()))) {
        writeIds(s, triples, triples.length / 3); // ids of dropped documents forgotten
      }
    }
    for (int i = 0; i < triples.length; i += 3) {
      if (triples[i] == 0 && triples[i + 1] == 0) {
        continue; // a document lost and never counted: its id is forgotten
      }
      s.newestMs = Math.max(s.newestMs, triples[i + 2]);
      if (triples[i + 2] >= sinceMs) {
        ids.put(triples[i], triples[i + 1], triples[i + 2]);
      }
    }
    if (!s.sealed) {
      activeIds = Arrays.copyOf(triples, Math.max(3 * 1024, triples.length * 2));
      activeIdCount = triples.length / 3;
    } else if (idf == null && !s.logDeleted) {
      writeIds(s, triples, triples.length / 3); // lost or damaged: written again from the log
    }
    segments.put(s.base, s);
  }

  /**
   * Whether the ids file has one id for every document of the log (records, and those of holes); a
   * drop whose size could only be guessed takes the difference.
   */
  private static boolean countsMatch(SegmentScan sc, IdsFile idf) {
    long n = 0;
    int guessAt = -1;
    int guesses = 0;
    for (int i = 0; i < sc.entries.size(); i++) {
      SegmentScan.Entry e = sc.entries.get(i);
      n += documents(e);
      if (e instanceof SegmentScan.Drop d && !d.exact()) {
        guessAt = i;
        guesses++;
      }
    }
    long diff = idf.count() - n;
    if (diff != 0 && guesses == 1) {
      SegmentScan.Drop d = (SegmentScan.Drop) sc.entries.get(guessAt);
      if (d.documents() + diff >= 0) {
        sc.entries.set(
            guessAt,
            new SegmentScan.Drop(
                d.off(),
                d.to(),
                (int) (d.documents() + diff),
                true,
                d.counted(),
                d.why(),
                d.ids()));
        diff = 0;
      }
    }
    if (diff != 0) {
      return false;
    }
    int i = 0;
    long[] t = idf.triples();
    for (SegmentScan.Entry e : sc.entries) {
      if (e instanceof SegmentScan.Rec r
          && (t[i * 3] != r.hi() || t[i * 3 + 1] != r.lo())
          && (t[i * 3] != 0 || t[i * 3 + 1] != 0)) {
        return false;
      }
      i += documents(e);
    }
    return true;
  }

  private static int documents(SegmentScan.Entry e) {
    if (e instanceof SegmentScan.Rec) {
      return 1;
    }
    return e instanceof SegmentScan.Hole h ? h.documents() : ((SegmentScan.Drop) e).documents();
  }

  /**
   * The segment's ids in record order, one per document: from its ids file when it has one, else
   * from its records; a document lost and not counted yet is forgotten (0, 0: sent again, it is
   * taken), one lost after it was counted stays remembered when its id is known.
   */
  private static long[] triples(SegmentScan sc, IdsFile idf) {
    long n = 0;
    for (SegmentScan.Entry e : sc.entries) {
      n += documents(e);
    }
    long[] t = new long[(int) (n * 3)];
    int i = 0;
    for (SegmentScan.Entry e : sc.entries) {
      int k = documents(e);
      if (idf != null) {
        if (!(e instanceof SegmentScan.Drop d) || d.counted()) {
          System.arraycopy(idf.triples(), i * 3, t, i * 3, k * 3);
        }
      } else if (e instanceof SegmentScan.Rec r) {
        t[i * 3] = r.hi();
        t[i * 3 + 1] = r.lo();
        t[i * 3 + 2] = r.ms();
      } else if (e instanceof SegmentScan.Hole h) {
        System.arraycopy(h.remembered(), 0, t, i * 3, Math.min(k * 3, h.remembered().length));
      } else if (e instanceof SegmentScan.Drop d && d.counted()) {
        long[] known = remembered(d);
        System.arraycopy(known, 0, t, i * 3, Math.min(k * 3, known.length));
      }
      i += k;
    }
    return t;
  }

  /** The ids a drop's hole remembers: those of documents counted before, when they read. */
  private static long[] remembered(SegmentScan.Drop d) {
    if (!d.counted()) {
      return new long[0];
    }
    int fit = (int) Math.min(d.documents(), (d.to() - d.off() - LogFormat.HOLE_HEADER) / ID_ENTRY);
    List<SegmentScan.Lost> known = d.ids().subList(0, Math.min(fit, d.ids().size()));
    long[] t = new long[known.size() * 3];
    for (int i = 0; i < known.size(); i++) {
      t[i * 3] = known.get(i).hi();
      t[i * 3 + 1] = known.get(i).lo();
      t[i * 3 + 2] = known.get(i).ms();
    }
    return t;
  }

  /** Moves a damaged range to the quarantine folder and puts a hole in its place. */
  private void drop(LogSegment s, SegmentScan sc, SegmentScan.Drop d, IdsFile idf)
      throws IOException {
    long len = d.to() - d.off();
    Path qdir = dir.resolve("quarantine");
    Files.createDirectories(qdir);
    Path qf = qdir.resolve(LogFormat.name(sc.position(d.off())) + "-" + len + ".bad");
    if (!Files.exists(qf)) { // else kept by a recovery that stopped half-way: that copy is older
      Path tmp = qf.resolveSibling(qf.getFileName() + ".tmp");
      try (FileChannel in = FileChannel.open(s.log, StandardOpenOption.READ);
          FileChannel out =
              FileChannel.open(
                  tmp,
                  StandardOpenOption.CREATE,
                  StandardOpenOption.TRUNCATE_EXISTING,
                  StandardOpenOption.WRITE)) {
        long done = 0;
        while (done < len) {
          long n = in.transferTo(d.off() + done, len - done, out);
          if (n <= 0) {
            throw new IOException("cannot copy the damaged bytes of " + s.log + " to " + qf);
          }
          done += n;
        }
        out.force(true);
      }
      Files.move(tmp, qf, StandardCopyOption.ATOMIC_MOVE);
      LogFormat.syncDir(qdir);
    }
    byte[] head = LogFormat.hole(len, d.documents(), remembered(d));
    try (FileChannel ch = FileChannel.open(s.log, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.wrap(head);
      long at = d.off();
      while (b.hasRemaining()) {
        at += ch.write(b, at);
      }
      ByteBuffer zeros = ByteBuffer.allocate((int) Math.min(len - head.length, 1 << 16));
      while (at < d.to()) {
        zeros.clear().limit((int) Math.min(zeros.capacity(), d.to() - at));
        at += ch.write(zeros, at);
      }
      ch.force(true);
    }
    String message = describe(s, sc, d, idf, qf);
    LOG.error(message);
    notices.add(message);
  }

  private static String describe(
      LogSegment s, SegmentScan sc, SegmentScan.Drop d, IdsFile idf, Path qf) {
    StringBuilder m = new StringBuilder("ingest log ").append(s.log).append(": ");
    String where =
        (d.to() - d.off())
            + " bytes at byte "
            + d.off()
            + " (positions "
            + sc.position(d.off())
            + " to "
            + sc.position(d.to())
            + ")";
    if (d.why().startsWith(SegmentScan.LAST_MARKER)) {
      m.append("the group written last is whole but its commit marker, ")
          .append(where)
          .append(", does not read back: the marker is dropped and the group's records are kept")
          .append(" (had they not been acknowledged, they are duplicates when sent again)");
      return m.append(". The damaged bytes are kept in ").append(qf).toString();
    }
    m.append(where)
        .append(" do not read back (")
        .append(d.why())
        .append(") inside data that was acknowledged: dropped; ");
    int n = d.documents();
    if (n == 0) {
      m.append(d.exact() ? "no document was lost" : "no whole document was in them");
    } else {
      boolean one = n == 1 && d.exact();
      m.append(d.exact() ? "" : "at least ").append(n).append(one ? " document" : " documents");
      m.append(" lost");
      if (!d.ids().isEmpty()) {
        m.append(one ? " (id " : " (ids ");
        for (int i = 0; i < d.ids().size() && i < 20; i++) {
          m.append(i == 0 ? "" : ", ").append('"').append(d.ids().get(i).id()).append('"');
        }
        m.append(d.ids().size() > 20 ? ", ..." : "").append(')');
      }
      if (d.ids().size() < n) {
        m.append(
            one
                ? " (its id does not read back: the quarantined bytes may show the document)"
                : "; "
                    + (d.ids().isEmpty() ? "their ids do not" : "some ids do not")
                    + " read back: the quarantined bytes may show the documents");
      }
      if (d.counted()) {
        m.append(one ? "; it was" : "; they were")
            .append(" counted by the standing queries before (their checkpoint is past ")
            .append(one ? "it)" : "them)");
        int unknown = n - Math.min(n, remembered(d).length / 3);
        if (idf == null && unknown > 0) {
          m.append(", but ")
              .append(one ? "its id" : unknown + " of their ids")
              .append(" cannot be read: sent again within the --id-horizon, ")
              .append(one ? "it is" : "they are")
              .append(" counted again");
        } else {
          m.append(one ? " and its id stays remembered" : " and their ids stay remembered");
        }
      } else {
        m.append(one ? "; it was" : "; they were")
            .append(" not counted yet: send ")
            .append(one ? "it" : "them")
            .append(" again, ")
            .append(one ? "it is" : "they are")
            .append(" counted once");
      }
    }
    return m.append(". The damaged bytes are kept in ").append(qf).toString();
  }

  private void cut(LogSegment s, SegmentScan sc) throws IOException {
    long bytes = sc.fileSize - sc.end;
    try (FileChannel ch = FileChannel.open(s.log, StandardOpenOption.WRITE)) {
      ch.truncate(sc.end);
      ch.force(true);
    }
    StringBuilder m = new StringBuilder("ingest log ").append(s.log).append(": the last ");
    m.append(bytes)
        .append(" bytes (after byte ")
        .append(sc.end)
        .append(", position ")
        .append(sc.position(sc.end))
        .append(") were cut off: ")
        .append(sc.cutWhy);
    if (sc.version >= LogFormat.V2) {
      if (sc.cutRecords == 0) {
        m.append("; no complete document was in them");
      } else {
        m.append(", so they were never acknowledged (a crash while they were written)");
        m.append("; their ").append(sc.cutRecords).append(" complete documents (ids ");
        m.append(String.join(", ", sc.cutIds)).append(sc.cutRecords > 10 ? ", ..." : "");
        m.append(") were not taken: their clients got no 202 and send them again");
      }
      LOG.warn(m.toString());
    } else {
      m.append(
          " at the end of a version 1 segment, which does not record what was acknowledged: a"
              + " crash while it was written, or damage");
      if (!sc.cutIds.isEmpty()) {
        m.append(" (id ").append(String.join(", ", sc.cutIds)).append(')');
      }
      m.append("; if it was acknowledged, send it again");
      LOG.error(m.toString());
    }
    notices.add(m.toString());
  }

  private void warn(String message) {
    LOG.warn(message);
    notices.add(message);
  }

  /** Reads a sealed segment's ids file, checked; null when it is missing or damaged. */
  static IdsFile readIds(Path path) throws IOException {
    byte[] all;
    try {
      all = Files.readAllBytes(path);
    } catch (NoSuchFileException e) {
      return null;
    }
    int version = all.length < IDS_HEADER ? -1 : all[4];
    if (all.length < IDS_HEADER
        || !Arrays.equals(all, 0, 4, LogFormat.IDS_MAGIC, 0, 4)
        || version != LogFormat.IDS_V1 && version != LogFormat.IDS_V2
        || all[5] != 0
        || all[6] != 0
        || all[7] != 0) {
      return null;
    }
    ByteBuffer b = ByteBuffer.wrap(all);
    long count = b.getLong(8);
    if (count < 0 || count * ID_ENTRY != all.length - IDS_HEADER) {
      return null;
    }
    if (idsCrc(version, all) != b.getInt(24)) {
      return null;
    }
    long size = b.getLong(16);
    if (size < 0) {
      return null;
    }
    long[] t = new long[(int) count * 3];
    b.position(IDS_HEADER);
    for (int i = 0; i < t.length; i++) {
      t[i] = b.getLong();
    }
    return new IdsFile(version, count, size, t);
  }

  /**
   * The checksum of an ids file: version 1 over its entries, version 2 over the 24 bytes of its
   * header before the checksum and its entries.
   */
  private static int idsCrc(int version, byte[] all) {
    java.util.zip.CRC32C c = new java.util.zip.CRC32C();
    if (version >= LogFormat.IDS_V2) {
      c.update(all, 0, IDS_HEADER - 4);
    }
    c.update(all, IDS_HEADER, all.length - IDS_HEADER);
    return (int) c.getValue();
  }

  /** Writes a segment's ids file ({@code count} ids of {@code triples}) and forces it. */
  static void writeIds(LogSegment s, long[] triples, int count) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(IDS_HEADER + count * ID_ENTRY);
    b.put(LogFormat.IDS_MAGIC).put((byte) LogFormat.IDS_VERSION).put(new byte[3]).putLong(count);
    b.putLong(s.size).putInt(0);
    for (int i = 0; i < count * 3; i++) {
      b.putLong(triples[i]);
    }
    b.putInt(24, idsCrc(LogFormat.IDS_VERSION, b.array()));
    b.flip();
    LogFormat.writeAtomically(s.ids, b);
  }
}
