package io.spyglass.core.exec;

import static io.spyglass.core.record.Record.BOOLEAN;
import static io.spyglass.core.record.Record.DOUBLE;
import static io.spyglass.core.record.Record.FLOAT;
import static io.spyglass.core.record.Record.INTEGER;
import static io.spyglass.core.record.Record.LIST;
import static io.spyglass.core.record.Record.LONG;
import static io.spyglass.core.record.Record.MAP;
import static io.spyglass.core.record.Record.NULL;
import static io.spyglass.core.record.Record.STRING;

import io.spyglass.core.plan.Op;
import io.spyglass.core.record.Record;
import io.spyglass.core.record.Values;
import java.util.List;
import java.util.Map;

/** What evaluators share: kind tests, number conversion, comparison of registers, truth. */
final class Kinds {
  private Kinds() {}

  /** {@link #compareRegisters}: the kinds cannot be compared. */
  static final int INCOMPARABLE = Integer.MIN_VALUE;

  /** {@link #compareRegisters}: two MAPs or two LISTs that differ, which only = and != order. */
  static final int UNEQUAL = Integer.MAX_VALUE;

  static boolean isNum(int k) {
    return k >= INTEGER && k <= DOUBLE;
  }

  static boolean isFloat(int k) {
    return k == FLOAT || k == DOUBLE;
  }

  /** Converts the numeric value in {@code e}'s registers from kind {@code from} to {@code to}. */
  static int convertNumber(Eval e, int from, byte to) {
    boolean fromFloat = isFloat(from);
    switch (to) {
      case INTEGER:
        e.l = fromFloat ? (int) e.d : (int) e.l;
        return INTEGER;
      case LONG:
        e.l = fromFloat ? (long) e.d : e.l;
        return LONG;
      case FLOAT:
        e.d = (float) (fromFloat ? e.d : e.l);
        return FLOAT;
      default:
        e.d = fromFloat ? e.d : (double) e.l;
        return DOUBLE;
    }
  }

  /**
   * Compares the values in two sets of registers: &lt;0, 0, &gt;0, {@link #UNEQUAL} or {@link
   * #INCOMPARABLE}. Numbers compare by their exact values across types ({@link
   * Values#compareNumbers}).
   */
  static int compareRegisters(Eval a, int ka, Eval b, int kb) {
    if (isNum(ka) && isNum(kb)) {
      return Values.compareNumbers(isFloat(ka), a.l, a.d, isFloat(kb), b.l, b.d);
    }
    if (ka == STRING && kb == STRING) {
      return ((String) a.o).compareTo((String) b.o);
    }
    if (ka == BOOLEAN && kb == BOOLEAN) {
      return Long.compare(a.l, b.l);
    }
    if ((ka == MAP || ka == LIST) && ka == kb) {
      return a.o.equals(b.o) ? 0 : UNEQUAL;
    }
    return INCOMPARABLE;
  }

  /** Whether a comparison result satisfies a plain comparison operator. */
  static boolean test(Op op, int cmp) {
    switch (op) {
      case EQ:
        return cmp == 0;
      case NE:
        return cmp != 0;
      case LT:
        return cmp < 0;
      case LE:
        return cmp <= 0;
      case GT:
        return cmp > 0 && cmp != UNEQUAL;
      default:
        return cmp >= 0 && cmp != UNEQUAL;
    }
  }

  /** Reads a truth value: 1 true, 0 false, -1 NULL (or not a boolean, counted). */
  static int truth(Eval e, Record r, EvalStats stats) {
    int k = e.eval(r);
    if (k == BOOLEAN) {
      return (int) e.l;
    }
    if (k != NULL) {
      stats.errors++;
    }
    return -1;
  }

  /** The size of a STRING, MAP or LIST in {@code e}'s registers; -1 for other kinds. */
  static int sizeOf(Eval e, int k) {
    switch (k) {
      case STRING:
        return ((String) e.o).length();
      case MAP:
        return ((Map<?, ?>) e.o).size();
      case LIST:
        return ((List<?>) e.o).size();
      default:
        return -1;
    }
  }

  /** Stands for NULL inside constant lists built by {@code List.copyOf}, which rejects nulls. */
  enum NullValue {
    INSTANCE
  }

  static Object unwrap(Object o) {
    return o == NullValue.INSTANCE ? null : o;
  }
}
