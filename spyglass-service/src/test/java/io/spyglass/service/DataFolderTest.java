package io.spyglass.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.spyglass.engine.EngineConfig;
import io.spyglass.service.metering.RecoveryOptions;
import io.spyglass.service.metering.StandingStore;
import io.spyglass.service.runtime.EmbeddedRuntime;
import io.spyglass.service.store.Database;
import io.spyglass.sources.GeneratorSource;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The data folder as a whole, with real files and real SQLite: one service at a time, a lost or
 * damaged database noticed at the start (not later), and damage found at run time said by health.
 */
class DataFolderTest {
  @TempDir Path data;

  static final String QUERY =
      "SELECT COUNT(*) AS docs FROM STREAM(FOREVER) WINDOWING TUMBLING(1h, EVENT_TIME(time))";

  ServiceFixture metering(RecoveryOptions recovery) throws IOException {
    return ServiceFixture.startMetering(
        data, MeteringApiTest.settings(), b -> b.recovery = recovery);
  }

  ServiceFixture metering() throws IOException {
    return metering(RecoveryOptions.DEFAULTS);
  }

  @Test
  void aSecondServiceOnTheSameDataFolderIsRefused() throws Exception {
    try (ServiceFixture first = metering()) {
      assertThatThrownBy(this::metering)
          .isInstanceOf(IOException.class)
          .hasMessageContaining("is in use by another Spyglass")
          .hasMessageContaining("pid " + ProcessHandle.current().pid())
          .hasMessageContaining("another --data folder");
      assertThatThrownBy(() -> ServiceFixture.start(data, b -> {}))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("is in use by another Spyglass");
      // the first goes on
      assertThat(MeteringApiTest.ingest(first, MeteringApiTest.lines("a", 0, 3)).statusCode())
          .isEqualTo(202);
    }
    try (ServiceFixture again = metering()) {
      assertThat(MeteringApiTest.ingest(again, MeteringApiTest.lines("a", 0, 3)).body())
          .contains("\"duplicates\":3");
    }
  }

  @Test
  void aRuntimeGivenToAStartRefusedAtTheFolderLockIsClosed() throws Exception {
    try (ServiceFixture first = metering()) {
      EmbeddedRuntime given =
          EmbeddedRuntime.start(
              new GeneratorSource(GeneratorSource.Options.DEFAULTS.withRate(100)),
              EngineConfig.defaults().withWorkers(1));
      ServiceConfig config = ServiceFixture.config(data, b -> {});
      assertThatThrownBy(
              () ->
                  SpyglassService.startMetering(
                      config, MeteringStart.of(MeteringApiTest.settings()).withRuntime(given)))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("is in use by another Spyglass");
      // the service owned it from the call, as a start that gets further: nothing of it runs on
      assertThat(given.engine().awaitStopped(10, TimeUnit.SECONDS)).isTrue();
      assertThat(MeteringApiTest.ingest(first, MeteringApiTest.lines("a", 0, 3)).statusCode())
          .isEqualTo(202);
    }
  }

  void defineAndIngest() throws Exception {
    try (ServiceFixture f = metering()) {
      HttpResponse<String> created =
          f.postJson(
              "/api/standing-queries",
              ServiceFixture.JSON
                  .createObjectNode()
                  .put("name", "usage")
                  .put("query", QUERY)
                  .toString());
      assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
      assertThat(MeteringApiTest.ingest(f, MeteringApiTest.lines("d", 0, 50)).statusCode())
          .isEqualTo(202);
      assertThat(MeteringApiTest.totals(f, "usage", 50)[0]).isEqualTo(50);
    }
  }

  static void delete(Path db) throws IOException {
    for (String suffix : new String[] {"", "-wal", "-shm"}) {
      Files.deleteIfExists(db.resolveSibling(db.getFileName() + suffix));
    }
  }

  @Test
  void aLostStandingDatabaseRefusesTheStartUnlessAskedToStartAfresh() throws Exception {
    defineAndIngest();
    delete(data.resolve(StandingStore.FILE));
    assertThatThrownBy(this::metering)
        .isInstanceOf(IOException.class)
        .hasMessageContaining("has no checkpoint")
        .hasMessageContaining("records a checkpoint at position")
        .hasMessageContaining("--reset-standing-queries");
    assertThat(data.resolve(StandingStore.FILE)).doesNotExist();
    try (ServiceFixture f = metering(new RecoveryOptions(true, false))) {
      JsonNode list = ServiceFixture.json(f.get("/api/standing-queries").body());
      assertThat(list.get("standingQueries")).isEmpty();
      // the ids are still remembered: nothing is counted twice later
      assertThat(MeteringApiTest.ingest(f, MeteringApiTest.lines("d", 0, 3)).body())
          .contains("\"duplicates\":3");
    }
    try (ServiceFixture f = metering()) { // it has a checkpoint again
      assertThat(f.get("/api/health").statusCode()).isEqualTo(200);
    }
  }

  /** Writes 4 KiB of garbage over the file's second half's first page. */
  static void garbage(Path file) throws IOException {
    byte[] junk = new byte[4096];
    new Random(7).nextBytes(junk);
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      long at = Math.max(4096, f.length() / 2 / 4096 * 4096);
      f.seek(at);
      f.write(junk);
    }
  }

  @Test
  void aDamagedStandingDatabaseIsRefusedAtTheStart() throws Exception {
    defineAndIngest();
    Path db = data.resolve(StandingStore.FILE);
    assertThat(db.resolveSibling(StandingStore.FILE + "-wal")).doesNotExist(); // all in the file
    garbage(db);
    assertThatThrownBy(this::metering)
        .isInstanceOf(IOException.class)
        .hasMessageContaining("standing queries' database")
        .hasMessageContaining("is damaged (PRAGMA quick_check")
        .hasMessageContaining("restore it from a copy");
  }

  @Test
  void aDamagedServiceDatabaseIsRefusedAtTheStart() throws Exception {
    try (ServiceFixture f = ServiceFixture.start(data, b -> {})) {
      saveMany(f, 200);
    }
    garbage(data.resolve(Database.FILE));
    assertThatThrownBy(() -> ServiceFixture.start(data, b -> {}))
        .isInstanceOf(IOException.class)
        .hasMessageContaining(Database.FILE + " is damaged (PRAGMA quick_check")
        .hasMessageContaining("restore it from a copy");
  }

  static void saveMany(ServiceFixture f, int n) {
    String padding = " ".repeat(800); // the pages of many rows
    for (int i = 0; i < n; i++) {
      HttpResponse<String> r =
          f.postJson(
              "/api/saved",
              ServiceFixture.JSON
                  .createObjectNode()
                  .put("name", "q" + i)
                  .put("query", "SELECT COUNT(*) FROM STREAM(10s, TIME)" + padding)
                  .toString());
      assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    }
  }

  @Test
  void aDamagedPageFoundWhileRunningMakesHealthDegraded() throws Exception {
    try (ServiceFixture f = ServiceFixture.start(data, b -> {})) {
      saveMany(f, 200);
      assertThat(f.get("/api/saved").statusCode()).isEqualTo(200);
      Path file = data.resolve(Database.FILE);
      String url = "jdbc:sqlite:" + file.toAbsolutePath();
      try (Connection other = DriverManager.getConnection(url);
          Statement s = other.createStatement()) {
        s.execute("PRAGMA busy_timeout=5000");
        s.execute("PRAGMA wal_checkpoint(TRUNCATE)"); // the pages into the file
        garbage(file);
        s.execute("CREATE TABLE IF NOT EXISTS touched (x INTEGER)"); // the service reads again
      }
      // (sent without the OpenAPI check: a damaged database's 500 is not part of the contract)
      HttpResponse<String> saved =
          f.http.send(f.request("/api/saved").GET().build(), HttpResponse.BodyHandlers.ofString());
      assertThat(saved.statusCode()).isEqualTo(500);
      HttpResponse<String> health = f.get("/api/health");
      assertThat(health.statusCode()).isEqualTo(503);
      JsonNode h = ServiceFixture.json(health.body());
      assertThat(h.get("status").asText()).isEqualTo("DEGRADED");
      assertThat(h.get("problems").get(0).asText())
          .contains(Database.FILE + " is damaged (SQLITE_CORRUPT")
          .contains("restore it from a copy")
          .doesNotContain(data.toString());
    }
  }

  /** The live threads named {@code name}. */
  static java.util.Set<Thread> threads(String name) {
    java.util.Set<Thread> out = new java.util.HashSet<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().equals(name) && t.isAlive()) {
        out.add(t);
      }
    }
    return out;
  }

  @Test
  void aServiceThatCannotStartLeavesNoThreadsRunning() throws Exception {
    java.util.Set<Thread> before = threads("spyglass-sweeper");
    before.addAll(threads("spyglass-schema"));
    try (java.net.ServerSocket taken =
        new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
      int port = taken.getLocalPort();
      assertThatThrownBy(() -> ServiceFixture.start(data, b -> b.port = port))
          .hasMessageContaining(String.valueOf(port));
    }
    java.util.Set<Thread> left = threads("spyglass-sweeper");
    left.addAll(threads("spyglass-schema"));
    left.removeAll(before);
    for (Thread t : left) {
      t.join(10_000); // a thread told to stop ends within its loop's wait
    }
    left.removeIf(t -> !t.isAlive());
    assertThat(left).as("threads of the service that did not start").isEmpty();
    // and the folder is free for the next start
    try (ServiceFixture f = ServiceFixture.start(data, b -> {})) {
      assertThat(f.get("/api/health").statusCode()).isEqualTo(200);
    }
  }
}
