package io.spyglass.bullet;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BulletRefereeTest {
  private static final BulletReferee BULLET = BulletReferee.load();

  @Test
  void rejectsAQueryWithBulletsErrors() {
    BulletReferee.Outcome outcome = BULLET.run("SELECT FROM STREAM()", List.of());
    assertThat(outcome.rejected()).isTrue();
    assertThat(outcome.errors().get(0).message()).isNotBlank();
  }

  @Test
  void countsAndGroups() {
    List<Map<String, Object>> records =
        List.of(Map.of("a", 1L, "s", "x"), Map.of("a", 2L, "s", "y"), Map.of("a", 3L, "s", "x"));
    BulletReferee.Outcome outcome =
        BULLET.run(
            "SELECT s, COUNT(*) AS n, SUM(a) AS total FROM STREAM(MAX, TIME) GROUP BY s", records);
    assertThat(outcome.rejected()).isFalse();
    assertThat(outcome.windows()).hasSize(1);
    assertThat(outcome.windows().get(0).records())
        .containsExactlyInAnyOrder(
            Map.of("s", "x", "n", 2L, "total", 4.0), Map.of("s", "y", "n", 1L, "total", 2.0));
  }

  @Test
  void emitsOneWindowPerRecordWindow() {
    List<Map<String, Object>> records =
        List.of(Map.of("a", 1L), Map.of("a", 2L), Map.of("a", 3L), Map.of("a", 4L));
    BulletReferee.Outcome outcome =
        BULLET.run("SELECT a FROM STREAM(MAX, TIME) WINDOWING TUMBLING(2, RECORD)", records);
    assertThat(outcome.windows()).hasSizeGreaterThanOrEqualTo(2);
    assertThat(outcome.windows().get(0).records())
        .containsExactly(Map.of("a", 1L), Map.of("a", 2L));
    assertThat(outcome.windows().get(1).records())
        .containsExactly(Map.of("a", 3L), Map.of("a", 4L));
  }

  @Test
  void feedsManyQueriesFromJson() {
    BulletReferee.Queries queries =
        BULLET.open(
            Map.of(
                "all", "SELECT COUNT(*) AS n FROM STREAM(MAX, TIME)",
                "some", "SELECT COUNT(*) AS n FROM STREAM(MAX, TIME) WHERE s = 'x'",
                "bad", "SELECT FROM"));
    assertThat(queries.rejected()).containsOnlyKeys("bad");
    long consumed =
        queries.consumeJson(
            List.of(
                "{\"s\": \"x\"}".getBytes(StandardCharsets.UTF_8),
                "{\"s\": \"y\"}".getBytes(StandardCharsets.UTF_8),
                "not json".getBytes(StandardCharsets.UTF_8)));
    assertThat(consumed).isEqualTo(2);
    Map<String, List<BulletReferee.Window>> results = queries.finish();
    assertThat(results.get("all").get(0).records()).containsExactly(Map.of("n", 2L));
    assertThat(results.get("some").get(0).records()).containsExactly(Map.of("n", 1L));
  }

  @Test
  void feedsRecordsBuiltOnceWithTheEqualityPartitioner() {
    BulletReferee partitioned =
        BulletReferee.load(
            Map.of(
                "bullet.query.partitioner.enable",
                true,
                "bullet.query.partitioner.equality.fields",
                List.of("id")));
    BulletReferee.Queries queries =
        partitioned.open(
            Map.of(
                "a", "SELECT COUNT(*) AS n FROM STREAM(MAX, TIME) WHERE id = 'a'",
                "b", "SELECT COUNT(*) AS n FROM STREAM(MAX, TIME) WHERE id = 'b'"));
    try (BulletReferee.RecordPool pool =
        partitioned.pool(List.of(Map.of("id", "a"), Map.of("id", "b")))) {
      pool.add(List.of(Map.of("id", "c")));
      assertThat(pool.size()).isEqualTo(3);
      queries.consume(pool, 1, 5); // b c a b c
    }
    Map<String, List<BulletReferee.Window>> results = queries.finish();
    assertThat(results.get("a").get(0).records()).containsExactly(Map.of("n", 1L));
    assertThat(results.get("b").get(0).records()).containsExactly(Map.of("n", 2L));
  }
}
