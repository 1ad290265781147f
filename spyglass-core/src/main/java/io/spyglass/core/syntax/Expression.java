package io.spyglass.core.syntax;

import io.spyglass.core.record.Type;
import java.util.List;

/**
 * An expression as written in a query: positioned, untyped, unresolved. Names of functions are kept
 * as written (upper-cased); the binder resolves them.
 */
public sealed interface Expression {
  /** Where the expression stands in the query text. */
  Span span();

  /** A constant: {@code null}, a Boolean, Integer, Long, Float, Double or String. */
  record Literal(Object value, Type type, Span span) implements Expression {}

  /** A top-level field of a record, or a name of a result column. */
  record Field(String name, Span span) implements Expression {}

  /**
   * {@code base.key} ({@code dot}), {@code base['key']} or {@code base[expression]}.
   *
   * @param dot whether written {@code base.key}: the same access as {@code base['key']}, named as
   *     written
   */
  record Access(Expression base, Expression key, boolean dot, Span span) implements Expression {}

  /** {@code expression : TYPE}, a type hint. */
  record Hint(Expression expression, Type type, Span span) implements Expression {}

  /** {@code [a, b, c]}. */
  record ListOf(List<Expression> items, Span span) implements Expression {
    public ListOf {
      items = List.copyOf(items);
    }
  }

  /** {@code -x} or {@code NOT x}. */
  record Unary(UnaryOp op, Expression operand, Span span) implements Expression {}

  /** An infix operator; {@code negated} is the {@code NOT} of {@code NOT RLIKE}. */
  record Binary(
      BinaryOp op,
      Quantifier quantifier,
      boolean negated,
      Expression left,
      Expression right,
      Span span)
      implements Expression {}

  /**
   * {@code a AND b AND ...} or {@code a OR b OR ...}: a flat chain of two or more operands of one
   * operator, however long, so that no stage recurses along it.
   */
  record Chain(BinaryOp op, List<Expression> operands, Span span) implements Expression {
    public Chain {
      operands = List.copyOf(operands);
    }
  }

  /** {@code x IS [NOT] NULL}. */
  record IsNull(Expression operand, boolean negated, Span span) implements Expression {}

  /** {@code x [NOT] IN (a, b)} (a {@link ListOf}) or {@code x [NOT] IN expression}. */
  record In(Expression value, Expression list, boolean negated, Span span) implements Expression {}

  /** {@code x [NOT] BETWEEN (lower, upper)}. */
  record Between(Expression value, Expression lower, Expression upper, boolean negated, Span span)
      implements Expression {}

  /**
   * A function or aggregate call by name: {@code ABS(x)}, {@code COUNT(*)} ({@code star}), {@code
   * COUNT(DISTINCT a, b)} ({@code distinct}), {@code TOP(10, a)}.
   */
  record Call(
      String name, List<Expression> args, boolean star, boolean distinct, Span nameSpan, Span span)
      implements Expression {
    public Call {
      args = List.copyOf(args);
    }
  }

  /** {@code CAST(x AS TYPE)}. */
  record Cast(Expression operand, Type type, Span span) implements Expression {}

  /** {@code QUANTILE|FREQ|CUMFREQ(value, LINEAR|REGION|MANUAL, numbers...)}. */
  record Distribution(
      DistributionFunction function,
      Expression value,
      PointsMode mode,
      List<Literal> numbers,
      Span span)
      implements Expression {
    public Distribution {
      numbers = List.copyOf(numbers);
    }
  }

  enum UnaryOp {
    NEGATE,
    NOT
  }

  enum BinaryOp {
    MULTIPLY("*"),
    DIVIDE("/"),
    MODULO("%"),
    ADD("+"),
    SUBTRACT("-"),
    LESS("<"),
    LESS_EQUAL("<="),
    GREATER(">"),
    GREATER_EQUAL(">="),
    EQUAL("="),
    NOT_EQUAL("!="),
    RLIKE("RLIKE"),
    AND("AND"),
    XOR("XOR"),
    OR("OR");

    private final String symbol;

    BinaryOp(String symbol) {
      this.symbol = symbol;
    }

    /** The canonical spelling. */
    public String symbol() {
      return symbol;
    }
  }

  enum Quantifier {
    NONE,
    ANY,
    ALL
  }

  enum DistributionFunction {
    QUANTILE,
    FREQ,
    CUMFREQ
  }

  enum PointsMode {
    LINEAR,
    REGION,
    MANUAL
  }
}
