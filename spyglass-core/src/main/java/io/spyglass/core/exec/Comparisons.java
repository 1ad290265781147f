package io.spyglass.core.exec;

import static io.spyglass.core.exec.Kinds.INCOMPARABLE;
import static io.spyglass.core.exec.Kinds.UNEQUAL;
import static io.spyglass.core.exec.Kinds.compareRegisters;
import static io.spyglass.core.exec.Kinds.test;
import static io.spyglass.core.exec.Kinds.unwrap;
import static io.spyglass.core.record.Record.BOOLEAN;
import static io.spyglass.core.record.Record.DOUBLE;
import static io.spyglass.core.record.Record.FLOAT;
import static io.spyglass.core.record.Record.INTEGER;
import static io.spyglass.core.record.Record.LIST;
import static io.spyglass.core.record.Record.LONG;
import static io.spyglass.core.record.Record.NULL;
import static io.spyglass.core.record.Record.STRING;

import io.spyglass.core.plan.Call;
import io.spyglass.core.plan.Expr;
import io.spyglass.core.plan.FieldRef;
import io.spyglass.core.plan.Literal;
import io.spyglass.core.plan.Op;
import io.spyglass.core.record.Record;
import io.spyglass.core.record.Values;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Comparisons: {@code = != < <= > >=}, their {@code ANY}/{@code ALL} forms, {@code IN} and {@code
 * BETWEEN}, with specialised nodes for a field against constants.
 */
final class Comparisons {
  private Comparisons() {}

  static Eval compile(Call c, ExprCompiler compiler, EvalStats stats) {
    Op op = c.op();
    switch (op) {
      case EQ:
      case NE:
      case LT:
      case LE:
      case GT:
      case GE:
        return comparison(op, c.arg(0), c.arg(1), compiler, stats);
      case IN:
        return in(c, compiler, stats);
      case BETWEEN:
        return between(c, compiler, stats);
      default:
        boolean any = op.name().endsWith("_ANY");
        Op base = Op.valueOf(op.name().substring(0, 2));
        return new Quantified(
            base, any, compiler.compile(c.arg(0)), compiler.compile(c.arg(1)), stats);
    }
  }

  private static Eval comparison(
      Op op, Expr left, Expr right, ExprCompiler compiler, EvalStats stats) {
    String field = plainField(left);
    if (field != null && right instanceof Literal literal) {
      Object v = literal.value();
      if (v instanceof String s && (op == Op.EQ || op == Op.NE)) {
        return new FieldEqString(field, s, op == Op.NE, stats);
      }
      if (v instanceof Number n) {
        return new FieldCmpNumber(field, op, n, stats);
      }
    }
    return new Compare(op, compiler.compile(left), compiler.compile(right), stats);
  }

  private static Eval in(Call c, ExprCompiler compiler, EvalStats stats) {
    Eval value = compiler.compile(c.arg(0));
    List<?> items = Literal.listValues(c.arg(1));
    if (items != null && !items.isEmpty() && items.stream().allMatch(i -> i instanceof String)) {
      Set<String> set = new HashSet<>();
      items.forEach(i -> set.add((String) i));
      return new InStrings(value, set, stats);
    }
    Eval list = items != null ? Leaves.constant(ExprCompiler.constantList(items)) : null;
    return new Quantified(
        Op.EQ, true, value, list != null ? list : compiler.compile(c.arg(1)), stats);
  }

  private static Eval between(Call c, ExprCompiler compiler, EvalStats stats) {
    String field = plainField(c.arg(0));
    if (field != null && isNumberLiteral(c.arg(1)) && isNumberLiteral(c.arg(2))) {
      return new FieldBetweenNumbers(
          field,
          (Number) ((Literal) c.arg(1)).value(),
          (Number) ((Literal) c.arg(2)).value(),
          stats);
    }
    return new Between(
        compiler.compile(c.arg(0)), compiler.compile(c.arg(1)), compiler.compile(c.arg(2)), stats);
  }

  /** The interned name of a field without a type hint, else null. */
  private static String plainField(Expr e) {
    return e instanceof FieldRef f && !f.hinted() ? f.name().intern() : null;
  }

  private static boolean isNumberLiteral(Expr e) {
    return e instanceof Literal l && l.value() instanceof Number;
  }

  static final class Compare extends TwoOperands {
    final Op op;

    Compare(Op op, Eval a, Eval b, EvalStats stats) {
      super(a, b, stats);
      this.op = op;
    }

    @Override
    public int eval(Record r) {
      int ka = a.eval(r);
      if (ka == NULL) {
        return NULL;
      }
      int kb = b.eval(r);
      if (kb == NULL) {
        return NULL;
      }
      int cmp = compareRegisters(a, ka, b, kb);
      if (cmp == INCOMPARABLE || (cmp == UNEQUAL && op != Op.EQ && op != Op.NE)) {
        return fail();
      }
      l = test(op, cmp) ? 1 : 0;
      return BOOLEAN;
    }
  }

  /** A top-level field without a type hint, tested against constants. */
  abstract static class FieldTest extends Node {
    final String name;

    FieldTest(String name, EvalStats stats) {
      super(stats);
      this.name = name;
    }
  }

  /** {@code field = 'constant'} and {@code field != 'constant'}: the commonest filter. */
  static final class FieldEqString extends FieldTest {
    final String value;
    final boolean negate;

    FieldEqString(String name, String value, boolean negate, EvalStats stats) {
      super(name, stats);
      this.value = value;
      this.negate = negate;
    }

    @Override
    public int eval(Record r) {
      int i = r.indexOf(name);
      if (i < 0) {
        return NULL;
      }
      byte k = r.kindAt(i);
      if (k != STRING) {
        return mismatch(k);
      }
      l = value.equals(r.refAt(i)) != negate ? 1 : 0;
      return BOOLEAN;
    }
  }

  /** {@code field <op> number}, by exact value ({@link Values#compareNumbers}). */
  static final class FieldCmpNumber extends FieldTest {
    final Op op;
    final long lv;
    final double dv;
    final boolean floating;

    FieldCmpNumber(String name, Op op, Number v, EvalStats stats) {
      super(name, stats);
      this.op = op;
      this.floating = v instanceof Double || v instanceof Float;
      this.lv = v.longValue();
      this.dv = v.doubleValue();
    }

    @Override
    public int eval(Record r) {
      int i = r.indexOf(name);
      if (i < 0) {
        return NULL;
      }
      byte k = r.kindAt(i);
      int cmp;
      if (k == LONG || k == INTEGER) {
        long v = r.longAt(i);
        cmp = floating ? Values.compare(v, dv) : Long.compare(v, lv);
      } else if (k == DOUBLE || k == FLOAT) {
        double v = r.doubleAt(i);
        cmp = floating ? Values.compare(v, dv) : -Values.compare(lv, v);
      } else {
        return mismatch(k);
      }
      l = test(op, cmp) ? 1 : 0;
      return BOOLEAN;
    }
  }

  /**
   * {@code field BETWEEN (lo, hi)} with numeric constants: one lookup, two comparisons by exact
   * value.
   */
  static final class FieldBetweenNumbers extends FieldTest {
    final double lo;
    final double hi;
    final long loLong;
    final long hiLong;
    final boolean loFloating;
    final boolean hiFloating;

    FieldBetweenNumbers(String name, Number lo, Number hi, EvalStats stats) {
      super(name, stats);
      this.lo = lo.doubleValue();
      this.hi = hi.doubleValue();
      this.loLong = lo.longValue();
      this.hiLong = hi.longValue();
      this.loFloating = lo instanceof Double || lo instanceof Float;
      this.hiFloating = hi instanceof Double || hi instanceof Float;
    }

    @Override
    public int eval(Record r) {
      int i = r.indexOf(name);
      if (i < 0) {
        return NULL;
      }
      byte k = r.kindAt(i);
      if (k < INTEGER || k > DOUBLE) {
        return mismatch(k);
      }
      boolean floating = k >= FLOAT;
      long vl = floating ? 0 : r.longAt(i);
      double vd = floating ? r.doubleAt(i) : 0;
      l =
          Values.compareNumbers(floating, vl, vd, loFloating, loLong, lo) >= 0
                  && Values.compareNumbers(floating, vl, vd, hiFloating, hiLong, hi) <= 0
              ? 1
              : 0;
      return BOOLEAN;
    }
  }

  /**
   * {@code x op ANY list}, {@code x op ALL list}, and {@code x IN list} (= ANY): a NULL item, or
   * one of a kind x cannot be compared with, makes the result NULL unless another item decides it.
   */
  static final class Quantified extends TwoOperands {
    final Op op;
    final boolean any;
    final Eval element = new Leaves.Const();

    Quantified(Op op, boolean any, Eval value, Eval list, EvalStats stats) {
      super(value, list, stats);
      this.op = op;
      this.any = any;
    }

    @Override
    public int eval(Record r) {
      int kv = a.eval(r);
      if (kv == NULL) {
        return NULL;
      }
      int kl = b.eval(r);
      if (kl != LIST) {
        return mismatch(kl);
      }
      boolean sawNull = false;
      for (Object item : (List<?>) b.o) {
        int ke = element.load(unwrap(item));
        int cmp = ke == NULL ? INCOMPARABLE : compareRegisters(a, kv, element, ke);
        if (cmp == INCOMPARABLE) {
          sawNull = true;
          continue;
        }
        if (test(op, cmp) == any) {
          l = any ? 1 : 0;
          return BOOLEAN;
        }
      }
      if (sawNull) {
        return NULL;
      }
      l = any ? 0 : 1;
      return BOOLEAN;
    }
  }

  /** {@code x IN ('a', 'b')}: a hash set of the constants. A value of another type is NULL. */
  static final class InStrings extends OneOperand {
    final Set<String> set;

    InStrings(Eval value, Set<String> set, EvalStats stats) {
      super(value, stats);
      this.set = set;
    }

    @Override
    public int eval(Record r) {
      int k = a.eval(r);
      if (k == NULL) {
        return NULL;
      }
      if (k != STRING) {
        return fail();
      }
      l = set.contains((String) a.o) ? 1 : 0;
      return BOOLEAN;
    }
  }

  static final class Between extends Node {
    final Eval value;
    final Eval lo;
    final Eval hi;

    Between(Eval value, Eval lo, Eval hi, EvalStats stats) {
      super(stats);
      this.value = value;
      this.lo = lo;
      this.hi = hi;
    }

    @Override
    public int eval(Record r) {
      int kv = value.eval(r);
      int kl = lo.eval(r);
      int kh = hi.eval(r);
      if (kv == NULL || kl == NULL || kh == NULL) {
        return NULL;
      }
      int c1 = compareRegisters(value, kv, lo, kl);
      int c2 = compareRegisters(value, kv, hi, kh);
      if (c1 == INCOMPARABLE || c2 == INCOMPARABLE) {
        return fail();
      }
      l = c1 >= 0 && c2 <= 0 ? 1 : 0;
      return BOOLEAN;
    }
  }
}
