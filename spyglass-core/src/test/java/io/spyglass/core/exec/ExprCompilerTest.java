package io.spyglass.core.exec;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.plan.Call;
import io.spyglass.core.plan.Expr;
import io.spyglass.core.plan.FieldRef;
import io.spyglass.core.plan.Literal;
import io.spyglass.core.plan.Op;
import io.spyglass.core.record.Record;
import io.spyglass.core.record.Type;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ExprCompilerTest {
  private final EvalStats stats = new EvalStats();
  private final ExprCompiler compiler = new ExprCompiler(() -> 42L, stats);
  private final Record r =
      new Record()
          .putLong("n", 5)
          .putDouble("d", 2.5)
          .putString("s", "Hello")
          .putBoolean("t", true)
          .putNull("z")
          .put("m", Map.of("k", "v", "inner", Map.of("x", 1L)))
          .put("l", List.of(1L, 2L, 3L));

  private Object eval(Expr e) {
    Eval ev = compiler.compile(e);
    return ev.boxed(ev.eval(r));
  }

  private static Call call(Op op, Expr... args) {
    return new Call(op, List.of(args), Type.UNKNOWN);
  }

  private static FieldRef f(String name) {
    return FieldRef.of(name);
  }

  @Test
  void arithmeticPromotesAndDividesSafely() {
    assertThat(eval(call(Op.ADD, f("n"), Literal.of(2L)))).isEqualTo(7L);
    assertThat(eval(call(Op.MUL, f("n"), f("d")))).isEqualTo(12.5);
    assertThat(eval(call(Op.DIV, f("n"), Literal.of(2L)))).isEqualTo(2L);
    assertThat(eval(call(Op.DIV, f("n"), Literal.of(0L)))).isNull();
    assertThat(eval(call(Op.MOD, f("n"), Literal.of(3L)))).isEqualTo(2L);
    assertThat(eval(call(Op.NEG, f("d")))).isEqualTo(-2.5);
    assertThat(eval(call(Op.ADD, f("s"), Literal.of("!")))).isEqualTo("Hello!");
    assertThat(eval(call(Op.ADD, f("missing"), Literal.of(1L)))).isNull();
    assertThat(stats.errors()).isEqualTo(1);
  }

  @Test
  void comparisonsAcrossNumericTypes() {
    assertThat(eval(call(Op.EQ, f("n"), Literal.of(5.0)))).isEqualTo(true);
    assertThat(eval(call(Op.LT, f("d"), Literal.of(3L)))).isEqualTo(true);
    assertThat(eval(call(Op.EQ, f("s"), Literal.of("Hello")))).isEqualTo(true);
    assertThat(eval(call(Op.NE, f("s"), Literal.of("Hello")))).isEqualTo(false);
    assertThat(eval(call(Op.EQ, f("s"), Literal.of(5L)))).isNull();
    assertThat(eval(call(Op.GE, f("z"), Literal.of(5L)))).isNull();
    assertThat(eval(call(Op.EQ, Literal.of(1L), f("n")))).isEqualTo(false);
  }

  @Test
  void threeValuedLogic() {
    Expr nul = call(Op.EQ, f("z"), Literal.of(1L));
    Expr yes = call(Op.EQ, f("n"), Literal.of(5L));
    Expr no = call(Op.EQ, f("n"), Literal.of(6L));
    assertThat(eval(call(Op.AND, nul, no))).isEqualTo(false);
    assertThat(eval(call(Op.AND, nul, yes))).isNull();
    assertThat(eval(call(Op.OR, nul, yes))).isEqualTo(true);
    assertThat(eval(call(Op.OR, nul, no))).isNull();
    assertThat(eval(call(Op.NOT, nul))).isNull();
    assertThat(eval(call(Op.XOR, yes, no))).isEqualTo(true);
    assertThat(eval(call(Op.IS_NULL, f("z")))).isEqualTo(true);
    assertThat(eval(call(Op.IS_NOT_NULL, f("missing")))).isEqualTo(false);
  }

  @Test
  void collectionsAndAccess() {
    assertThat(eval(call(Op.INDEX, f("m"), Literal.of("k")))).isEqualTo("v");
    assertThat(eval(call(Op.INDEX, call(Op.INDEX, f("m"), Literal.of("inner")), Literal.of("x"))))
        .isEqualTo(1L);
    assertThat(eval(call(Op.INDEX, f("l"), Literal.of(1L)))).isEqualTo(2L);
    assertThat(eval(call(Op.INDEX, f("l"), Literal.of(9L)))).isNull();
    assertThat(eval(call(Op.SIZEOF, f("l")))).isEqualTo(3);
    assertThat(eval(call(Op.SIZEIS, f("s"), Literal.of(5L)))).isEqualTo(true);
    assertThat(eval(call(Op.CONTAINSKEY, f("m"), Literal.of("x")))).isEqualTo(true);
    assertThat(eval(call(Op.CONTAINSVALUE, f("l"), Literal.of(2L)))).isEqualTo(true);
    assertThat(eval(call(Op.IN, f("n"), call(Op.LIST, Literal.of(1L), Literal.of(5L)))))
        .isEqualTo(true);
    assertThat(eval(call(Op.IN, f("s"), call(Op.LIST, Literal.of("a"), Literal.of("b")))))
        .isEqualTo(false);
    assertThat(eval(call(Op.GT_ANY, f("n"), f("l")))).isEqualTo(true);
    assertThat(eval(call(Op.GT_ALL, f("n"), f("l")))).isEqualTo(true);
    assertThat(eval(call(Op.LT_ALL, f("n"), f("l")))).isEqualTo(false);
    assertThat(
            eval(call(Op.FILTER, f("l"), call(Op.LIST, Literal.TRUE, Literal.FALSE, Literal.TRUE))))
        .isEqualTo(List.of(1L, 3L));
    assertThat(eval(call(Op.BETWEEN, f("n"), Literal.of(1L), Literal.of(5L)))).isEqualTo(true);
  }

  @Test
  void functions() {
    assertThat(eval(call(Op.LOWER, f("s")))).isEqualTo("hello");
    assertThat(eval(call(Op.UPPER, f("s")))).isEqualTo("HELLO");
    assertThat(eval(call(Op.TRIM, Literal.of("  x ")))).isEqualTo("x");
    assertThat(eval(call(Op.SUBSTRING, f("s"), Literal.of(2L), Literal.of(3L)))).isEqualTo("ell");
    assertThat(eval(call(Op.ABS, Literal.of(-3L)))).isEqualTo(3L);
    assertThat(eval(call(Op.IF, f("t"), Literal.of("y"), Literal.of("n")))).isEqualTo("y");
    assertThat(eval(call(Op.NOW))).isEqualTo(42L);
    assertThat(eval(call(Op.UNIXTIMESTAMP, Literal.of("1970-01-01 00:00:01")))).isEqualTo(1L);
    assertThat(eval(call(Op.SUBSTRING, f("s"), Literal.of(-2L)))).isEqualTo("lo");
    assertThat(eval(call(Op.RLIKE, f("s"), Literal.of("H.l+o")))).isEqualTo(true);
    assertThat(eval(call(Op.RLIKE, f("s"), Literal.of("H.l")))).isEqualTo(false);
    // Bullet's HASH is Java's hashCode of the value: these are its answers
    assertThat(eval(call(Op.HASH, f("s")))).isEqualTo("Hello".hashCode());
    assertThat(eval(call(Op.HASH, Literal.of("abc")))).isEqualTo(96354);
    assertThat(eval(call(Op.HASH, Literal.of(50L)))).isEqualTo(50);
    assertThat(eval(call(Op.HASH, Literal.of(true)))).isEqualTo(1231);
    assertThat(eval(call(Op.HASH, Literal.of(false)))).isEqualTo(1237);
    assertThat(eval(call(Op.HASH, Literal.of(1L << 32)))).isEqualTo(1);
    assertThat(eval(call(Op.HASH, Literal.of(1.5)))).isEqualTo(Double.hashCode(1.5));
  }

  @Test
  void castsAndFailedCasts() {
    assertThat(eval(new Call(Op.CAST, List.of(Literal.of("12")), Type.LONG))).isEqualTo(12L);
    assertThat(eval(new Call(Op.CAST, List.of(f("d")), Type.INTEGER))).isEqualTo(2);
    assertThat(eval(new Call(Op.CAST, List.of(f("n")), Type.STRING))).isEqualTo("5");
    assertThat(eval(new Call(Op.CAST, List.of(Literal.of("true")), Type.BOOLEAN))).isEqualTo(true);
    long before = stats.errors();
    assertThat(eval(new Call(Op.CAST, List.of(Literal.of("abc")), Type.DOUBLE))).isNull();
    assertThat(stats.errors()).isEqualTo(before + 1);
  }

  @Test
  void typeHintsReadOtherTypesAsNull() {
    assertThat(eval(new FieldRef("s", Type.LONG, true))).isNull();
    assertThat(eval(new FieldRef("n", Type.DOUBLE, true))).isEqualTo(5.0);
    assertThat(eval(new FieldRef("m", Type.mapOf(Type.STRING), true))).isNotNull();
    assertThat(eval(new Call(Op.INDEX, List.of(f("m"), Literal.of("k")), Type.STRING)))
        .isEqualTo("v");
    assertThat(eval(new Call(Op.INDEX, List.of(f("m"), Literal.of("k")), Type.LONG))).isNull();
    assertThat(eval(new Call(Op.INDEX, List.of(f("l"), Literal.of(0L)), Type.DOUBLE)))
        .isEqualTo(1.0);
  }
}
