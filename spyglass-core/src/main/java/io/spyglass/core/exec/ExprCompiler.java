package io.spyglass.core.exec;

import io.spyglass.core.plan.Call;
import io.spyglass.core.plan.Expr;
import io.spyglass.core.plan.FieldRef;
import io.spyglass.core.plan.Literal;
import io.spyglass.core.plan.Op;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Compiles plan expressions into {@link Eval} trees specialised by the operator and, where the plan
 * knows them, by the operand types: a field compared with a constant, a constant set for {@code
 * IN}, a precompiled regex for {@code RLIKE}. The nodes live by family: {@link Arithmetic}, {@link
 * Comparisons}, {@link Logic}, {@link Strings}, {@link Containers}, {@link Functions}, {@link
 * Casts}.
 *
 * <p>Semantics: three-valued logic (NULL propagates; {@code FALSE AND NULL} is FALSE, {@code TRUE
 * OR NULL} is TRUE); numbers compare by value across numeric types; values of incomparable types
 * compare as NULL and are counted in {@link EvalStats}; a missing field is NULL.
 */
public final class ExprCompiler {
  private final LongSupplier clock;
  private final EvalStats stats;

  /**
   * @param clock the engine's clock in epoch milliseconds, read by {@code NOW()}
   * @param stats where evaluation errors are counted
   */
  public ExprCompiler(LongSupplier clock, EvalStats stats) {
    this.clock = clock;
    this.stats = stats;
  }

  public Eval compile(Expr e) {
    if (e instanceof Literal literal) {
      return Leaves.constant(literal.value());
    } else if (e instanceof FieldRef f) {
      return f.hinted()
          ? new Leaves.HintedField(f.name().intern(), f.type())
          : new Leaves.Field(f.name().intern());
    }
    return compileCall((Call) e);
  }

  private Eval compileCall(Call c) {
    Op op = c.op();
    if (op.isComparison() || op == Op.IN || op == Op.BETWEEN) {
      return Comparisons.compile(c, this, stats);
    }
    switch (op) {
      case ADD:
      case SUB:
      case MUL:
      case DIV:
      case MOD:
        return new Arithmetic.Arith(op, arg(c, 0), arg(c, 1), stats);
      case NEG:
      case ABS:
        return new Arithmetic.Unary(op, arg(c, 0), stats);
      case RLIKE:
      case RLIKE_ANY:
        return Strings.rlike(c, this, stats);
      case AND:
      case OR:
        return chain(c);
      case XOR:
        return new Logic.Xor(arg(c, 0), arg(c, 1), stats);
      case NOT:
        return new Logic.Not(arg(c, 0), stats);
      case IS_NULL:
      case IS_NOT_NULL:
        return new Logic.IsNull(arg(c, 0), op == Op.IS_NOT_NULL);
      case IF:
        return new Logic.If(arg(c, 0), arg(c, 1), arg(c, 2));
      case SIZEOF:
        return new Containers.SizeOf(arg(c, 0), stats);
      case SIZEIS:
        return new Containers.SizeIs(arg(c, 0), arg(c, 1), stats);
      case CONTAINSKEY:
        return new Containers.ContainsKey(arg(c, 0), arg(c, 1), stats);
      case CONTAINSVALUE:
        return new Containers.ContainsValue(arg(c, 0), arg(c, 1), stats);
      case FILTER:
        return new Containers.Filter(arg(c, 0), arg(c, 1), stats);
      case INDEX:
        Eval index = new Containers.Index(arg(c, 0), arg(c, 1), stats);
        return c.type().isUnknown() ? index : new Casts.Typed(index, c.type());
      case LIST:
        return list(c);
      case TRIM:
      case LOWER:
      case UPPER:
        return new Strings.StringFn(op, arg(c, 0), stats);
      case SUBSTRING:
        return new Strings.Substring(
            arg(c, 0), arg(c, 1), c.args().size() > 2 ? arg(c, 2) : null, stats);
      case HASH:
        return new Functions.Hash(arg(c, 0));
      case UNIXTIMESTAMP:
        return unixTimestamp(c);
      case NOW:
        return new Functions.Clock(clock, 1L);
      case CAST:
        return new Casts.Cast(arg(c, 0), c.type().kind(), stats);
      default:
        throw new IllegalArgumentException("Cannot compile " + op);
    }
  }

  private Eval arg(Call c, int i) {
    return compile(c.arg(i));
  }

  /** An AND or OR chain, flattened: {@code (a AND b) AND c} is one node of three operands. */
  private Eval chain(Call c) {
    List<Eval> operands = new ArrayList<>();
    flatten(c, c.op(), operands);
    return new Logic.Chain(c.op() == Op.AND, operands.toArray(new Eval[0]), stats);
  }

  private void flatten(Expr e, Op op, List<Eval> out) {
    if (e instanceof Call call && call.op() == op) {
      for (Expr arg : call.args()) {
        flatten(arg, op, out);
      }
    } else {
      out.add(compile(e));
    }
  }

  private Eval list(Call c) {
    List<?> constant = Literal.listValues(c);
    if (constant != null) {
      return Leaves.constant(constantList(constant));
    }
    Eval[] items = new Eval[c.args().size()];
    for (int i = 0; i < items.length; i++) {
      items[i] = arg(c, i);
    }
    return new Containers.ListOf(items);
  }

  /** An immutable copy of constant items, NULLs held as {@link Kinds.NullValue}. */
  static List<Object> constantList(List<?> in) {
    List<Object> out = new ArrayList<>(in.size());
    for (Object o : in) {
      out.add(o == null ? Kinds.NullValue.INSTANCE : o);
    }
    return List.copyOf(out);
  }

  private Eval unixTimestamp(Call c) {
    if (c.args().isEmpty()) {
      return new Functions.Clock(clock, 1000L);
    }
    DateTimeFormatter formatter = null;
    if (c.args().size() > 1 && c.arg(1) instanceof Literal pattern) {
      formatter = DateTimeFormatter.ofPattern(String.valueOf(pattern.value()));
    }
    return new Functions.UnixTimestamp(arg(c, 0), formatter, stats);
  }
}
