package io.spyglass.service.alerts;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.plan.QueryLimits;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The evaluation of crafted final windows: a group fires when a window meets the condition and it
 * was not firing, resolves when one does not (or has no row of it), is kept quiet when it fires
 * again within the quiet period, and a muted alert records without sending.
 */
class EvaluatorTest {
  static final long MINUTE = 60_000;
  static final long QUIET = 5 * MINUTE;

  Shape shape;
  Condition condition;
  Map<String, AlertStore.Group> groups;
  List<AlertStore.Event> all;
  long seq;
  boolean repeat;

  @BeforeEach
  void setUp() throws Exception {
    shape = ConditionTest.shape(ConditionTest.QUERY);
    condition = Condition.having("n > 10", shape, QueryLimits.DEFAULTS, () -> 0);
    groups = new LinkedHashMap<>();
    all = new ArrayList<>();
    seq = 0;
  }

  /** Evaluates window {@code i} (minute i) with {@code rows}, as the alerts keep its outcome. */
  List<AlertStore.Event> window(int i, boolean muted, String error, String... rows) {
    String records = "[" + String.join(",", rows) + "]";
    Evaluator.Outcome o =
        Evaluator.evaluate(
            "a",
            shape,
            condition,
            QUIET,
            muted,
            repeat,
            new Evaluator.Window(i * MINUTE, (i + 1) * MINUTE, records, error),
            Map.copyOf(groups),
            seq + 1,
            1000 + i);
    seq += o.events().size();
    o.groups().forEach(g -> groups.put(g.id(), g));
    o.forgotten().forEach(groups::remove);
    all.addAll(o.events());
    return o.events();
  }

  List<AlertStore.Event> window(int i, String... rows) {
    return window(i, false, null, rows);
  }

  static String row(String org, long n) {
    return "{\"org\":\"" + org + "\",\"region\":\"eu\",\"n\":" + n + ",\"total\":1.5}";
  }

  static String states(List<AlertStore.Event> events) {
    StringBuilder b = new StringBuilder();
    for (AlertStore.Event e : events) {
      b.append(b.length() > 0 ? " " : "")
          .append(e.labels().contains("acme") ? "acme" : "beta")
          .append(':')
          .append(e.state())
          .append(':')
          .append(e.delivery());
    }
    return b.toString();
  }

  @Test
  void aGroupFiresOnceAndResolvesWhenItNoLongerMeetsTheCondition() {
    assertThat(states(window(0, row("acme", 20), row("beta", 5)))).isEqualTo("acme:firing:pending");
    assertThat(window(1, row("acme", 30), row("beta", 5)))
        .as("still firing: nothing new")
        .isEmpty();
    assertThat(states(window(2, row("acme", 3), row("beta", 50))))
        .isEqualTo("acme:resolved:pending beta:firing:pending");
    AlertStore.Event fired = all.get(0);
    assertThat(fired.windowStart()).isZero();
    assertThat(fired.windowEnd()).isEqualTo(MINUTE);
    assertThat(fired.labels()).isEqualTo("{\"org\":\"acme\",\"region\":\"eu\"}");
    assertThat(fired.values()).contains("\"n\":20");
    assertThat(fired.seq()).isEqualTo(1);
    assertThat(fired.timeMs()).isEqualTo(1000);
    assertThat(all.get(2).seq()).isEqualTo(3);
    assertThat(all).extracting(AlertStore.Event::key).doesNotHaveDuplicates();
  }

  @Test
  void aGroupAbsentFromAFinalWindowResolvesUnlessTheWindowMissesRows() {
    window(0, row("acme", 20));
    assertThat(window(1, false, "groups beyond 100000 are missing", row("beta", 1)))
        .as("the window says rows are missing: absence proves nothing")
        .isEmpty();
    List<AlertStore.Event> e = window(2, row("beta", 1));
    assertThat(states(e)).isEqualTo("acme:resolved:pending");
    assertThat(e.get(0).values()).isEqualTo("{}");
  }

  @Test
  void firingAgainWithinTheQuietPeriodIsRecordedButNotSentNorIsItsResolution() {
    window(0, row("acme", 20));
    window(1, row("acme", 1)); // resolved at the end of minute 1 (2 min)
    assertThat(states(window(3, row("acme", 20)))).isEqualTo("acme:firing:quiet");
    assertThat(states(window(4, row("acme", 1)))).isEqualTo("acme:resolved:quiet");
    // resolved at 5 min: the window ending 5 minutes later is out of the quiet period
    assertThat(states(window(9, row("acme", 20)))).isEqualTo("acme:firing:pending");
    assertThat(states(window(10, row("acme", 1)))).isEqualTo("acme:resolved:pending");
    assertThat(states(window(12, row("acme", 20))))
        .as("13 min - 11 min is within the quiet period")
        .isEqualTo("acme:firing:quiet");
  }

  @Test
  void aMutedAlertRecordsEventsAndSendsNeitherThemNorTheirResolution() {
    assertThat(states(window(0, true, null, row("acme", 20)))).isEqualTo("acme:firing:muted");
    assertThat(states(window(1, false, null, row("acme", 1))))
        .as("its firing was not sent")
        .isEqualTo("acme:resolved:quiet");
    window(7, false, null, row("acme", 20));
    assertThat(states(window(8, true, null, row("acme", 1)))).isEqualTo("acme:resolved:muted");
  }

  @Test
  void resolvedGroupsAreForgottenOnceTheirQuietPeriodIsOver() {
    window(0, row("acme", 20), row("beta", 20));
    window(1, row("acme", 1), row("beta", 1));
    assertThat(groups).hasSize(2);
    window(2, row("acme", 1));
    assertThat(groups).as("within the quiet period: remembered").hasSize(2);
    window(7);
    assertThat(groups).as("8 min - 2 min is past the quiet period").isEmpty();
  }

  @Test
  void inTheAlertmanagerFormAGroupStillFiringFiresAgainEachWindow() {
    repeat = true;
    assertThat(states(window(0, row("acme", 20), row("beta", 1)))).isEqualTo("acme:firing:pending");
    assertThat(states(window(1, row("acme", 30), row("beta", 1)))).isEqualTo("acme:firing:pending");
    assertThat(states(window(2, row("acme", 1)))).isEqualTo("acme:resolved:pending");
    assertThat(all).extracting(AlertStore.Event::key).doesNotHaveDuplicates();
  }

  @Test
  void aGroupWithoutOneOfItsKeysHasAnEmptyLabel() {
    List<AlertStore.Event> e = window(0, "{\"org\":null,\"region\":\"eu\",\"n\":50,\"total\":1}");
    assertThat(e)
        .singleElement()
        .satisfies(x -> assertThat(x.labels()).isEqualTo("{\"org\":\"\",\"region\":\"eu\"}"));
  }
}
