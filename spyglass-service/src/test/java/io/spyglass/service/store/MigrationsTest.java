package io.spyglass.service.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The one migration runner, on real SQLite files. */
class MigrationsTest {
  @TempDir Path dir;

  private static Migrations.Schema schema(boolean named, String... steps) {
    return new Migrations.Schema(
        "test",
        "another folder",
        "test_version",
        named,
        MigrationsTest.class,
        "steps/",
        List.of(steps));
  }

  private Connection connect() throws SQLException {
    return DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("test.db"));
  }

  private static List<String> tables(Connection c) throws SQLException {
    List<String> out = new ArrayList<>();
    try (var s = c.createStatement();
        var rs =
            s.executeQuery("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }

  @Test
  void appliesEachStepOnceInOrderAndRecordsIt() throws Exception {
    Migrations.Schema schema = schema(true, "V1__one_table.sql", "V2__two_table.sql");
    try (Connection c = connect()) {
      assertThat(Migrations.migrate(c, schema, sql -> sql.replace("${TYPE}", "TEXT"), () -> 7))
          .isEqualTo(0);
      assertThat(Migrations.version(c, "test_version")).isEqualTo(2);
      assertThat(tables(c)).containsExactly("one", "test_version", "two");
      // again: nothing to do, nothing applied twice
      assertThat(Migrations.migrate(c, schema, sql -> sql.replace("${TYPE}", "TEXT"), () -> 8))
          .isEqualTo(2);
      try (var s = c.createStatement();
          var rs = s.executeQuery("SELECT version, name, applied_ms FROM test_version")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString(2)).isEqualTo("V1__one_table.sql");
        assertThat(rs.getLong(3)).isEqualTo(7);
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString(2)).isEqualTo("V2__two_table.sql");
        assertThat(rs.next()).isFalse();
      }
      try (var s = c.createStatement();
          var rs = s.executeQuery("SELECT COUNT(*) FROM one")) {
        rs.next();
        assertThat(rs.getInt(1)).isEqualTo(1);
      }
    }
  }

  @Test
  void aDatabaseAtAnOlderVersionGetsOnlyTheStepsAfterIt() throws Exception {
    try (Connection c = connect()) {
      Migrations.migrate(c, schema(true, "V1__one_table.sql"), sql -> sql, () -> 1);
      Migrations.migrate(
          c,
          schema(true, "V1__one_table.sql", "V2__two_table.sql"),
          sql -> sql.replace("${TYPE}", "INTEGER"),
          () -> 2);
      assertThat(Migrations.version(c, "test_version")).isEqualTo(2);
      try (var s = c.createStatement();
          var rs = s.executeQuery("SELECT COUNT(*) FROM one")) {
        rs.next();
        assertThat(rs.getInt(1)).as("step 1 ran once").isEqualTo(1);
      }
    }
  }

  @Test
  void aFailingStepIsRolledBackWholeAndTheStepsBeforeItKept() throws Exception {
    try (Connection c = connect()) {
      assertThatThrownBy(
              () ->
                  Migrations.migrate(
                      c,
                      schema(true, "V1__one_table.sql", "V2__fails_half_way.sql"),
                      sql -> sql,
                      () -> 1))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("step V2__fails_half_way.sql of the test tables failed")
          .hasMessageContaining("no_such_table");
      assertThat(Migrations.version(c, "test_version")).isEqualTo(1);
      assertThat(tables(c)).containsExactly("one", "test_version");
      assertThat(c.getAutoCommit()).isTrue();
    }
  }

  @Test
  void aDatabaseNewerThanTheCodeIsRefusedUnchanged() throws Exception {
    try (Connection c = connect()) {
      Migrations.migrate(c, schema(true, "V1__one_table.sql"), sql -> sql, () -> 1);
      try (var s = c.createStatement()) {
        s.execute("INSERT INTO test_version (version, name, applied_ms) VALUES (2, 'later', 0)");
      }
      assertThatThrownBy(
              () -> Migrations.migrate(c, schema(true, "V1__one_table.sql"), sql -> sql, () -> 1))
          .isInstanceOf(SQLException.class)
          .hasMessage(
              "its test tables are version 2, newer than this Spyglass knows (it knows up to 1):"
                  + " run a newer Spyglass, or use another folder");
      assertThat(tables(c)).containsExactly("one", "test_version");
    }
  }

  @Test
  void aVersionTableOfNumbersOnlyGetsNumbersOnly() throws Exception {
    try (Connection c = connect()) {
      try (var s = c.createStatement()) {
        s.execute("CREATE TABLE test_version (version INTEGER PRIMARY KEY)");
      }
      Migrations.migrate(
          c,
          schema(false, "V1__one_table.sql", "V2__two_table.sql"),
          sql -> sql.replace("${TYPE}", "BLOB"));
      assertThat(Migrations.version(c, "test_version")).isEqualTo(2);
      assertThatThrownBy(() -> Migrations.migrate(c, schema(true, "V1__one_table.sql"), sql -> sql))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void stepsAreNumberedFromOne() {
    assertThatThrownBy(() -> schema(true, "V2__two_table.sql"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("step 1 of test is V2__two_table.sql, not V1__");
    assertThatThrownBy(() -> schema(true, "V1__one_table.sql", "V1__one_table.sql"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void splitsScriptsIntoStatements() {
    assertThat(
            Migrations.statements(
                "-- a comment\nCREATE TABLE a (x INT);\n\nCREATE INDEX i\n  ON a (x);\n"))
        .containsExactly("CREATE TABLE a (x INT)", "CREATE INDEX i\n  ON a (x)");
  }

  /**
   * A database written by Spyglass before the one runner (saved queries and history at version 1,
   * {@code golden/spyglass.v1.db}) opens as it is, its rows readable.
   */
  @Test
  void aSavedQueriesDatabaseFromBeforeOpens() throws Exception {
    Path data = dir.resolve("data");
    Files.createDirectories(data);
    try (InputStream in = MigrationsTest.class.getResourceAsStream("golden/spyglass.v1.db")) {
      Files.copy(in, data.resolve(Database.FILE));
    }
    try (Database db = Database.open(data)) {
      assertThat(db.version()).isEqualTo(Database.SCHEMA.newest());
      SavedQueries saved = new SavedQueries(db, () -> 1767225600000L);
      assertThat(saved.list("alice"))
          .singleElement()
          .satisfies(
              s -> {
                assertThat(s.name()).isEqualTo("usage by org");
                assertThat(s.query())
                    .isEqualTo("SELECT org, COUNT(*) FROM STREAM(30s) GROUP BY org");
              });
      try (History history = new History(db)) {
        assertThat(history.list("alice", 10))
            .singleElement()
            .satisfies(
                h -> {
                  assertThat(h.query()).isEqualTo("SELECT * FROM STREAM(10s)");
                  assertThat(h.state()).isEqualTo("DONE");
                  assertThat(h.results()).isEqualTo(3);
                });
      }
    }
  }

  @Test
  void aSavedQueriesDatabaseTooNewIsRefusedSayingWhatToDo() throws IOException, SQLException {
    Path data = dir.resolve("data");
    try (Database db = Database.open(data)) {
      db.with(
          c -> {
            try (var s = c.createStatement()) {
              s.execute(
                  "INSERT INTO schema_version (version, name, applied_ms) VALUES (99, 'later', 0)");
            }
            return null;
          });
    }
    assertThatThrownBy(() -> Database.open(data))
        .isInstanceOf(IOException.class)
        .hasMessageContaining(
            "its saved queries and history tables are version 99, newer than this Spyglass knows")
        .hasMessageContaining("use another --data folder");
  }
}
