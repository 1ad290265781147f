package io.spyglass.sinks;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CompletableFuture;

/**
 * Appends each document to a file as one line: the document, then {@code \n}, in one write to the
 * operating system (not fsync'd: a line written survives the process, not a power loss). Every sink
 * of the same file shares one appender, so lines from several queries never interleave. The file is
 * opened at the first document, without following a link.
 */
final class FileSender implements Sender {
  private final Appender appender;

  FileSender(Appender appender) {
    this.appender = appender;
  }

  @Override
  public CompletableFuture<Outcome> send(SinkDocument doc) {
    try {
      appender.append(doc.json());
      return CompletableFuture.completedFuture(Outcome.DELIVERED);
    } catch (IOException | RuntimeException e) {
      return CompletableFuture.completedFuture(
          Outcome.retry("cannot write " + appender.path + ": " + Sender.describe(e)));
    }
  }

  /** One file, appended to by every sink that names it. Thread-safe. */
  static final class Appender implements AutoCloseable {
    private static final byte[] NEWLINE = {'\n'};
    final Path path;
    private final SinkPolicy policy;
    private FileChannel channel;

    Appender(Path path, SinkPolicy policy) {
      this.path = path;
      this.policy = policy;
    }

    synchronized void append(byte[] line) throws IOException {
      if (channel == null) {
        policy.prepareFile(path);
        channel =
            FileChannel.open(
                path,
                StandardOpenOption.CREATE,
                StandardOpenOption.WRITE,
                StandardOpenOption.APPEND,
                LinkOption.NOFOLLOW_LINKS);
      }
      ByteBuffer[] both = {ByteBuffer.wrap(line), ByteBuffer.wrap(NEWLINE)};
      try {
        long left = line.length + 1L;
        while (left > 0) {
          left -= channel.write(both);
        }
      } catch (IOException e) {
        close(); // opened anew at the next attempt
        throw e;
      }
    }

    @Override
    public synchronized void close() {
      if (channel != null) {
        try {
          channel.close();
        } catch (IOException e) {
          // nothing left to write
        }
        channel = null;
      }
    }
  }
}
