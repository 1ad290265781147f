package io.spyglass.core.exec;

import io.spyglass.core.record.Record;
import io.spyglass.core.record.Values;
import java.util.List;
import java.util.Map;

/**
 * A compiled expression. {@link #eval} returns the kind of the result as a {@link Record} kind code
 * and leaves the value in this node's own registers: {@link #l} for BOOLEAN (0 or 1), INTEGER and
 * LONG; {@link #d} for FLOAT and DOUBLE; {@link #o} for STRING, MAP and LIST. Nothing is boxed on
 * this path unless the value comes boxed out of a nested map or list.
 *
 * <p>A node and its registers belong to one thread; compile once per thread that evaluates.
 */
public abstract class Eval {
  public long l;
  public double d;
  public Object o;

  /** Evaluates on {@code record} and returns the result's kind; {@link Record#NULL} for NULL. */
  public abstract int eval(Record record);

  /** The value of the last evaluation, boxed, given the kind it returned. */
  public final Object boxed(int kind) {
    switch (kind) {
      case Record.NULL:
        return null;
      case Record.BOOLEAN:
        return l != 0;
      case Record.INTEGER:
        return (int) l;
      case Record.LONG:
        return l;
      case Record.FLOAT:
        return (float) d;
      case Record.DOUBLE:
        return d;
      default:
        return o;
    }
  }

  /** The last numeric result as a double, given its numeric kind. */
  public final double asDouble(int kind) {
    return kind >= Record.FLOAT ? d : (double) l;
  }

  /** A 64-bit hash of the last result, consistent with {@link Values#equal}. */
  public final long hash(int kind) {
    switch (kind) {
      case Record.NULL:
        return Values.NULL_HASH;
      case Record.BOOLEAN:
        return Values.hash(l != 0);
      case Record.INTEGER:
      case Record.LONG:
        return Values.hash(l);
      case Record.FLOAT:
      case Record.DOUBLE:
        return Values.hash(d);
      case Record.STRING:
        return Values.hash((String) o);
      default:
        return Values.hash(o);
    }
  }

  /** Loads a boxed value into the registers and returns its kind. */
  protected final int load(Object v) {
    if (v == null) {
      return Record.NULL;
    } else if (v instanceof String) {
      o = v;
      return Record.STRING;
    } else if (v instanceof Long) {
      l = (Long) v;
      return Record.LONG;
    } else if (v instanceof Double) {
      d = (Double) v;
      return Record.DOUBLE;
    } else if (v instanceof Boolean) {
      l = ((Boolean) v) ? 1 : 0;
      return Record.BOOLEAN;
    } else if (v instanceof Integer) {
      l = (Integer) v;
      return Record.INTEGER;
    } else if (v instanceof Float) {
      d = (Float) v;
      return Record.FLOAT;
    } else if (v instanceof Map) {
      o = v;
      return Record.MAP;
    } else if (v instanceof List) {
      o = v;
      return Record.LIST;
    }
    return Record.NULL;
  }

  /** Loads field {@code i} of {@code r} into the registers and returns its kind. */
  protected final int load(Record r, int i) {
    byte k = r.kindAt(i);
    switch (k) {
      case Record.BOOLEAN:
      case Record.INTEGER:
      case Record.LONG:
        l = r.longAt(i);
        break;
      case Record.FLOAT:
      case Record.DOUBLE:
        d = r.doubleAt(i);
        break;
      case Record.NULL:
        break;
      default:
        o = r.refAt(i);
    }
    return k;
  }
}
