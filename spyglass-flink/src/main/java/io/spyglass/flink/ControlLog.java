package io.spyglass.flink;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * The standing queries' control messages on the job over the ingest log ({@link MeteringRun}): a
 * small append-only file, each message ({@link io.spyglass.flink.client.ControlMessage} JSON:
 * query, kill, ended) with the ingest log position it takes effect at, forced to the disk before
 * {@code submit} or {@code kill} returns. The job's source ({@link IngestInput}) reads it with the
 * log: a message is handed to the filter just before the first document at or after its position,
 * and its offset here is in the same checkpoint as the log's, so queries reach the filter in order
 * with the documents, again the same way after a restore.
 *
 * <pre>
 * header: 'S' 'G' 'C' 'L', version 1, three zero bytes
 * entry:  JSON length n (4 bytes), CRC32C of the next 8 + n bytes (4 bytes),
 *         position in the ingest log it takes effect at, -1 for at once (8 bytes), JSON (n bytes)
 * </pre>
 *
 * An entry that does not read whole at the end (a write a crash tore) is not read, and is cut off
 * when the writer opens the file again. Numbers big-endian.
 */
final class ControlLog implements Closeable {
  static final byte[] MAGIC = {'S', 'G', 'C', 'L'};
  static final int VERSION = 1;
  static final int HEADER = 8;
  static final int ENTRY_HEADER = 16;

  /** The largest message taken: a query's text is at most a few hundred KiB. */
  static final int MAX_JSON = 16 << 20;

  /** One message, at {@code offset}, the next starting at {@code next}. */
  record Entry(long offset, long next, long at, byte[] json) {}

  private final Path file;
  private final FileChannel ch;
  private long end;

  private ControlLog(Path file, FileChannel ch, long end) {
    this.file = file;
    this.ch = ch;
    this.end = end;
  }

  /**
   * Opens {@code file} to append, creating it (with its header) when missing; a torn entry at its
   * end is cut off.
   */
  static ControlLog open(Path file) throws IOException {
    Files.createDirectories(file.getParent());
    FileChannel ch =
        FileChannel.open(
            file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
    try {
      if (ch.size() < HEADER) {
        ByteBuffer h = ByteBuffer.allocate(HEADER).put(MAGIC).put((byte) VERSION);
        h.position(HEADER).flip();
        ch.truncate(0);
        ch.write(h, 0);
        ch.force(true);
      } else {
        checkHeader(file, ch);
      }
      long at = HEADER;
      Entry e;
      while ((e = read(ch, at)) != null) {
        at = e.next();
      }
      if (ch.size() > at) {
        ch.truncate(at);
        ch.force(true);
      }
      return new ControlLog(file, ch, at);
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
  }

  private static void checkHeader(Path file, FileChannel ch) throws IOException {
    ByteBuffer h = ByteBuffer.allocate(HEADER);
    ch.read(h, 0);
    if (!Arrays.equals(h.array(), 0, 4, MAGIC, 0, 4) || h.get(4) != VERSION) {
      throw new IOException(
          file
              + " is not a control log of version "
              + VERSION
              + " (it does not begin with SGCL 1): restore it from a copy, or move it away to"
              + " start without standing queries on the job");
    }
  }

  /** Appends a message and forces it to the disk; returns its offset. */
  synchronized long append(long at, byte[] json) throws IOException {
    if (json.length > MAX_JSON) {
      throw new IOException("a control message of " + json.length + " bytes is over " + MAX_JSON);
    }
    ByteBuffer b = ByteBuffer.allocate(ENTRY_HEADER + json.length);
    b.putInt(json.length).putInt(0).putLong(at).put(json);
    CRC32C c = new CRC32C();
    c.update(b.array(), 8, 8 + json.length);
    b.putInt(4, (int) c.getValue()).flip();
    long offset = end;
    try {
      long p = offset;
      while (b.hasRemaining()) {
        p += ch.write(b, p);
      }
      ch.force(false);
    } catch (IOException e) {
      try {
        ch.truncate(offset);
      } catch (IOException again) {
        e.addSuppressed(again);
      }
      throw e;
    }
    end = offset + ENTRY_HEADER + json.length;
    return offset;
  }

  /** Where the next message goes. */
  synchronized long end() {
    return end;
  }

  Path file() {
    return file;
  }

  /** The whole message at {@code offset} of {@code ch}; null when none is there whole (yet). */
  static Entry read(FileChannel ch, long offset) throws IOException {
    long size = ch.size();
    if (size - offset < ENTRY_HEADER) {
      return null;
    }
    ByteBuffer h = ByteBuffer.allocate(ENTRY_HEADER);
    readFully(ch, h, offset);
    int n = h.getInt(0);
    if (n < 0 || n > MAX_JSON || size - offset - ENTRY_HEADER < n) {
      return null;
    }
    ByteBuffer json = ByteBuffer.allocate(n);
    readFully(ch, json, offset + ENTRY_HEADER);
    CRC32C c = new CRC32C();
    c.update(h.array(), 8, 8);
    c.update(json.array(), 0, n);
    if ((int) c.getValue() != h.getInt(4)) {
      return null;
    }
    return new Entry(offset, offset + ENTRY_HEADER + n, h.getLong(8), json.array());
  }

  private static void readFully(FileChannel ch, ByteBuffer b, long at) throws IOException {
    while (b.hasRemaining()) {
      if (ch.read(b, at + b.position()) < 0) {
        return;
      }
    }
  }

  /** Reads a control log as it grows; the file may not exist yet. One thread. */
  static final class Reader implements Closeable {
    private final Path file;
    private FileChannel ch;

    Reader(Path file) {
      this.file = file;
    }

    /** The message at {@code offset}; null when none is there whole (yet). */
    Entry read(long offset) throws IOException {
      if (ch == null) {
        try {
          ch = FileChannel.open(file, StandardOpenOption.READ);
        } catch (NoSuchFileException e) {
          return null;
        }
        checkHeader(file, ch);
      }
      return ControlLog.read(ch, offset);
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
    ch.close();
  }
}
