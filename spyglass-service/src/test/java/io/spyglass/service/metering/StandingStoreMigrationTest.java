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
 * Standing queries' databases written by earlier Spyglass open and keep what they hold: {@code
 * golden/standing.v1.db} (from before the errors and group limits of V2), {@code
 * golden/standing.v2.db} (from before the sinks of V3), both migrated on open, and {@code
 * golden/standing.v3.db} (the newest).
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
  void aVersion2DatabaseIsMigratedAndItsQueryHasNoSinks() throws Exception {
    Path data = golden("standing.v2.db");
    try (StandingStore store = StandingStore.open(data, null)) {
      assertThat(store.list())
          .singleElement()
          .satisfies(
              q -> {
                assertThat(q.query()).isEqualTo(QUERY);
                assertThat(new String(q.state(), StandardCharsets.UTF_8)).isEqualTo("state-v2");
                assertThat(q.maxGroups()).isEqualTo(1000);
                assertThat(q.sinks()).as("defined before V3: none").isNull();
              });
      assertThat(store.windows("usage", 0, 60000)).hasSize(1);
      assertThat(store.logPosition()).hasValue(42);
      // the column V3 added is there to write
      store.commit(
          new StandingStore.Commit(43, Map.of(), Map.of(), List.of()),
          new StandingStore.Stored("hooked", QUERY, "bob", 1767225700000L, null, null, 1000, "[]"),
          null);
      assertThat(store.logPosition()).hasValue(43);
      assertThat(store.list().get(1).sinks()).isEqualTo("[]");
    }
    assertThat(version(data)).isEqualTo(StandingStore.SCHEMA.newest());
  }

  @Test
  void aVersion3DatabaseOpensAsItIs() throws Exception {
    Path data = golden("standing.v3.db");
    try (StandingStore store = StandingStore.open(data, null)) {
      assertThat(store.list())
          .singleElement()
          .satisfies(
              q -> {
                assertThat(q.query()).isEqualTo(QUERY);
                assertThat(new String(q.state(), StandardCharsets.UTF_8)).isEqualTo("state-v3");
                assertThat(q.maxGroups()).isEqualTo(1000);
                assertThat(io.spyglass.sinks.SinkSpec.listFromJson(q.sinks()))
                    .containsExactly(
                        io.spyglass.sinks.SinkSpec.webhook("https://hooks.example.com/usage"),
                        io.spyglass.sinks.SinkSpec.file("usage.ndjson"));
              });
      assertThat(store.windows("usage", 0, 60000)).hasSize(1);
      store.commit(new StandingStore.Commit(44, Map.of(), Map.of(), List.of()), null, null);
      assertThat(store.logPosition()).hasValue(44);
    }
    assertThat(version(data)).isEqualTo(3);
  }

  @Test
  void aDatabaseTooNewIsRefusedSayingWhatToDo() throws Exception {
    Path data = golden("standing.v3.db");
    try (var c = DriverManager.getConnection("jdbc:sqlite:" + data.resolve(StandingStore.FILE));
        var s = c.createStatement()) {
      s.execute("INSERT INTO standing_schema_version (version) VALUES (4)");
    }
    assertThatThrownBy(() -> StandingStore.open(data, null))
        .isInstanceOf(IOException.class)
        .hasMessageContaining(
            "its standing-query tables are version 4, newer than this Spyglass knows (it knows up"
                + " to 3): run a newer Spyglass, or use another database");
  }
}
