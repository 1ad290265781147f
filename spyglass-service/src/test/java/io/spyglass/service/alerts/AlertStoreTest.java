package io.spyglass.service.alerts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The alerts' tables on SQLite and on PostgreSQL: an evaluation's events, groups and cursor written
 * together, an event of the same alert, group and window written once however often it is written,
 * the outbox's states, the history kept to its bound.
 */
class AlertStoreTest {
  @TempDir Path dir;

  static AlertStore.Event event(long window, long seq, String state) {
    return new AlertStore.Event(
        "a",
        "g1",
        window,
        window + 60_000,
        seq,
        state,
        "{\"org\":\"acme\"}",
        "{\"n\":1}",
        5,
        AlertStore.PENDING,
        0,
        null,
        null);
  }

  @Test
  void onSqlite() throws Exception {
    exercise(dir, null);
  }

  @Test
  void onPostgreSql() throws Exception {
    try (EmbeddedPostgres pg = EmbeddedPostgres.builder().start()) {
      exercise(dir, pg.getJdbcUrl("postgres", "postgres"));
    }
  }

  void exercise(Path data, String url) throws Exception {
    try (AlertStore s = AlertStore.open(data, url, () -> 1)) {
      s.insert(new AlertStore.Stored("a", "q", true, "alice", 1, "{}", Long.MIN_VALUE, null, 0, 0));
      assertThatThrownBy(
              () -> s.insert(new AlertStore.Stored("a", "q", false, "bob", 2, "{}", 0, null, 0, 0)))
          .isInstanceOf(AlertStore.Taken.class);
      AlertStore.Group firing = new AlertStore.Group("g1", "{\"org\":\"acme\"}", true, true, null);
      s.evaluated("a", 0, 60_000, List.of(event(0, 1, "firing")), List.of(firing), List.of(), 3);
      // the same window again (a replay): its event is not written twice
      s.evaluated("a", 0, 60_000, List.of(event(0, 1, "firing")), List.of(firing), List.of(), 3);
      assertThat(s.history("a", 10)).hasSize(1);
      assertThat(s.groups("a")).containsOnlyKeys("g1");
      AlertStore.Stored stored = s.list().get(0);
      assertThat(stored.cursorStart()).isZero();
      assertThat(stored.cursorEnd()).isEqualTo(60_000L);
      assertThat(stored.ownsQuery()).isTrue();

      AlertStore.Event e = s.pending("a", 10).get(0);
      s.failed(e, "the webhook answered 503");
      s.delivered(e, 7);
      AlertStore.Event done = s.history("a", 1).get(0);
      assertThat(done.delivery()).isEqualTo(AlertStore.DELIVERED);
      assertThat(done.attempts()).isEqualTo(2);
      assertThat(done.deliveredMs()).isEqualTo(7L);
      assertThat(done.lastError()).isNull();
      assertThat(s.pending("a", 10)).isEmpty();

      // a resolution the receiver refuses, a firing muted
      s.evaluated(
          "a",
          60_000,
          120_000,
          List.of(event(60_000, 2, "resolved")),
          List.of(new AlertStore.Group("g1", "{\"org\":\"acme\"}", false, false, 120_000L)),
          List.of(),
          3);
      s.refused(s.pending("a", 1).get(0), "the webhook answered 400");
      s.evaluated(
          "a", 120_000, 180_000, List.of(event(120_000, 3, "firing")), List.of(), List.of("g1"), 3);
      s.mute("a", 99);
      assertThat(s.pending("a", 10)).isEmpty();
      assertThat(s.groups("a")).isEmpty();
      AlertStore.Counts c = s.counts("a");
      assertThat(c.delivered()).isEqualTo(1);
      assertThat(c.refused()).isEqualTo(1);
      assertThat(c.muted()).isEqualTo(1);
      assertThat(c.failedAttempts()).isEqualTo(2);
      assertThat(s.list().get(0).mutedUntil()).isEqualTo(99);
      s.mute("a", 0);

      // the newest 3 are kept: older ones go, none of them still to deliver
      List<AlertStore.Event> more = new ArrayList<>();
      more.add(event(180_000, 4, "resolved"));
      more.add(event(180_000 + 1, 5, "firing"));
      assertThat(s.evaluated("a", 180_001, 240_000, more, List.of(), List.of(), 3)).isZero();
      assertThat(s.history("a", 10)).extracting(AlertStore.Event::seq).containsExactly(5L, 4L, 3L);
      // kept to the newest one: 4 and 5, not delivered, are counted as dropped (3 was muted)
      assertThat(
              s.evaluated(
                  "a",
                  240_000,
                  300_000,
                  List.of(event(240_000, 6, "resolved")),
                  List.of(),
                  List.of(),
                  1))
          .isEqualTo(2);
      assertThat(s.history("a", 10)).extracting(AlertStore.Event::seq).containsExactly(6L);
      assertThat(s.list().get(0).dropped()).isEqualTo(2);
      assertThat(s.lastSeq("a")).isEqualTo(6);

      assertThat(s.delete("a")).isTrue();
      assertThat(s.delete("a")).isFalse();
      assertThat(s.list()).isEmpty();
      assertThat(s.history("a", 10)).isEmpty();
    }
  }
}
