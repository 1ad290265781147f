package io.spyglass.service.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DatabaseTest {
  @TempDir Path dir;

  @Test
  void migratesOnceToTheNewestVersion() throws Exception {
    try (Database db = Database.open(dir)) {
      assertThat(db.version()).isEqualTo(Database.SCHEMA.newest());
    }
    try (Database db = Database.open(dir)) {
      assertThat(db.version()).isEqualTo(Database.SCHEMA.newest());
      int rows =
          db.with(
              c -> {
                try (var s = c.createStatement();
                    var rs = s.executeQuery("SELECT COUNT(*) FROM schema_version")) {
                  rs.next();
                  return rs.getInt(1);
                }
              });
      assertThat(rows).isEqualTo(Database.SCHEMA.newest());
    }
  }

  @Test
  void aDatabaseThatCannotBeMigratedIsLeftClosed() throws Exception {
    try (Database db = Database.open(dir)) {
      assertThat(db.version()).isEqualTo(Database.SCHEMA.newest());
    }
    Path file = dir.resolve(Database.FILE);
    try (var c = DriverManager.getConnection("jdbc:sqlite:" + file);
        var s = c.createStatement()) {
      s.execute("INSERT INTO schema_version (version, name, applied_ms) VALUES (99, 'later', 0)");
    }
    Path wal = dir.resolve(Database.FILE + "-wal");
    assertThat(wal).doesNotExist(); // every connection closed: the log is folded into the file
    assertThatThrownBy(() -> Database.open(dir))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("newer than this Spyglass knows");
    // the connection the opening made is closed too: SQLite folded its log in and removed it
    assertThat(wal).doesNotExist();
  }

  @Test
  void theDataFolderCanBeLockedAgainAfterRecordingTheHolderFailed() throws Exception {
    DataFolderLock.beforeRecorded =
        file -> {
          throw new IOException("No space left on device");
        };
    try {
      assertThatThrownBy(() -> DataFolderLock.acquire(dir))
          .isInstanceOf(IOException.class)
          .hasMessage("No space left on device");
    } finally {
      DataFolderLock.beforeRecorded = null;
    }
    // the disk has room again: the lock is free to take (not held by a channel left open)
    try (DataFolderLock lock = DataFolderLock.acquire(dir)) {
      assertThat(lock.folder()).isEqualTo(dir.toRealPath());
      assertThat(Files.readString(dir.resolve(DataFolderLock.FILE)))
          .startsWith("pid " + ProcessHandle.current().pid());
    }
  }
}
