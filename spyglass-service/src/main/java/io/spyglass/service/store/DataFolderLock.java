package io.spyglass.service.store;

import io.spyglass.core.SpyglassClock;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * One Spyglass at a time in a data folder: two services writing the same ingest log and databases
 * would overwrite each other's acknowledged documents. Held from the service's start to its close
 * by an exclusive lock on the file {@value #FILE} in the folder ({@link FileChannel#tryLock()}: the
 * system releases it when the process ends, however it ends, so a killed service leaves no stale
 * lock). The file names the holder: its process id and since when.
 *
 * <pre>{@code
 * try (DataFolderLock lock = DataFolderLock.acquire(dataDir)) { ... }
 * }</pre>
 */
public final class DataFolderLock implements AutoCloseable {
  /** The lock file's name in the data folder. */
  public static final String FILE = "spyglass.lock";

  /**
   * Folders locked by this process: asked again, the answer comes from here (opening and closing
   * the file a second time would release the system's lock on it).
   */
  private static final Set<Path> HELD = ConcurrentHashMap.newKeySet();

  private final Path folder;
  private final FileChannel channel;
  private final FileLock lock;
  private boolean closed;

  private DataFolderLock(Path folder, FileChannel channel, FileLock lock) {
    this.folder = folder;
    this.channel = channel;
    this.lock = lock;
  }

  /**
   * Locks {@code dataDir} (created if needed) for this process.
   *
   * @throws IOException when another process (or another service in this one) holds it: the message
   *     names the holder and what to do; or when the folder cannot be locked
   */
  public static DataFolderLock acquire(Path dataDir) throws IOException {
    return acquire(dataDir, SpyglassClock.system());
  }

  /**
   * As {@link #acquire(Path)}, recording in the lock file since when (by {@code clock}, epoch
   * milliseconds) it is held.
   */
  public static DataFolderLock acquire(Path dataDir, LongSupplier clock) throws IOException {
    Files.createDirectories(dataDir);
    Path folder = dataDir.toRealPath();
    Path file = folder.resolve(FILE);
    long pid = ProcessHandle.current().pid();
    if (!HELD.add(folder)) {
      throw new IOException(inUse(folder, "this process, pid " + pid));
    }
    try {
      FileChannel ch =
          FileChannel.open(
              file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
      FileLock l;
      try {
        l = ch.tryLock();
      } catch (IOException e) {
        ch.close();
        throw new IOException(
            "cannot lock the data folder "
                + folder
                + " ("
                + e.getMessage()
                + "): it must be on a file system that supports file locks (a local disk)",
            e);
      }
      if (l == null) {
        ch.close();
        throw new IOException(inUse(folder, holder(file)));
      }
      try {
        IoHook hook = beforeRecorded;
        if (hook != null) {
          hook.run(file);
        }
        byte[] who =
            ("pid " + pid + "\nsince " + Instant.ofEpochMilli(clock.getAsLong()) + "\n")
                .getBytes(StandardCharsets.UTF_8);
        ch.truncate(0);
        ch.write(ByteBuffer.wrap(who), 0);
        ch.force(true);
      } catch (IOException | RuntimeException | Error e) {
        // not taken after all: the lock and the file go, so that a later try can take them
        try {
          l.release();
          ch.close();
        } catch (IOException again) {
          e.addSuppressed(again);
        }
        throw e;
      }
      return new DataFolderLock(folder, ch, l);
    } catch (IOException | RuntimeException | Error e) {
      HELD.remove(folder);
      throw e;
    }
  }

  /** Something that may fail as the disk does. */
  @FunctionalInterface
  interface IoHook {
    void run(Path file) throws IOException;
  }

  /**
   * Test hook: runs once the lock is taken, before the holder is written into its file (a full disk
   * fails there); null normally.
   */
  static volatile IoHook beforeRecorded;

  private static String inUse(Path folder, String holder) {
    return "the data folder "
        + folder
        + " is in use by another Spyglass ("
        + holder
        + "): two services on one --data folder would lose each other's documents. Stop that"
        + " one first, or give this one another --data folder";
  }

  /** Who holds the lock, as its file says. */
  private static String holder(Path file) {
    try {
      String text = Files.readString(file, StandardCharsets.UTF_8).strip();
      if (text.startsWith("pid ")) {
        return text.replace('\n', ',').replace(",since", ", since");
      }
    } catch (NoSuchFileException e) {
      // removed meanwhile
    } catch (IOException e) {
      // unreadable: said below
    }
    return "its process id is not recorded yet in " + file;
  }

  public Path folder() {
    return folder;
  }

  /** Releases the lock. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      lock.release();
      channel.close();
    } catch (IOException e) {
      // the process ends soon after, and with it the lock
    } finally {
      HELD.remove(folder);
    }
  }
}
