package io.spyglass.service.alerts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spyglass.service.metering.StandingStore;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The alerts' tables in the standing queries' database: a database from before alerts ({@code
 * metering/golden/standing.v2.db}) gets them and keeps its standing queries; one written with them
 * ({@code golden/standing.alerts.v1.db}) opens as it is; one too new is refused, unchanged.
 */
class AlertStoreMigrationTest {
  @TempDir Path dir;

  private Path golden(String resource) throws IOException {
    try (InputStream in = AlertStoreMigrationTest.class.getResourceAsStream(resource)) {
      Files.copy(in, dir.resolve(StandingStore.FILE));
    }
    return dir;
  }

  private static int version(Path data) throws Exception {
    try (var c = DriverManager.getConnection("jdbc:sqlite:" + data.resolve(StandingStore.FILE));
        var s = c.createStatement();
        var rs = s.executeQuery("SELECT MAX(version) FROM alert_schema_version")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  @Test
  void aStandingDatabaseFromBeforeAlertsGetsTheirTablesAndKeepsItsQueries() throws Exception {
    Path data = golden("/io/spyglass/service/metering/golden/standing.v2.db");
    try (AlertStore alerts = AlertStore.open(data, null, () -> 1_767_225_600_000L)) {
      assertThat(alerts.list()).isEmpty();
    }
    assertThat(version(data)).isEqualTo(AlertStore.SCHEMA.newest());
    try (StandingStore standing = StandingStore.open(data, null)) {
      assertThat(standing.list())
          .singleElement()
          .satisfies(q -> assertThat(q.name()).isEqualTo("usage"));
      assertThat(standing.windowsAfter("usage", Long.MIN_VALUE, 10)).hasSize(1);
      assertThat(standing.lastWindowStart("usage")).hasValue(0);
      assertThat(standing.lastWindowStart("none")).isEmpty();
    }
  }

  @Test
  void aDatabaseWithAlertsOpensAsItIs() throws Exception {
    Path data = golden("golden/standing.alerts.v1.db");
    try (AlertStore alerts = AlertStore.open(data, null, () -> 0)) {
      assertThat(alerts.list())
          .singleElement()
          .satisfies(
              a -> {
                assertThat(a.name()).isEqualTo("few-orders");
                assertThat(a.standingQuery()).isEqualTo("usage");
                assertThat(a.ownsQuery()).isFalse();
                assertThat(a.owner()).isEqualTo("alice");
                assertThat(a.cursorStart()).isZero();
                assertThat(a.cursorEnd()).isEqualTo(60_000L);
                AlertSpec spec = AlertSpec.fromJson(a.spec());
                assertThat(spec.conditionText()).isEqualTo("n < 5");
                assertThat(spec.format()).isEqualTo(Payloads.Format.ALERTMANAGER);
                assertThat(spec.quietPeriodMs()).isEqualTo(300_000);
                assertThat(spec.labels()).containsEntry("severity", "page");
              });
      String acme = Evaluator.groupId("{\"org\":\"acme\"}");
      assertThat(alerts.groups("few-orders")).containsOnlyKeys(acme);
      assertThat(alerts.history("few-orders", 10))
          .singleElement()
          .satisfies(
              e -> {
                assertThat(e.state()).isEqualTo("firing");
                assertThat(e.delivery()).isEqualTo(AlertStore.DELIVERED);
                assertThat(e.key()).isEqualTo("few-orders:0:" + acme);
              });
      assertThat(alerts.lastSeq("few-orders")).isEqualTo(1);
    }
    assertThat(version(data)).isEqualTo(1);
  }

  @Test
  void alertTablesTooNewAreRefusedSayingWhatToDo() throws Exception {
    Path data = golden("golden/standing.alerts.v1.db");
    try (var c = DriverManager.getConnection("jdbc:sqlite:" + data.resolve(StandingStore.FILE));
        var s = c.createStatement()) {
      s.execute(
          "INSERT INTO alert_schema_version (version, name, applied_ms) VALUES (2, 'V2__x.sql', 0)");
    }
    assertThatThrownBy(() -> AlertStore.open(data, null, () -> 0))
        .isInstanceOf(IOException.class)
        .hasMessageContaining(
            "its alert tables are version 2, newer than this Spyglass knows (it knows up to 1):"
                + " run a newer Spyglass, or use another database");
  }
}
