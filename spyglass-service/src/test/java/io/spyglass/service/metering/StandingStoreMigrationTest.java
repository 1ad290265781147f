package io.spyglass.service.metering;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Standing queries' databases written by Spyglass before the one migration runner open as they are:
 * {@code golden/standing.v1.db} (from before the errors and group limits of V2, migrated on open)
 * and {@code golden/standing.v2.db} (the newest).
 */
class StandingStoreMigrationTest {
  private static final String QUERY =
      "SELECT org, COUNT(*) AS n FROM STREAM(FOREVER) GROUP BY org WINDOWING TUMBLING(60000,"
          + " EVENT_TIME(ts))";

  @TempDir Path dir;

  private Path golden(String name) throws IOException {
    Files.createDirectories(dir);
    try (InputStream in = StandingStoreMigrationTest.class.getResourceAsStream("golden/" + name)) {
      Files.copy(in, dir.resolve(StandingStore.FILE));
    }
    return dir;
  }

  private static int version(Path data) throws Exception {
    try (var c = DriverManager.getConnection("jdbc:sqlite:" + data.resolve(StandingStore.FILE));
        var s = c.createStatement();
        var rs = s.executeQuery("SELECT MAX(version) FROM standing_schema_version")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  @Test
  void aVersion1DatabaseIsMigratedAndKeepsItsQueriesWindowsAndCheckpoint() throws Exception {
    Path data = golden("standing.v1.db");
    try (StandingStore store = StandingStore.open(data, null)) {
      assertThat(store.list())
          .singleElement()
          .satisfies(
              q -> {
                assertThat(q.name()).isEqualTo("usage");
                assertThat(q.query()).isEqualTo(QUERY);
                assertThat(q.owner()).isEqualTo("alice");
                assertThat(q.createdMs()).isEqualTo(1767225600000L);
                assertThat(new String(q.state(), StandardCharsets.UTF_8)).isEqualTo("state");
                assertThat(q.error()).isNull();
                assertThat(q.maxGroups()).as("defined before V2: the engine's limit").isNull();
              });
      assertThat(store.windows("usage", Long.MIN_VALUE, Long.MAX_VALUE))
          .containsExactly(
              new StandingStore.Window(0, 60000, "[{\"org\":\"acme\",\"n\":3}]", 1, null));
      assertThat(store.logPosition()).hasValue(42);
      // the columns V2 added are there to write
      store.fail("usage", "its state grew over --max-standing-state");
      assertThat(store.list().get(0).error()).isEqualTo("its state grew over --max-standing-state");
    }
    assertThat(version(data)).isEqualTo(StandingStore.SCHEMA.newest());
  }

  @Test
  void aVersion2DatabaseOpensAsItIs() throws Exception {
    Path data = golden("standing.v2.db");
    try (StandingStore store = StandingStore.open(data, null)) {
      assertThat(store.list())
          .singleElement()
          .satisfies(
              q -> {
                assertThat(q.query()).isEqualTo(QUERY);
                assertThat(new String(q.state(), StandardCharsets.UTF_8)).isEqualTo("state-v2");
                assertThat(q.maxGroups()).isEqualTo(1000);
              });
      assertThat(store.windows("usage", 0, 60000)).hasSize(1);
      assertThat(store.logPosition()).hasValue(42);
      store.commit(new StandingStore.Commit(43, Map.of(), Map.of(), List.of()), null, null);
      assertThat(store.logPosition()).hasValue(43);
    }
    assertThat(version(data)).isEqualTo(2);
  }

  @Test
  void aDatabaseTooNewIsRefusedSayingWhatToDo() throws Exception {
    Path data = golden("standing.v2.db");
    try (var c = DriverManager.getConnection("jdbc:sqlite:" + data.resolve(StandingStore.FILE));
        var s = c.createStatement()) {
      s.execute("INSERT INTO standing_schema_version (version) VALUES (3)");
    }
    assertThatThrownBy(() -> StandingStore.open(data, null))
        .isInstanceOf(IOException.class)
        .hasMessageContaining(
            "its standing-query tables are version 3, newer than this Spyglass knows (it knows up"
                + " to 2): run a newer Spyglass, or use another database");
  }
}
