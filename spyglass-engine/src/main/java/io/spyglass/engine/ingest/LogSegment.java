package io.spyglass.engine.ingest;

import java.nio.file.Path;

/**
 * A segment of the {@link IngestLog}: its data are the bytes after the header, {@code size} of them
 * committed.
 */
final class LogSegment {
  final long base;
  final Path log;
  final Path ids;
  volatile long size;
  boolean sealed;
  boolean logDeleted;
  int version = LogFormat.CURRENT;
  long newestMs = Long.MIN_VALUE;

  LogSegment(Path dir, long base) {
    this.base = base;
    this.log = dir.resolve(LogFormat.name(base) + ".log");
    this.ids = dir.resolve(LogFormat.name(base) + ".ids");
  }

  long end() {
    return base + size;
  }
}
