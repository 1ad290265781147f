package io.spyglass.core.exec;

import static io.spyglass.core.exec.Kinds.truth;
import static io.spyglass.core.record.Record.BOOLEAN;
import static io.spyglass.core.record.Record.NULL;

import io.spyglass.core.record.Record;

/**
 * Three-valued logic: {@code FALSE AND NULL} is FALSE, {@code TRUE OR NULL} is TRUE, anything else
 * with a NULL is NULL. A non-boolean operand is NULL (counted).
 */
final class Logic {
  private Logic() {}

  /**
   * {@code a AND b AND ...} ({@code conjunction}) or {@code a OR b OR ...}: a chain of any length,
   * evaluated left to right until an operand decides it.
   */
  static final class Chain extends Node {
    final Eval[] operands;

    /** The truth value that decides the chain: FALSE for AND, TRUE for OR. */
    final int decisive;

    Chain(boolean conjunction, Eval[] operands, EvalStats stats) {
      super(stats);
      this.operands = operands;
      this.decisive = conjunction ? 0 : 1;
    }

    @Override
    public int eval(Record r) {
      boolean sawNull = false;
      for (Eval operand : operands) {
        int x = truth(operand, r, stats);
        if (x == decisive) {
          l = decisive;
          return BOOLEAN;
        }
        sawNull |= x < 0;
      }
      if (sawNull) {
        return NULL;
      }
      l = 1 - decisive;
      return BOOLEAN;
    }
  }

  static final class Xor extends TwoOperands {
    Xor(Eval a, Eval b, EvalStats stats) {
      super(a, b, stats);
    }

    @Override
    public int eval(Record r) {
      int x = truth(a, r, stats);
      int y = truth(b, r, stats);
      if (x < 0 || y < 0) {
        return NULL;
      }
      l = x ^ y;
      return BOOLEAN;
    }
  }

  static final class Not extends OneOperand {
    Not(Eval a, EvalStats stats) {
      super(a, stats);
    }

    @Override
    public int eval(Record r) {
      int x = truth(a, r, stats);
      if (x < 0) {
        return NULL;
      }
      l = 1 - x;
      return BOOLEAN;
    }
  }

  static final class IsNull extends Eval {
    final Eval a;
    final boolean negate;

    IsNull(Eval a, boolean negate) {
      this.a = a;
      this.negate = negate;
    }

    @Override
    public int eval(Record r) {
      l = (a.eval(r) == NULL) != negate ? 1 : 0;
      return BOOLEAN;
    }
  }

  /** {@code IF(cond, then, else)}: a NULL or non-boolean condition takes the else branch. */
  static final class If extends Eval {
    final Eval cond;
    final Eval then;
    final Eval otherwise;

    If(Eval cond, Eval then, Eval otherwise) {
      this.cond = cond;
      this.then = then;
      this.otherwise = otherwise;
    }

    @Override
    public int eval(Record r) {
      int kc = cond.eval(r);
      Eval chosen = kc == BOOLEAN && cond.l != 0 ? then : otherwise;
      int k = chosen.eval(r);
      l = chosen.l;
      d = chosen.d;
      o = chosen.o;
      return k;
    }
  }
}
