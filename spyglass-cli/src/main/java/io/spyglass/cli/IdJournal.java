package io.spyglass.cli;

import io.spyglass.engine.ingest.IdIndex;
import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ids of the documents {@code serve --runtime flink --kafka HOST:PORT --source http} wrote to
 * the records topic, on disk under {@code --data/kafka-ids/}, in the order of the Kafka
 * transactions that carry them: a group (a request's new documents) is written and forced to the
 * disk once its records are on the broker and before their transaction commits; its outcome
 * (committed, aborted) follows it once known. A group whose outcome is not in the journal (the
 * process died between the commit and its mark, or the commit failed without saying how) is
 * <em>unresolved</em>: Kafka tells ({@code IngestTopicWriter#committed}) before it counts either
 * way. A group torn at the end of the last file (the process died while it was forced) was never
 * committed: it is cut off.
 *
 * <pre>
 * file      NNNNNNNNNNNNNNNNNNNN.ids, named by its first group's number (20 digits)
 * header    SGKI, version 1, three zero bytes
 * group     'G', number (8), partition (4), offset of its first record (8), accepted at (epoch ms,
 *           8), ids n (4), n ids' hashes (16 each: the first half of the id's SHA-256), CRC32C (4)
 * outcome   'C' (committed) or 'A' (aborted), the group's number (8), CRC32C (4)
 * </pre>
 *
 * A file is closed after an hour of groups (or 64 MiB) and deleted once its last group is older
 * than the id horizon, its ids forgotten with it. Not thread-safe: one writer ({@link TopicIngest})
 * owns it.
 */
final class IdJournal implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(IdJournal.class);

  /** The journal's folder under {@code --data}. */
  static final String DIR = "kafka-ids";

  private static final byte[] MAGIC = {'S', 'G', 'K', 'I'};
  private static final int HEADER = 8;
  private static final byte GROUP = 'G';
  private static final byte COMMITTED = 'C';
  private static final byte ABORTED = 'A';
  private static final int GROUP_FIXED = 1 + 8 + 4 + 8 + 8 + 4;
  private static final int OUTCOME = 1 + 8 + 4;
  private static final int MAX_IDS = 1 << 24;

  static final long ROLL_MS = 3_600_000;
  static final long ROLL_BYTES = 64L << 20;

  /**
   * A request's new documents, as written in one transaction.
   *
   * @param hashes two longs per id ({@link IdIndex#hash})
   */
  record Group(long number, int partition, long offset, long acceptedMs, long[] hashes) {}

  /** A closed file: its path and when its last group was accepted. */
  private record Closed(Path path, long lastMs) {}

  private final Path dir;
  private final List<Closed> closed = new ArrayList<>();
  private FileChannel current;
  private Path currentPath;
  private long currentFirstMs = -1;
  private long currentLastMs = -1;
  private long nextNumber;

  private IdJournal(Path dir) {
    this.dir = dir;
  }

  /** What the journal held at its opening. */
  record Opened(IdJournal journal, List<Group> unresolved) {}

  /** Whether {@code dir} holds no journal file (or is missing). */
  static boolean holdsNone(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return true;
    }
    try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, "*.ids")) {
      return !s.iterator().hasNext();
    }
  }

  /**
   * Reads the journal in {@code dir} (created when missing): the ids of its committed groups
   * accepted since {@code sinceMs} go to {@code ids}; the groups whose outcome it does not hold are
   * returned, their ids not in {@code ids}.
   *
   * @throws IOException when a file cannot be read, or one before the last is damaged (the message
   *     says what to do)
   */
  static Opened open(Path dir, IdIndex ids, long sinceMs) throws IOException {
    Files.createDirectories(dir);
    IdJournal j = new IdJournal(dir);
    List<Path> files = new ArrayList<>();
    try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, "*.ids")) {
      s.forEach(files::add);
    }
    files.sort(null);
    Map<Long, Group> pending = new LinkedHashMap<>();
    for (int i = 0; i < files.size(); i++) {
      Path file = files.get(i);
      Scan scan =
          scan(
              file,
              new Entries() {
                @Override
                public void group(Group g) {
                  pending.put(g.number(), g);
                  j.nextNumber = Math.max(j.nextNumber, g.number() + 1);
                  if (g.acceptedMs() >= sinceMs) {
                    put(g, ids);
                  }
                }

                @Override
                public void outcome(long number, boolean committed) {
                  Group g = pending.remove(number);
                  if (g != null && !committed) {
                    forget(g, ids);
                  }
                }
              });
      boolean last = i == files.size() - 1;
      if (scan.damage() != null) {
        j.cut(file, scan, last);
      }
      if (last) {
        j.currentPath = file;
        j.currentFirstMs = scan.firstMs();
        j.currentLastMs = scan.lastMs();
      } else {
        j.closed.add(new Closed(file, scan.lastMs()));
      }
    }
    List<Group> unresolved = new ArrayList<>();
    for (Group g : pending.values()) {
      forget(g, ids);
      unresolved.add(g);
    }
    if (j.currentPath != null) {
      j.current = FileChannel.open(j.currentPath, StandardOpenOption.WRITE);
      j.current.position(j.current.size());
    }
    return new Opened(j, unresolved);
  }

  /** What a file's entries are, as {@link #scan} reads them. */
  private interface Entries {
    void group(Group g);

    void outcome(long number, boolean committed);
  }

  /**
   * What a scan found: the bytes that read, what does not read after them (null: none), when its
   * first and last groups were accepted (-1: none).
   */
  private record Scan(int goodBytes, int allBytes, String damage, long firstMs, long lastMs) {}

  /** Reads a file's entries, in order, up to the first that does not read. */
  private static Scan scan(Path file, Entries out) throws IOException {
    byte[] all = Files.readAllBytes(file);
    if (all.length < HEADER
        || !Arrays.equals(Arrays.copyOf(all, MAGIC.length), MAGIC)
        || all[MAGIC.length] != 1) {
      return new Scan(0, all.length, "its header is not an id journal's", -1, -1);
    }
    ByteBuffer b = ByteBuffer.wrap(all);
    b.position(HEADER);
    long firstMs = -1;
    long lastMs = -1;
    while (b.hasRemaining()) {
      int at = b.position();
      try {
        byte kind = b.get();
        if (kind == GROUP) {
          long number = b.getLong();
          int partition = b.getInt();
          long offset = b.getLong();
          long ms = b.getLong();
          int n = b.getInt();
          if (n < 1 || n > MAX_IDS || b.remaining() < n * 16L + 4) {
            throw new BufferUnderflowException();
          }
          long[] hashes = new long[2 * n];
          for (int k = 0; k < hashes.length; k++) {
            hashes[k] = b.getLong();
          }
          if (!checked(all, at, b)) {
            return new Scan(
                at, all.length, "a group at byte " + at + " fails its check", firstMs, lastMs);
          }
          firstMs = firstMs < 0 ? ms : firstMs;
          lastMs = Math.max(lastMs, ms);
          out.group(new Group(number, partition, offset, ms, hashes));
        } else if (kind == COMMITTED || kind == ABORTED) {
          long number = b.getLong();
          if (!checked(all, at, b)) {
            return new Scan(
                at, all.length, "an outcome at byte " + at + " fails its check", firstMs, lastMs);
          }
          out.outcome(number, kind == COMMITTED);
        } else {
          return new Scan(at, all.length, "byte " + at + " starts no entry", firstMs, lastMs);
        }
      } catch (BufferUnderflowException e) {
        return new Scan(
            at, all.length, "an entry at byte " + at + " is cut short", firstMs, lastMs);
      }
    }
    return new Scan(all.length, all.length, null, firstMs, lastMs);
  }

  /** Whether the CRC32C after the entry from {@code from} to the buffer's position matches. */
  private static boolean checked(byte[] all, int from, ByteBuffer b) {
    int end = b.position();
    int crc = b.getInt();
    CRC32C c = new CRC32C();
    c.update(all, from, end - from);
    return (int) c.getValue() == crc;
  }

  /**
   * A file whose entries stop reading: the last is cut there (a write torn by the process's end:
   * its group was never committed); one before it is refused.
   */
  private void cut(Path file, Scan scan, boolean last) throws IOException {
    if (!last) {
      throw new IOException(
          "the id journal's file "
              + file
              + " is damaged ("
              + scan.damage()
              + "): its ids tell a document sent again from a new one. Restore it from a copy, or"
              + " move it away to go on (documents of its requests sent again are then counted"
              + " again)");
    }
    LOG.warn(
        "the id journal's file {} ends with {} bytes that do not read ({}): written while the"
            + " service stopped, never committed; cut off",
        file,
        scan.allBytes() - scan.goodBytes(),
        scan.damage());
    if (scan.goodBytes() < HEADER) {
      Files.write(file, header());
      force(dir);
    } else {
      try (FileChannel c = FileChannel.open(file, StandardOpenOption.WRITE)) {
        c.truncate(scan.goodBytes());
        c.force(true);
      }
    }
  }

  /** Adds the group's ids to {@code ids}, accepted at its time. */
  static void put(Group g, IdIndex ids) {
    long[] h = g.hashes();
    for (int k = 0; k < h.length; k += 2) {
      ids.put(h[k], h[k + 1], g.acceptedMs());
    }
  }

  /**
   * Removes the group's ids from {@code ids}, where they are of this group (not accepted since).
   */
  static void forget(Group g, IdIndex ids) {
    long[] h = g.hashes();
    for (int k = 0; k < h.length; k += 2) {
      ids.remove(h[k], h[k + 1], g.acceptedMs());
    }
  }

  /** The number the next group gets. */
  long nextNumber() {
    return nextNumber;
  }

  /**
   * Writes a group and forces it to the disk, before its transaction commits: a journal that does
   * not hold it after a crash had it torn, and then its transaction never committed.
   */
  void pending(Group g) throws IOException {
    // a number is used once, whatever becomes of its group: an outcome names one group only
    nextNumber = Math.max(nextNumber, g.number() + 1);
    if (current == null
        || current.size() >= ROLL_BYTES
        || (currentFirstMs >= 0 && g.acceptedMs() - currentFirstMs >= ROLL_MS)) {
      roll(g);
    }
    long[] h = g.hashes();
    ByteBuffer b = ByteBuffer.allocate(GROUP_FIXED + h.length * 8 + 4);
    b.put(GROUP)
        .putLong(g.number())
        .putInt(g.partition())
        .putLong(g.offset())
        .putLong(g.acceptedMs())
        .putInt(h.length / 2);
    for (long x : h) {
      b.putLong(x);
    }
    append(b);
    current.force(false);
    currentFirstMs = currentFirstMs < 0 ? g.acceptedMs() : currentFirstMs;
    currentLastMs = Math.max(currentLastMs, g.acceptedMs());
  }

  /** Writes a group's outcome (forced with the next group). */
  void resolved(long number, boolean committed) throws IOException {
    if (current == null) {
      return; // no group was written in this journal: nothing refers to it
    }
    ByteBuffer b = ByteBuffer.allocate(OUTCOME);
    b.put(committed ? COMMITTED : ABORTED).putLong(number);
    append(b);
  }

  private void append(ByteBuffer b) throws IOException {
    CRC32C c = new CRC32C();
    c.update(b.array(), 0, b.position());
    b.putInt((int) c.getValue());
    b.flip();
    long at = current.position();
    try {
      while (b.hasRemaining()) {
        current.write(b);
      }
    } catch (IOException e) {
      current.truncate(at); // nothing half written stays before the next entry
      current.position(at);
      throw e;
    }
  }

  private void roll(Group first) throws IOException {
    if (current != null) {
      current.force(false);
      current.close();
      closed.add(new Closed(currentPath, currentLastMs));
    }
    Path file = dir.resolve(String.format("%020d.ids", first.number()));
    current =
        FileChannel.open(
            file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    if (current.size() == 0) {
      current.write(ByteBuffer.wrap(header()));
      current.force(true);
      force(dir);
    }
    currentPath = file;
    currentFirstMs = -1;
    currentLastMs = -1;
  }

  private static byte[] header() {
    return new byte[] {MAGIC[0], MAGIC[1], MAGIC[2], MAGIC[3], 1, 0, 0, 0};
  }

  private static void force(Path dir) throws IOException {
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    }
  }

  /**
   * Deletes the closed files whose last group was accepted before {@code sinceMs}, forgetting their
   * ids (those not accepted again since: whatever their outcome, they are past the horizon).
   *
   * @return how many files were deleted
   */
  int retire(long sinceMs, IdIndex ids) throws IOException {
    int retired = 0;
    while (!closed.isEmpty() && closed.get(0).lastMs() < sinceMs) {
      Path file = closed.get(0).path();
      scan(
          file,
          new Entries() {
            @Override
            public void group(Group g) {
              forget(g, ids);
            }

            @Override
            public void outcome(long number, boolean committed) {}
          });
      Files.delete(file);
      closed.remove(0);
      retired++;
    }
    return retired;
  }

  @Override
  public void close() throws IOException {
    if (current != null) {
      current.force(false);
      current.close();
      current = null;
    }
  }
}
