package io.spyglass.core.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.record.Type;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** Random expressions survive the printer: print, compile, equal plan. */
class BqlProperties {

  private static final List<Op> BINARY =
      List.of(
          Op.ADD, Op.SUB, Op.MUL, Op.DIV, Op.MOD, Op.EQ, Op.NE, Op.LT, Op.LE, Op.GT, Op.GE, Op.AND,
          Op.OR, Op.XOR, Op.RLIKE);

  @Provide
  Arbitrary<Expr> expressions() {
    return expression(4);
  }

  private Arbitrary<Expr> expression(int depth) {
    Arbitrary<Expr> leaf =
        Arbitraries.oneOf(
            Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(6).map(FieldRef::of),
            Arbitraries.of("a-b", "select", "x y", "\"q\"", "NOW").map(FieldRef::of),
            Arbitraries.integers().map(Literal::of),
            Arbitraries.longs().map(Literal::of),
            Arbitraries.doubles().between(-1e6, 1e6).map(Literal::of),
            Arbitraries.strings().ofMaxLength(5).map(Literal::of),
            Arbitraries.of(Literal.TRUE, Literal.FALSE, Literal.NULL));
    if (depth == 0) {
      return leaf;
    }
    Arbitrary<Expr> sub = Arbitraries.lazy(() -> expression(depth - 1));
    Arbitrary<Expr> binary =
        Combinators.combine(Arbitraries.of(BINARY), sub, sub)
            .as((op, l, r) -> new Call(op, List.of(l, r), Type.UNKNOWN));
    Arbitrary<Expr> unary =
        Combinators.combine(
                Arbitraries.of(Op.NOT, Op.IS_NULL, Op.IS_NOT_NULL, Op.NEG, Op.ABS, Op.SIZEOF), sub)
            .as((op, e) -> new Call(op, List.of(e), Type.UNKNOWN));
    Arbitrary<Expr> index =
        Combinators.combine(
                sub.filter(e -> e instanceof FieldRef),
                Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(4))
            .as((base, key) -> new Call(Op.INDEX, List.of(base, Literal.of(key)), Type.UNKNOWN));
    Arbitrary<Expr> ternary =
        Combinators.combine(Arbitraries.of(Op.BETWEEN, Op.IF), sub, sub, sub)
            .as((op, a, b, c) -> new Call(op, List.of(a, b, c), Type.UNKNOWN));
    return Arbitraries.oneOf(leaf, binary, unary, index, ternary);
  }

  /**
   * A generated expression need not be well typed. Its printed text always parses (the printer
   * writes only valid syntax); when it also binds, the canonical form of the plan is valid again,
   * compiles to the same plan and prints to itself.
   */
  @Property(tries = 500)
  void printedExpressionsParseAndCanonicalFormsAreFixedPoints(@ForAll("expressions") Expr e) {
    String text = "SELECT " + new BqlPrinterAccess().print(e) + " AS x FROM STREAM()";
    io.spyglass.core.syntax.QueryParser.parse(text, QueryLimits.DEFAULTS.maxQueryLength());
    QueryPlan plan;
    try {
      plan = Bql.compile(text);
    } catch (io.spyglass.core.syntax.BqlException typeError) {
      assertThat(typeError.errors())
          .allSatisfy(err -> assertThat(err.message()).doesNotContain("Unexpected"));
      return; // a type error of the generated tree: parsed above, nothing to round-trip
    }
    canonicalIsAFixedPoint(plan);
  }

  @Property(tries = 300)
  void wellTypedRandomFiltersRoundTrip(@ForAll("conditions") Expr e) {
    QueryPlan plan = Bql.compile("SELECT * FROM STREAM() WHERE " + new BqlPrinterAccess().print(e));
    assertThat(plan.where()).contains(flatten(e));
    canonicalIsAFixedPoint(plan);
  }

  /** The canonical form of a valid query is valid, compiles to the same plan, prints to itself. */
  private static void canonicalIsAFixedPoint(QueryPlan plan) {
    String canonical = Bql.print(plan);
    QueryPlan again = Bql.compile(canonical);
    assertThat(again).as(canonical).isEqualTo(plan);
    assertThat(Bql.print(again)).isEqualTo(canonical);
  }

  /** AND and OR chains as the binder holds them: one n-ary call. */
  private static Expr flatten(Expr e) {
    if (!(e instanceof Call c)) {
      return e;
    }
    List<Expr> args = new java.util.ArrayList<>();
    for (Expr arg : c.args()) {
      Expr flat = flatten(arg);
      if ((c.op() == Op.AND || c.op() == Op.OR)
          && flat instanceof Call inner
          && inner.op() == c.op()) {
        args.addAll(inner.args());
      } else {
        args.add(flat);
      }
    }
    return new Call(c.op(), args, c.type());
  }

  /** Boolean conditions over untyped fields: they always bind, to exactly the generated tree. */
  @Provide
  Arbitrary<Expr> conditions() {
    return condition(3);
  }

  private Arbitrary<Expr> condition(int depth) {
    Arbitrary<Expr> value =
        Arbitraries.oneOf(
            Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(5).map(FieldRef::of),
            Arbitraries.integers().map(Literal::of),
            Arbitraries.strings().ofMaxLength(4).map(Literal::of));
    Arbitrary<Expr> field =
        Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(5).map(FieldRef::of);
    Arbitrary<Expr> comparison =
        Combinators.combine(Arbitraries.of(Op.EQ, Op.NE, Op.LT, Op.GE), field, value)
            .as((op, l, r) -> new Call(op, List.of(l, r), Type.BOOLEAN));
    Arbitrary<Expr> isNull = field.map(f -> new Call(Op.IS_NULL, List.of(f), Type.BOOLEAN));
    if (depth == 0) {
      return Arbitraries.oneOf(comparison, isNull);
    }
    Arbitrary<Expr> sub = Arbitraries.lazy(() -> condition(depth - 1));
    Arbitrary<Expr> logic =
        Combinators.combine(Arbitraries.of(Op.AND, Op.OR, Op.XOR), sub, sub)
            .as((op, l, r) -> new Call(op, List.of(l, r), Type.BOOLEAN));
    Arbitrary<Expr> not = sub.map(c -> new Call(Op.NOT, List.of(c), Type.BOOLEAN));
    return Arbitraries.oneOf(comparison, isNull, logic, not);
  }

  /** Reaches the package-private printer. */
  private static final class BqlPrinterAccess {
    String print(Expr e) {
      return BqlPrinter.RECORD_PRINTER.expr(e);
    }
  }
}
