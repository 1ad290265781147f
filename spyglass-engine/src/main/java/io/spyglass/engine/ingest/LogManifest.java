package io.spyglass.engine.ingest;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The ingest log's manifest ({@code ingest/manifest}): what the log should hold, so that a file
 * that went missing is noticed. Written whole (a new file renamed over the old, forced).
 *
 * <pre>
 *   'S' 'G' 'I' 'M', version 1, three zero bytes,
 *   first segment whose ids are kept (its base position, 8 bytes),
 *   a checkpoint position reported by the standing queries, or -1 before the first (8 bytes),
 *   CRC32C of the 24 bytes before (4 bytes)
 * </pre>
 *
 * @param firstBase the base of the first segment the log keeps (its records or its ids)
 * @param checkpoint a position a checkpoint covered, -1 when none was ever reported
 */
record LogManifest(long firstBase, long checkpoint) {
  static final String FILE = "manifest";
  static final byte[] MAGIC = {'S', 'G', 'I', 'M'};
  static final int SIZE = 28;

  /** What {@link #read} found. */
  record Read(LogManifest manifest, String problem) {}

  /** The manifest in {@code dir}: null with no problem when there is none (a log before it). */
  static Read read(Path dir) throws IOException {
    byte[] b;
    try {
      b = Files.readAllBytes(dir.resolve(FILE));
    } catch (NoSuchFileException e) {
      return new Read(null, null);
    }
    if (b.length != SIZE
        || !Arrays.equals(b, 0, 4, MAGIC, 0, 4)
        || b[4] != 1
        || LogFormat.crc(b, 0, SIZE - 4) != ByteBuffer.wrap(b).getInt(SIZE - 4)) {
      return new Read(null, dir.resolve(FILE) + " is damaged (it is written again)");
    }
    ByteBuffer w = ByteBuffer.wrap(b);
    return new Read(new LogManifest(w.getLong(8), w.getLong(16)), null);
  }

  /** Writes it in {@code dir}, replacing the one there, and forces it to the disk. */
  void write(Path dir) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(SIZE);
    b.put(MAGIC).put((byte) 1).put(new byte[3]).putLong(firstBase).putLong(checkpoint);
    b.putInt(LogFormat.crc(b.array(), 0, SIZE - 4)).flip();
    LogFormat.writeAtomically(dir.resolve(FILE), b);
  }
}
