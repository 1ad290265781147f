package io.spyglass.core.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spyglass.core.plan.Aggregation.DistributionKind;
import io.spyglass.core.plan.Aggregation.Metric;
import io.spyglass.core.plan.Aggregation.MetricKind;
import io.spyglass.core.plan.Aggregation.Points;
import io.spyglass.core.record.Type;
import io.spyglass.core.syntax.BqlError;
import io.spyglass.core.syntax.BqlException;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Queries to canonical text and plan shapes, in the manner of Calcite's {@code SqlParserTest}: each
 * query must compile, print as expected, and compile back to an equal plan.
 */
class BqlCompileTest {

  /** Compiles, checks the canonical text and the round trip, and returns the plan. */
  private static QueryPlan check(String query, String canonical) {
    QueryPlan plan = Bql.compile(query);
    String printed = Bql.print(plan);
    assertThat(printed).isEqualTo(canonical);
    assertThat(Bql.compile(printed)).isEqualTo(plan);
    return plan;
  }

  /** The first error of a query that must not compile. */
  static BqlError error(String query) {
    try {
      Bql.compile(query);
    } catch (BqlException e) {
      return e.errors().get(0);
    }
    throw new AssertionError("expected an error for " + query);
  }

  /** Checks that the first error is at line:column and its message contains the fragment. */
  private static void fails(String query, String position, String fragment) {
    BqlError error = error(query);
    assertThat(error.span().line() + ":" + error.span().column())
        .as(error.toString())
        .isEqualTo(position);
    assertThat(error.message() + " " + error.resolution()).contains(fragment);
  }

  private static FieldRef f(String name) {
    return FieldRef.of(name);
  }

  private static Call index(Expr base, String key) {
    return new Call(Op.INDEX, List.of(base, Literal.of(key)), Type.UNKNOWN);
  }

  @Test
  void simpleFilter() {
    QueryPlan plan =
        check(
            "SELECT * FROM STREAM(30000, TIME) WHERE id = 'btsg8l9b234ha' LIMIT 1",
            "SELECT * FROM STREAM(30000, TIME) WHERE id = 'btsg8l9b234ha' LIMIT 1");
    assertThat(plan.durationMs()).isEqualTo(30000);
    assertThat(plan.aggregation()).isEqualTo(new Aggregation.Raw(Optional.empty(), 1));
    assertThat(plan.where())
        .contains(new Call(Op.EQ, List.of(f("id"), Literal.of("btsg8l9b234ha")), Type.BOOLEAN));
    assertThat(plan.window()).isEqualTo(Window.NONE);
  }

  @Test
  void groupBy() {
    QueryPlan plan =
        check(
            "SELECT demographics.country AS country, device AS device, COUNT(*) AS count,"
                + " AVG(demographics.age) AS averageAge, AVG(timespent) AS averageTimespent FROM"
                + " STREAM(20000, TIME) WHERE demographics IS NOT NULL GROUP BY"
                + " demographics.country, device LIMIT 50",
            "SELECT demographics.country AS country, device AS device, COUNT(*) AS count,"
                + " AVG(demographics.age) AS averageAge, AVG(timespent) AS averageTimespent FROM"
                + " STREAM(20000, TIME) WHERE demographics IS NOT NULL GROUP BY"
                + " demographics.country, device LIMIT 50");
    assertThat(plan.aggregation())
        .isEqualTo(
            new Aggregation.Group(
                List.of(
                    new NamedExpr(index(f("demographics"), "country"), "country"),
                    new NamedExpr(f("device"), "device")),
                List.of(
                    new Metric(MetricKind.COUNT, List.of(), "count"),
                    new Metric(
                        MetricKind.AVG, List.of(index(f("demographics"), "age")), "averageAge"),
                    new Metric(MetricKind.AVG, List.of(f("timespent")), "averageTimespent")),
                50));
    assertThat(plan.postAggregation().isEmpty()).isTrue();
  }

  @Test
  void countDistinct() {
    QueryPlan plan =
        check(
            "SELECT COUNT(DISTINCT ip_address) AS uniqueIPs FROM STREAM(10000, TIME)",
            "SELECT COUNT(DISTINCT ip_address) AS uniqueIPs FROM STREAM(10000, TIME)");
    assertThat(plan.aggregation())
        .isEqualTo(new Aggregation.CountDistinct(List.of(f("ip_address")), "uniqueIPs"));
  }

  @Test
  void distributions() {
    QueryPlan quantile =
        check(
            "SELECT QUANTILE(duration, LINEAR, 11) FROM STREAM(5000, TIME)",
            "SELECT QUANTILE(duration, LINEAR, 11) FROM STREAM(5000, TIME) LIMIT 101");
    assertThat(quantile.aggregation())
        .isEqualTo(
            new Aggregation.Distribution(
                DistributionKind.QUANTILE, f("duration"), new Points.Linear(11), 101));
    QueryPlan freq =
        check(
            "SELECT FREQ(duration, REGION, 2000, 20000, 500) FROM STREAM(5000, TIME)",
            "SELECT FREQ(duration, REGION, 2000.0, 20000.0, 500.0) FROM STREAM(5000, TIME) LIMIT"
                + " 101");
    assertThat(((Aggregation.Distribution) freq.aggregation()).points())
        .isEqualTo(new Points.Region(2000, 20000, 500));
    assertThat(((Aggregation.Distribution) freq.aggregation()).kind())
        .isEqualTo(DistributionKind.PMF);
    QueryPlan cumfreq =
        check(
            "SELECT CUMFREQ(duration, MANUAL, 20000, 2000, 15000, 45000) FROM STREAM(5000, TIME)",
            "SELECT CUMFREQ(duration, MANUAL, 2000.0, 15000.0, 20000.0, 45000.0) FROM"
                + " STREAM(5000, TIME) LIMIT 101");
    assertThat(((Aggregation.Distribution) cumfreq.aggregation()).points())
        .isEqualTo(new Points.Manual(List.of(2000.0, 15000.0, 20000.0, 45000.0)));
    assertThat(((Aggregation.Distribution) cumfreq.aggregation()).kind())
        .isEqualTo(DistributionKind.CDF);
  }

  @Test
  void topK() {
    QueryPlan plan =
        check(
            "SELECT TOP(500, 100, demographics.country, browser_name) AS numEvents FROM"
                + " STREAM(10000, TIME) WHERE demographics.country IS NOT NULL AND browser_name IS"
                + " NOT NULL",
            "SELECT TOP(500, 100, demographics.country, browser_name) AS numEvents FROM"
                + " STREAM(10000, TIME) WHERE (demographics.country IS NOT NULL) AND (browser_name"
                + " IS NOT NULL)");
    assertThat(plan.aggregation())
        .isEqualTo(
            new Aggregation.TopK(
                500,
                Optional.of(100L),
                List.of(
                    new NamedExpr(index(f("demographics"), "country"), "demographics.country"),
                    new NamedExpr(f("browser_name"), "browser_name")),
                "numEvents"));
  }

  @Test
  void topKDefaultCountName() {
    QueryPlan plan = Bql.compile("SELECT TOP(10, a) FROM STREAM()");
    assertThat(plan.aggregation())
        .isEqualTo(
            new Aggregation.TopK(
                10, Optional.empty(), List.of(new NamedExpr(f("a"), "a")), "Count"));
  }

  @Test
  void groupByRewrittenToTopKAsBulletDoes() {
    QueryPlan plan =
        check(
            "SELECT demographics.country, browser_name, COUNT(*) AS numEvents FROM STREAM(10000,"
                + " TIME) GROUP BY demographics.country, browser_name HAVING COUNT(*) >= 100 ORDER"
                + " BY COUNT(*) DESC LIMIT 500",
            "SELECT TOP(500, 100, demographics.country, browser_name) AS numEvents FROM"
                + " STREAM(10000, TIME)");
    assertThat(plan.aggregation())
        .isEqualTo(
            new Aggregation.TopK(
                500,
                Optional.of(100L),
                List.of(
                    new NamedExpr(index(f("demographics"), "country"), "demographics.country"),
                    new NamedExpr(f("browser_name"), "browser_name")),
                "numEvents"));
    QueryPlan byName =
        Bql.compile("SELECT a, COUNT(*) AS c FROM STREAM() GROUP BY a ORDER BY c DESC LIMIT 7");
    assertThat(byName.aggregation())
        .isEqualTo(
            new Aggregation.TopK(7, Optional.empty(), List.of(new NamedExpr(f("a"), "a")), "c"));
    // Ascending order is no TOP K: an ordinary group, sorted and cut after aggregation.
    QueryPlan ascending =
        Bql.compile("SELECT a, COUNT(*) AS c FROM STREAM() GROUP BY a ORDER BY c LIMIT 7");
    assertThat(ascending.aggregation()).isInstanceOf(Aggregation.Group.class);
    assertThat(ascending.postAggregation().limit()).contains(7);
  }

  @Test
  void tumblingWindow() {
    QueryPlan plan =
        check(
            "SELECT demographics.country, COUNT(*) AS count FROM STREAM(20000, TIME) GROUP BY"
                + " demographics.country WINDOWING TUMBLING(5000, TIME) LIMIT 50",
            "SELECT demographics.country AS \"demographics.country\", COUNT(*) AS count FROM"
                + " STREAM(20000, TIME) GROUP BY demographics.country WINDOWING TUMBLING(5000,"
                + " TIME) LIMIT 50");
    assertThat(plan.window()).isEqualTo(new Window.Tumbling(5000, Window.Unit.TIME));
  }

  @Test
  void recordStream() {
    QueryPlan plan =
        check(
            "SELECT * FROM STREAM(MAX, TIME) WHERE \"browser-id\" = '2siknmdd6kaqm' WINDOWING"
                + " EVERY(1, RECORD, FIRST, 1, RECORD)",
            "SELECT * FROM STREAM(MAX, TIME) WHERE \"browser-id\" = '2siknmdd6kaqm' WINDOWING"
                + " EVERY(1, RECORD, FIRST, 1, RECORD) LIMIT 100");
    assertThat(plan.durationMs()).isEqualTo(QueryPlan.UNBOUNDED);
    assertThat(plan.window())
        .isEqualTo(new Window.Sliding(1, Window.Unit.RECORD, 1, Window.Unit.RECORD));
    assertThat(plan.where().get())
        .isEqualTo(
            new Call(Op.EQ, List.of(f("browser-id"), Literal.of("2siknmdd6kaqm")), Type.BOOLEAN));
  }

  @Test
  void lateralView() {
    QueryPlan plan =
        check(
            "SELECT student, score FROM STREAM(30000, TIME) LATERAL VIEW EXPLODE(test_scores) AS"
                + " (student, score) WHERE score >= 80 LIMIT 10",
            "SELECT student AS student, score AS score FROM STREAM(30000, TIME) LATERAL VIEW"
                + " EXPLODE(test_scores) AS (student, score) WHERE score >= 80 LIMIT 10");
    assertThat(plan.lateralViews())
        .containsExactly(
            new QueryPlan.LateralView(f("test_scores"), "student", Optional.of("score"), false));
    assertThat(plan.aggregation())
        .isEqualTo(
            new Aggregation.Raw(
                Optional.of(
                    List.of(
                        new NamedExpr(f("student"), "student"),
                        new NamedExpr(f("score"), "score"))),
                10));
  }

  @Test
  void outerQuery() {
    QueryPlan plan =
        check(
            "SELECT COUNT(*) FROM (SELECT browser_name, COUNT(*) FROM STREAM(30000, TIME) GROUP BY"
                + " browser_name HAVING COUNT(*) > 10)",
            "SELECT COUNT(*) AS \"COUNT(*)\" FROM (SELECT browser_name AS browser_name, COUNT(*) AS"
                + " \"COUNT(*)\" FROM STREAM(30000, TIME) GROUP BY browser_name HAVING COUNT(*) >"
                + " 10) LIMIT 512");
    assertThat(plan.durationMs()).isEqualTo(30000);
    Aggregation.Group inner = (Aggregation.Group) plan.aggregation();
    assertThat(inner.keys()).containsExactly(new NamedExpr(f("browser_name"), "browser_name"));
    assertThat(plan.postAggregation().having())
        .contains(new Call(Op.GT, List.of(f("COUNT(*)"), Literal.of(10)), Type.BOOLEAN));
    QueryPlan outer = plan.outer().orElseThrow();
    assertThat(outer.durationMs()).isEqualTo(30000);
    assertThat(outer.window()).isEqualTo(Window.NONE);
    assertThat(outer.outer()).isEmpty();
    assertThat(outer.aggregation())
        .isEqualTo(
            new Aggregation.Group(
                List.of(), List.of(new Metric(MetricKind.COUNT, List.of(), "COUNT(*)")), 512));
  }

  @Test
  void distributionBesideGroupMetricsIsAnError() {
    BqlError error =
        error(
            "SELECT country, COUNT(*), QUANTILE(latency_ms, LINEAR, 11) FROM STREAM(60s, TIME)"
                + " WHERE status = 500 GROUP BY country WINDOWING TUMBLING(5s, TIME)");
    assertThat(error.span().column()).isEqualTo(27);
    assertThat(error.message()).contains("only one kind of aggregation");
    assertThat(error.resolution()).contains("Split it");
    // Each half compiles on its own, with the duration units.
    QueryPlan group =
        Bql.compile(
            "SELECT country, COUNT(*) FROM STREAM(60s, TIME) WHERE status = 500 GROUP BY country"
                + " WINDOWING TUMBLING(5s, TIME)");
    assertThat(group.durationMs()).isEqualTo(60_000);
    assertThat(group.window()).isEqualTo(new Window.Tumbling(5_000, Window.Unit.TIME));
    QueryPlan quantile =
        Bql.compile(
            "SELECT QUANTILE(latency_ms, LINEAR, 11) FROM STREAM(1m, TIME) WHERE status = 500"
                + " WINDOWING TUMBLING(500ms, TIME)");
    assertThat(quantile.durationMs()).isEqualTo(60_000);
  }

  @Test
  void computedColumnsOverAggregates() {
    QueryPlan plan =
        check(
            "select avg(x) * 2 as y, count(*) c, a from stream() group by a having sum(z) > 3"
                + " order by y desc limit 5",
            "SELECT AVG(x) * 2 AS y, COUNT(*) AS c, a AS a FROM STREAM(30000, TIME) GROUP BY a"
                + " HAVING SUM(z) > 3 ORDER BY y DESC LIMIT 5");
    Aggregation.Group group = (Aggregation.Group) plan.aggregation();
    assertThat(group.metrics())
        .containsExactly(
            new Metric(MetricKind.COUNT, List.of(), "c"),
            new Metric(MetricKind.AVG, List.of(f("x")), "AVG(x)"),
            new Metric(MetricKind.SUM, List.of(f("z")), "SUM(z)"));
    PostAggregation post = plan.postAggregation();
    assertThat(post.computations())
        .containsExactly(
            new NamedExpr(
                new Call(Op.MUL, List.of(f("AVG(x)"), Literal.of(2)), Type.UNKNOWN), "y"));
    assertThat(post.culled()).containsExactly("AVG(x)", "SUM(z)");
    assertThat(post.columnOrder()).contains(List.of("y", "c", "a"));
    assertThat(post.limit()).contains(5);
    assertThat(group.limit()).isEqualTo(QueryLimits.DEFAULTS.maxGroups());
  }

  @Test
  void countDistinctPerGroupIsAMetric() {
    QueryPlan plan = Bql.compile("SELECT b, COUNT(DISTINCT a) AS n FROM STREAM() GROUP BY b");
    assertThat(((Aggregation.Group) plan.aggregation()).metrics())
        .containsExactly(new Metric(MetricKind.COUNT_DISTINCT, List.of(f("a")), "n"));
  }

  @Test
  void selectDistinct() {
    QueryPlan plan =
        check(
            "SELECT DISTINCT browser_name FROM STREAM(30000, TIME) ORDER BY browser_name",
            "SELECT browser_name AS browser_name FROM STREAM(30000, TIME) GROUP BY browser_name"
                + " ORDER BY browser_name ASC");
    assertThat(plan.aggregation())
        .isEqualTo(
            new Aggregation.Group(
                List.of(new NamedExpr(f("browser_name"), "browser_name")), List.of(), 512));
  }

  @Test
  void notAndSizeofWithoutParenthesesBindTightlyAsInBullet() {
    check(
        "SELECT a FROM STREAM() WHERE NOT b AND SIZEOF l = 0 OR NOT m.c IS NULL",
        "SELECT a AS a FROM STREAM(30000, TIME) WHERE ((NOT (b)) AND (SIZEOF(l) = 0)) OR ((NOT"
            + " (m.c)) IS NULL) LIMIT 100");
    check(
        "SELECT SIZEOF s * 2 AS x FROM STREAM()",
        "SELECT SIZEOF(s) * 2 AS x FROM STREAM(30000, TIME) LIMIT 100");
    assertThatThrownBy(() -> Bql.compile("SELECT a FROM STREAM() WHERE NOT n > 100"))
        .hasMessageContaining("Cannot compare BOOLEAN with INTEGER");
  }

  @Test
  void expressionsAndPrecedence() {
    check(
        "SELECT a FROM STREAM() WHERE x NOT IN (1, 2, 3) AND y = ANY [1,2] AND m['k'].j : LONG >"
            + " 5L AND z BETWEEN (1, 2.5) AND NOT (q RLIKE ANY ['a', 'b'] XOR -w < 3)",
        "SELECT a AS a FROM STREAM(30000, TIME) WHERE (NOT (x IN [1, 2, 3])) AND (y = ANY [1, 2])"
            + " AND ((m.k.j : LONG) > 5L) AND (z BETWEEN (1, 2.5)) AND (NOT ((q RLIKE ANY ['a',"
            + " 'b']) XOR ((-(w)) < 3))) LIMIT 100");
    check(
        "SELECT a FROM STREAM() WHERE a + b * c - d / e % f > 1 OR g = 1 AND h = 2",
        "SELECT a AS a FROM STREAM(30000, TIME) WHERE (((a + (b * c)) - ((d / e) % f)) > 1) OR"
            + " ((g = 1) AND (h = 2)) LIMIT 100");
    // As in Bullet: NOT with parentheses binds tight, without them it takes everything after it.
    check(
        "SELECT a FROM STREAM() WHERE NOT (a) AND b",
        "SELECT a AS a FROM STREAM(30000, TIME) WHERE (NOT (a)) AND b LIMIT 100");
    check(
        "SELECT a FROM STREAM() WHERE NOT a AND b",
        "SELECT a AS a FROM STREAM(30000, TIME) WHERE (NOT (a)) AND b LIMIT 100");
    check(
        "SELECT a FROM STREAM() WHERE SIZEOF(l) + 1 > 2 AND b IS NULL",
        "SELECT a AS a FROM STREAM(30000, TIME) WHERE ((SIZEOF(l) + 1) > 2) AND (b IS NULL)"
            + " LIMIT 100");
  }

  @Test
  void literalsAndTypes() {
    QueryPlan plan =
        Bql.compile(
            "SELECT 65 AS i, 65L AS l, 1.5 AS d, 1.5f AS f, 'it''s' AS s, TRUE AS t, NULL AS n,"
                + " -3 AS neg, 3000000000 AS big, [1, 2] AS list FROM STREAM()");
    List<NamedExpr> p = ((Aggregation.Raw) plan.aggregation()).projection().orElseThrow();
    assertThat(p.stream().map(NamedExpr::expr))
        .containsExactly(
            Literal.of(65),
            Literal.of(65L),
            Literal.of(1.5),
            new Literal(1.5f, Type.FLOAT),
            Literal.of("it's"),
            Literal.TRUE,
            Literal.NULL,
            Literal.of(-3),
            Literal.of(3000000000L),
            new Literal(List.of(1, 2), Type.listOf(Type.INTEGER)));
    assertThat(Bql.compile(Bql.print(plan))).isEqualTo(plan);
  }

  @Test
  void staticTypes() {
    QueryPlan plan =
        Bql.compile(
            "SELECT 1 + 2L AS a, 1 * 2.5 AS b, x + 1 AS c, SIZEOF(x) AS d, HASH(x) AS e,"
                + " NOW() AS g, UNIXTIMESTAMP() AS h, CAST(x AS FLOAT) AS i, x = 1 AS j,"
                + " m : MAP[LONG] AS k, (m : MAP[LONG]).q AS l FROM STREAM()");
    List<NamedExpr> p = ((Aggregation.Raw) plan.aggregation()).projection().orElseThrow();
    assertThat(p.stream().map(n -> n.expr().type()))
        .containsExactly(
            Type.LONG,
            Type.DOUBLE,
            Type.UNKNOWN,
            Type.INTEGER,
            Type.INTEGER,
            Type.LONG,
            Type.LONG,
            Type.FLOAT,
            Type.BOOLEAN,
            Type.mapOf(Type.LONG),
            Type.LONG);
    assertThat(p.get(9).expr()).isEqualTo(new FieldRef("m", Type.mapOf(Type.LONG), true));
    assertThat(Bql.compile("SELECT l : LIST[MAP[LONG]] AS x FROM STREAM()").aggregation())
        .isEqualTo(
            new Aggregation.Raw(
                Optional.of(
                    List.of(
                        new NamedExpr(
                            new FieldRef("l", Type.listOf(Type.mapOf(Type.LONG)), true), "x"))),
                100));
  }

  @Test
  void nestedAccessIsIndex() {
    Expr viaDot = Bql.compile("SELECT * FROM STREAM() WHERE m.k = 1").where().orElseThrow();
    Expr viaString = Bql.compile("SELECT * FROM STREAM() WHERE m['k'] = 1").where().orElseThrow();
    assertThat(viaDot).isEqualTo(viaString);
    Expr list = Bql.compile("SELECT * FROM STREAM() WHERE l[0].k = 1").where().orElseThrow();
    assertThat(((Call) list).arg(0))
        .isEqualTo(index(new Call(Op.INDEX, List.of(f("l"), Literal.of(0)), Type.UNKNOWN), "k"));
    Expr byExpr = Bql.compile("SELECT * FROM STREAM() WHERE m[k] = 1").where().orElseThrow();
    assertThat(((Call) byExpr).arg(0))
        .isEqualTo(new Call(Op.INDEX, List.of(f("m"), f("k")), Type.UNKNOWN));
  }

  @Test
  void keywordsAreCaseInsensitiveAndNamesKeepTheirCase() {
    QueryPlan lower = Bql.compile("select Foo from stream(5s, time) where Foo is not null limit 3");
    QueryPlan upper =
        Bql.compile("SELECT Foo FROM STREAM(5000, TIME) WHERE Foo IS NOT NULL LIMIT 3");
    assertThat(lower).isEqualTo(upper);
    assertThat(lower.where().get())
        .isEqualTo(new Call(Op.IS_NOT_NULL, List.of(f("Foo")), Type.BOOLEAN));
  }

  @Test
  void windows() {
    assertThat(
            Bql.compile("SELECT COUNT(*) FROM STREAM() WINDOWING EVERY(2000, TIME, ALL)").window())
        .isEqualTo(new Window.Additive(2000));
    assertThat(
            Bql.compile("SELECT COUNT(*) FROM STREAM() WINDOWING EVERY(1s, TIME, FIRST, 3s, TIME)")
                .window())
        .isEqualTo(new Window.Sliding(1000, Window.Unit.TIME, 3000, Window.Unit.TIME));
    assertThat(Bql.compile("SELECT * FROM STREAM() WINDOWING TUMBLING(10, RECORD)").window())
        .isEqualTo(new Window.Tumbling(10, Window.Unit.RECORD));
    // Bullet's older form.
    assertThat(Bql.compile("SELECT * FROM STREAM() WINDOWING (TUMBLING, 5000, TIME)").window())
        .isEqualTo(new Window.Tumbling(5000, Window.Unit.TIME));
  }

  @Test
  void durations() {
    assertThat(Bql.compile("SELECT * FROM STREAM()").durationMs())
        .isEqualTo(QueryLimits.DEFAULTS.defaultDurationMs());
    assertThat(Bql.compile("SELECT * FROM STREAM(1h, TIME)").durationMs()).isEqualTo(3_600_000);
    assertThat(Bql.compile("SELECT * FROM STREAM(500ms, TIME)").durationMs()).isEqualTo(500);
    // Longer than the maximum: capped.
    assertThat(Bql.compile("SELECT * FROM STREAM(999999999999, TIME)").durationMs())
        .isEqualTo(QueryLimits.DEFAULTS.maxDurationMs());
  }

  @Test
  void rawOrderByOnFieldsNotSelected() {
    QueryPlan plan =
        check(
            "SELECT a FROM STREAM() ORDER BY b DESC, a",
            "SELECT a AS a FROM STREAM(30000, TIME) ORDER BY b DESC, a ASC LIMIT 100");
    assertThat(plan.postAggregation().culled()).containsExactly("b");
  }

  @Test
  void selectAllWithComputedColumns() {
    QueryPlan plan =
        check(
            "SELECT *, a + 1 AS b FROM STREAM() LATERAL VIEW OUTER EXPLODE(m) AS (k, v) ORDER BY k",
            "SELECT *, a + 1 AS b FROM STREAM(30000, TIME) LATERAL VIEW OUTER EXPLODE(m) AS (k, v)"
                + " ORDER BY k ASC LIMIT 100");
    assertThat(plan.aggregation()).isEqualTo(new Aggregation.Raw(Optional.empty(), 100));
    assertThat(plan.lateralViews())
        .containsExactly(new QueryPlan.LateralView(f("m"), "k", Optional.of("v"), true));
  }

  // ------------------------------------------------------------------ errors

  @Test
  void syntaxErrorsPointAtTheToken() {
    fails("SELECT FROM STREAM()", "1:8", "Unexpected 'FROM'");
    fails("SELECT a FROM STREAM() WHERE", "1:29", "end of query");
    fails("SELECT a\nFROM STREAM()\nWHERE a = = 1", "3:11", "Unexpected '='");
    fails("SELECT a FROM STREAM() WHERE a # 1", "1:32", "Unexpected character '#'");
    fails("SELECT a FROM STREAM() WHERE a = 'abc", "1:34", "Unterminated string");
    fails("SELECT * FROM STREAM(10, TIME", "1:30", "Expected");
    BqlError error = error("SELECT * FROM STREAM() LIMIT");
    assertThat(error.resolution()).contains("a number");
  }

  @Test
  void validationErrors() {
    fails("SELECT foo(x) FROM STREAM()", "1:8", "Unknown function FOO");
    fails("SELECT SIZEF(x) FROM STREAM()", "1:8", "SIZEOF");
    fails("SELECT ABS(x, y) FROM STREAM()", "1:8", "ABS takes 1 argument");
    fails("SELECT SIZEOF(5) FROM STREAM()", "1:15", "SIZEOF needs a LIST");
    fails("SELECT 'a' * 2 FROM STREAM()", "1:8", "needs a number");
    fails("SELECT * FROM STREAM() WHERE 5", "1:30", "WHERE needs a BOOLEAN");
    fails("SELECT SUM('x') FROM STREAM()", "1:12", "SUM needs a number");
    fails("SELECT * FROM STREAM() WHERE COUNT(*) > 1", "1:30", "aggregate is not allowed in WHERE");
    fails("SELECT SUM(AVG(x)) FROM STREAM()", "1:12", "cannot be nested");
    fails("SELECT COUNT(*) FROM STREAM() HAVING COUNT(*) > 1", "1:38", "HAVING needs a GROUP BY");
    fails(
        "SELECT a, b, COUNT(*) FROM STREAM() GROUP BY a", "1:11", "neither grouped nor aggregated");
    fails(
        "SELECT COUNT(*) FROM STREAM() WINDOWING TUMBLING(10, RECORD)",
        "1:50",
        "RECORD windows are only supported for queries of raw records");
    fails("SELECT * FROM STREAM() LIMIT 0", "1:30", "LIMIT must be positive");
    fails("SELECT * FROM STREAM() LIMIT -5", "1:30", "LIMIT must be positive");
    fails("SELECT * FROM STREAM() LIMIT 10001", "1:30", "maximum of 10000");
    fails("SELECT * FROM STREAM() WINDOWING TUMBLING(10, TIME)", "1:43", "at least 100 ms");
    fails("SELECT * FROM STREAM(0, TIME)", "1:22", "duration must be positive");
    fails("SELECT * FROM STREAM(99999999999999999999, TIME)", "1:22", "too large");
    fails(
        "SELECT * FROM STREAM() WINDOWING TUMBLING(5s, RECORD)", "1:43", "cannot have a time unit");
    fails(
        "SELECT * FROM STREAM() WINDOWING EVERY(1000, TIME, FIRST, 2500, TIME)",
        "1:59",
        "multiple of its emit period");
    fails("SELECT QUANTILE(x, LINEAR, 0) FROM STREAM()", "1:28", "between 1 and 100");
    fails("SELECT QUANTILE(x, MANUAL, 0.5, 1.5) FROM STREAM()", "1:33", "between 0 and 1");
    fails("SELECT FREQ(x, REGION, 10, 1, 1) FROM STREAM()", "1:24", "below its end");
    fails("SELECT FREQ(x, REGION, 1, 10, 0) FROM STREAM()", "1:31", "step of REGION");
    fails("SELECT FREQ(x, REGION, 0, 1000, 1) FROM STREAM()", "1:24", "more than 100 points");
    fails("SELECT TOP(5000, a) FROM STREAM()", "1:12", "between 1 and 1000");
    fails("SELECT TOP(5, a) FROM STREAM() LIMIT 3", "1:1", "LIMIT is not supported with TOP");
    fails("SELECT COUNT(DISTINCT a) FROM STREAM() ORDER BY a", "1:49", "ORDER BY is not supported");
    fails("SELECT *, COUNT(*) FROM STREAM()", "1:11", "only one kind of aggregation");
    fails("SELECT TOP(5, a), SUM(b) FROM STREAM()", "1:19", "only one kind of aggregation");
    fails("SELECT a AS x, b AS x FROM STREAM()", "1:1", "More than one column is named x");
    fails(
        "SELECT a FROM (SELECT a FROM STREAM()) WINDOWING TUMBLING(1000, TIME)",
        "1:50",
        "outer query cannot have a WINDOWING");
    fails("SELECT CAST(a AS MAP) FROM STREAM()", "1:8", "Cannot CAST to MAP");
    fails(
        "SELECT a : LONG : LONG FROM STREAM() WHERE (a + 1) : LONG > 1",
        "1:44",
        "type hint can only follow a field");
  }

  @Test
  void severalErrorsAreCollected() {
    try {
      Bql.compile("SELECT foo(x), SIZEOF(5) FROM STREAM() WHERE 5 LIMIT 0");
      throw new AssertionError("expected errors");
    } catch (BqlException e) {
      assertThat(e.errors()).hasSize(4);
      assertThat(e.errors().stream().map(err -> err.span().column()))
          .containsExactly(8, 23, 46, 54);
      assertThat(e.getMessage()).contains("1:8: Unknown function FOO");
    }
  }

  @Test
  void queryLongerThanTheLimit() {
    QueryLimits small =
        new QueryLimits(
            30_000, 60_000, 100, 1000, 512, 10_000, 1024, 128, 100, 64, 100, 100, 40, 100);
    assertThatThrownBy(() -> Bql.compile("SELECT * FROM STREAM() WHERE aVeryLongName = 1", small))
        .isInstanceOf(BqlException.class)
        .hasMessageContaining("longer than the maximum of 40");
  }
}
