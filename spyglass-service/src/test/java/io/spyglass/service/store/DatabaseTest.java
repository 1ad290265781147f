package io.spyglass.service.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DatabaseTest {
  @TempDir Path dir;

  @Test
  void migratesOnceToTheNewestVersion() throws Exception {
    try (Database db = Database.open(dir)) {
      assertThat(db.version()).isEqualTo(Database.MIGRATIONS.size());
    }
    try (Database db = Database.open(dir)) {
      assertThat(db.version()).isEqualTo(Database.MIGRATIONS.size());
      int rows =
          db.with(
              c -> {
                try (var s = c.createStatement();
                    var rs = s.executeQuery("SELECT COUNT(*) FROM schema_version")) {
                  rs.next();
                  return rs.getInt(1);
                }
              });
      assertThat(rows).isEqualTo(Database.MIGRATIONS.size());
    }
  }

  @Test
  void splitsScriptsIntoStatements() {
    assertThat(
            Database.statements(
                "-- a comment\nCREATE TABLE a (x INT);\n\nCREATE INDEX i\n  ON a (x);\n"))
        .containsExactly("CREATE TABLE a (x INT)", "CREATE INDEX i\n  ON a (x)");
  }
}
