package io.spyglass.service.alerts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spyglass.core.plan.Bql;
import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.syntax.BqlError;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Conditions parsed by the BQL parser over a standing query's columns: what they accept, and where
 * in the text they say a mistake is.
 */
class ConditionTest {
  static final String QUERY =
      "SELECT org, region, COUNT(*) AS n, SUM(amount) AS total FROM STREAM(FOREVER) GROUP BY org,"
          + " region WINDOWING TUMBLING(1m, EVENT_TIME(time))";

  static Shape shape(String query) throws Exception {
    return Shape.of(Bql.compile(query));
  }

  static Condition having(String text) throws Exception {
    return Condition.having(text, shape(QUERY), QueryLimits.DEFAULTS, () -> 0);
  }

  static Map<String, Object> row(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], kv[i + 1]);
    }
    return m;
  }

  @Test
  void theShapeOfAGroupedQueryIsItsColumnsWithItsKeysAsLabels() throws Exception {
    Shape s = shape(QUERY);
    assertThat(s.columns()).containsExactly("org", "region", "n", "total");
    assertThat(s.labels()).containsExactly("org", "region");
    assertThat(
            shape("SELECT COUNT(*) AS n FROM STREAM(FOREVER) WINDOWING TUMBLING(1m, TIME)")
                .labels())
        .isEmpty();
    assertThatThrownBy(() -> shape("SELECT * FROM STREAM(FOREVER) WINDOWING TUMBLING(1m, TIME)"))
        .isInstanceOf(Shape.NotGroups.class)
        .hasMessageContaining("records, not groups");
  }

  @Test
  void aHavingExpressionIsTrueOnlyWhenItIsTrue() throws Exception {
    Condition c = having("n > 10 AND org != 'test'");
    assertThat(c.test(row("org", "acme", "region", "eu", "n", 11L, "total", 5.0))).isTrue();
    assertThat(c.test(row("org", "acme", "region", "eu", "n", 10L, "total", 5.0))).isFalse();
    assertThat(c.test(row("org", "test", "region", "eu", "n", 50L, "total", 5.0))).isFalse();
    // NULL is not TRUE
    assertThat(c.test(row("org", "acme", "region", "eu", "n", null, "total", 5.0))).isFalse();
    assertThat(having("total / n >= 2.5").test(row("n", 2L, "total", 5.0))).isTrue();
  }

  @Test
  void anUnknownColumnIsShownWhereItIsWritten() {
    assertThatThrownBy(() -> having("n > 1 AND amount > 2"))
        .isInstanceOfSatisfying(
            Condition.Invalid.class,
            e -> {
              assertThat(e.field).isEqualTo("condition.having");
              assertThat(e.getMessage()).contains("no column \"amount\"");
              assertThat(e.resolution).contains("[org, region, n, total]");
              BqlError err = e.errors.get(0);
              assertThat(err.span().line()).isEqualTo(1);
              assertThat(err.span().column()).isEqualTo(11);
              assertThat(err.span().start()).isEqualTo(10);
              assertThat(err.span().end()).isEqualTo(16);
            });
  }

  @Test
  void aSyntaxErrorIsShownWhereItIs() {
    assertThatThrownBy(() -> having("n >> 1"))
        .isInstanceOfSatisfying(
            Condition.Invalid.class,
            e -> {
              assertThat(e.errors).isNotEmpty();
              assertThat(e.errors.get(0).span().column()).isBetween(3, 5);
              assertThat(e.getMessage()).startsWith("The condition is not valid");
            });
    assertThatThrownBy(() -> having("n > 1\nAND org = "))
        .isInstanceOfSatisfying(
            Condition.Invalid.class, e -> assertThat(e.errors.get(0).span().line()).isEqualTo(2));
  }

  @Test
  void anAggregateSaysToNameItInTheQuery() {
    assertThatThrownBy(() -> having("COUNT(*) > 5"))
        .isInstanceOfSatisfying(
            Condition.Invalid.class,
            e -> {
              assertThat(e.getMessage()).contains("an aggregate is not computed here");
              assertThat(e.resolution).contains("COUNT(*) AS n");
              assertThat(e.errors.get(0).span().start()).isZero();
            });
  }

  @Test
  void moreThanOneExpressionIsRefused() {
    assertThatThrownBy(() -> having("n > 1 GROUP BY org"))
        .isInstanceOfSatisfying(
            Condition.Invalid.class,
            e -> {
              assertThat(e.getMessage()).contains("one boolean expression");
              assertThat(e.errors.get(0).span().start()).isEqualTo(6);
            });
    assertThatThrownBy(() -> having("   "))
        .isInstanceOfSatisfying(
            Condition.Invalid.class, e -> assertThat(e.getMessage()).contains("empty"));
  }

  @Test
  void aThresholdIsAComparisonOfOneColumn() throws Exception {
    Shape s = shape(QUERY);
    Condition c = Condition.threshold("n", ">=", 100, s, QueryLimits.DEFAULTS, () -> 0);
    assertThat(c.text).isEqualTo("\"n\" >= 100");
    assertThat(c.test(row("n", 100L))).isTrue();
    assertThat(c.test(row("n", 99L))).isFalse();
    Condition eq = Condition.threshold("org", "=", "o'brien", s, QueryLimits.DEFAULTS, () -> 0);
    assertThat(eq.test(row("org", "o'brien"))).isTrue();
    assertThat(
            Condition.threshold("n", "!=", 3, s, QueryLimits.DEFAULTS, () -> 0).test(row("n", 4L)))
        .isTrue();
    assertThatThrownBy(() -> Condition.threshold("x", ">", 1, s, QueryLimits.DEFAULTS, () -> 0))
        .isInstanceOfSatisfying(
            Condition.Invalid.class, e -> assertThat(e.field).isEqualTo("condition.column"));
    assertThatThrownBy(() -> Condition.threshold("n", "=>", 1, s, QueryLimits.DEFAULTS, () -> 0))
        .isInstanceOfSatisfying(
            Condition.Invalid.class, e -> assertThat(e.field).isEqualTo("condition.op"));
    assertThatThrownBy(() -> Condition.threshold("n", ">", "a", s, QueryLimits.DEFAULTS, () -> 0))
        .isInstanceOfSatisfying(
            Condition.Invalid.class, e -> assertThat(e.field).isEqualTo("condition.value"));
  }
}
