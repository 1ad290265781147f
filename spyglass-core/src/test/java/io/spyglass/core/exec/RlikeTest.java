package io.spyglass.core.exec;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.plan.Call;
import io.spyglass.core.plan.FieldRef;
import io.spyglass.core.plan.Op;
import io.spyglass.core.record.Record;
import io.spyglass.core.record.Type;
import java.util.List;
import org.junit.jupiter.api.Test;

/** RLIKE with patterns read from records: bounded like constant ones, compiled once each. */
class RlikeTest {
  private final EvalStats stats = new EvalStats();
  private final Eval rlike =
      new ExprCompiler(() -> 0L, stats)
          .compile(new Call(Op.RLIKE, List.of(FieldRef.of("s"), FieldRef.of("p")), Type.UNKNOWN));

  private Object eval(String s, String p) {
    Record r = new Record().putString("s", s).putString("p", p);
    return rlike.boxed(rlike.eval(r));
  }

  @Test
  void aPatternFromARecordTooLargeToCompileGivesNullAndIsCounted() {
    assertThat(eval("aaa", "((a{1000}){1000}){1000}")).isNull();
    assertThat(stats.errors()).isEqualTo(1);
    assertThat(eval("aaa", "a+")).isEqualTo(true);
    assertThat(eval("aaa", "(b")).isNull();
    assertThat(stats.errors()).isEqualTo(2);
  }

  @Test
  void patternsAlternatingBetweenRecordsStayCompiled() {
    for (int i = 0; i < 3 * Strings.Rlike.CACHED; i++) {
      String p = "x" + (i % (Strings.Rlike.CACHED / 2)) + ".*";
      assertThat(eval("x" + (i % (Strings.Rlike.CACHED / 2)) + "yz", p)).isEqualTo(true);
      assertThat(eval("nope", p)).isEqualTo(false);
    }
    assertThat(stats.errors()).isZero();
  }
}
