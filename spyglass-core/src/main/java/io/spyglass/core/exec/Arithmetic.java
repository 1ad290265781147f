package io.spyglass.core.exec;

import static io.spyglass.core.exec.Kinds.isFloat;
import static io.spyglass.core.exec.Kinds.isNum;
import static io.spyglass.core.record.Record.DOUBLE;
import static io.spyglass.core.record.Record.FLOAT;
import static io.spyglass.core.record.Record.INTEGER;
import static io.spyglass.core.record.Record.LONG;
import static io.spyglass.core.record.Record.NULL;
import static io.spyglass.core.record.Record.STRING;

import io.spyglass.core.plan.Op;
import io.spyglass.core.record.Record;

/** {@code + - * / %} (and STRING + STRING), unary minus and ABS. */
final class Arithmetic {
  private Arithmetic() {}

  static final class Arith extends TwoOperands {
    final Op op;

    Arith(Op op, Eval a, Eval b, EvalStats stats) {
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
      if (!isNum(ka) || !isNum(kb)) {
        if (op == Op.ADD && ka == STRING && kb == STRING) {
          o = (String) a.o + b.o;
          return STRING;
        }
        return fail();
      }
      if (!isFloat(ka) && !isFloat(kb)) {
        long x = a.l;
        long y = b.l;
        if ((op == Op.DIV || op == Op.MOD) && y == 0) {
          return fail();
        }
        l =
            switch (op) {
              case ADD -> x + y;
              case SUB -> x - y;
              case MUL -> x * y;
              case DIV -> x / y;
              default -> x % y;
            };
        return ka == LONG || kb == LONG ? LONG : INTEGER;
      }
      double x = a.asDouble(ka);
      double y = b.asDouble(kb);
      d =
          switch (op) {
            case ADD -> x + y;
            case SUB -> x - y;
            case MUL -> x * y;
            case DIV -> x / y;
            default -> x % y;
          };
      return ka == DOUBLE || kb == DOUBLE ? DOUBLE : FLOAT;
    }
  }

  /** {@code -x} ({@link Op#NEG}) and {@code ABS(x)}: the operand's kind is kept. */
  static final class Unary extends OneOperand {
    final boolean abs;

    Unary(Op op, Eval a, EvalStats stats) {
      super(a, stats);
      this.abs = op == Op.ABS;
    }

    @Override
    public int eval(Record r) {
      int k = a.eval(r);
      if (k == NULL) {
        return NULL;
      }
      if (!isNum(k)) {
        return fail();
      }
      l = abs ? Math.abs(a.l) : -a.l;
      d = abs ? Math.abs(a.d) : -a.d;
      return k;
    }
  }
}
