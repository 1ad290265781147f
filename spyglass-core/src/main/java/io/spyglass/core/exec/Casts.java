package io.spyglass.core.exec;

import static io.spyglass.core.exec.Kinds.convertNumber;
import static io.spyglass.core.exec.Kinds.isNum;
import static io.spyglass.core.record.Record.BOOLEAN;
import static io.spyglass.core.record.Record.DOUBLE;
import static io.spyglass.core.record.Record.INTEGER;
import static io.spyglass.core.record.Record.LIST;
import static io.spyglass.core.record.Record.LONG;
import static io.spyglass.core.record.Record.MAP;
import static io.spyglass.core.record.Record.NULL;
import static io.spyglass.core.record.Record.STRING;

import io.spyglass.core.record.Record;
import io.spyglass.core.record.Type;
import io.spyglass.core.record.Values;

/** Conversions: {@code CAST}, and the typed read of a hinted subfield. */
final class Casts {
  private Casts() {}

  static final class Cast extends OneOperand {
    final Type.Kind target;

    Cast(Eval a, Type.Kind target, EvalStats stats) {
      super(a, stats);
      this.target = target;
    }

    @Override
    public int eval(Record r) {
      int k = a.eval(r);
      if (k == NULL) {
        return NULL;
      }
      switch (target) {
        case STRING:
          o = k == STRING ? a.o : String.valueOf(a.boxed(k));
          return STRING;
        case BOOLEAN:
          if (k == BOOLEAN) {
            l = a.l;
          } else if (isNum(k)) {
            l = a.asDouble(k) != 0 ? 1 : 0;
          } else if (k == STRING && isBooleanText((String) a.o)) {
            l = Boolean.parseBoolean(((String) a.o).trim()) ? 1 : 0;
          } else {
            return fail();
          }
          return BOOLEAN;
        case INTEGER:
        case LONG:
        case FLOAT:
        case DOUBLE:
          return castNumber(k, (byte) target.ordinal());
        case MAP:
          return k == MAP ? copy(a, k) : fail();
        case LIST:
          return k == LIST ? copy(a, k) : fail();
        default:
          return fail();
      }
    }

    private static boolean isBooleanText(String s) {
      String t = s.trim();
      return t.equalsIgnoreCase("true") || t.equalsIgnoreCase("false");
    }

    private int castNumber(int k, byte to) {
      if (k == BOOLEAN) {
        l = a.l;
        return convertNumber(this, LONG, to);
      }
      if (isNum(k)) {
        return convertNumber(this, copy(a, k), to);
      }
      if (k != STRING) {
        return fail();
      }
      String s = ((String) a.o).trim();
      try {
        if (to == INTEGER || to == LONG) {
          try {
            l = Long.parseLong(s);
            return convertNumber(this, LONG, to);
          } catch (NumberFormatException e) {
            // not an integer: read it as a decimal and truncate
          }
        }
        d = Double.parseDouble(s);
        return convertNumber(this, DOUBLE, to);
      } catch (NumberFormatException e) {
        return fail();
      }
    }
  }

  /**
   * A value read from a map or list with a known type (a type hint, or the element type of a hinted
   * container): values of another kind read as NULL, numbers convert.
   */
  static final class Typed extends Eval {
    final Eval a;
    final byte kind;

    Typed(Eval a, Type type) {
      this.a = a;
      this.kind = (byte) type.kind().ordinal();
    }

    @Override
    public int eval(Record r) {
      int k = a.eval(r);
      if (k == kind) {
        l = a.l;
        d = a.d;
        o = a.o;
        return k;
      }
      if (isNum(k) && Values.isNumeric(kind)) {
        l = a.l;
        d = a.d;
        return convertNumber(this, k, kind);
      }
      return NULL;
    }
  }
}
