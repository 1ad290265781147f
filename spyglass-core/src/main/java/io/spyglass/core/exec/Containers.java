package io.spyglass.core.exec;

import static io.spyglass.core.exec.Kinds.isFloat;
import static io.spyglass.core.exec.Kinds.isNum;
import static io.spyglass.core.exec.Kinds.sizeOf;
import static io.spyglass.core.record.Record.BOOLEAN;
import static io.spyglass.core.record.Record.INTEGER;
import static io.spyglass.core.record.Record.LIST;
import static io.spyglass.core.record.Record.LONG;
import static io.spyglass.core.record.Record.MAP;
import static io.spyglass.core.record.Record.NULL;
import static io.spyglass.core.record.Record.STRING;

import io.spyglass.core.record.Record;
import io.spyglass.core.record.Values;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * MAPs and LISTs: subfields, list expressions, SIZEOF, SIZEIS, CONTAINSKEY, CONTAINSVALUE, FILTER.
 */
final class Containers {
  private Containers() {}

  static final class SizeOf extends OneOperand {
    SizeOf(Eval a, EvalStats stats) {
      super(a, stats);
    }

    @Override
    public int eval(Record r) {
      int k = a.eval(r);
      if (k == NULL) {
        return NULL;
      }
      int size = sizeOf(a, k);
      if (size < 0) {
        return fail();
      }
      l = size;
      return INTEGER;
    }
  }

  static final class SizeIs extends TwoOperands {
    SizeIs(Eval a, Eval n, EvalStats stats) {
      super(a, n, stats);
    }

    @Override
    public int eval(Record r) {
      int k = a.eval(r);
      int kn = b.eval(r);
      if (k == NULL || kn == NULL) {
        return NULL;
      }
      int size = sizeOf(a, k);
      if (size < 0 || !isNum(kn)) {
        return fail();
      }
      l = size == (isFloat(kn) ? b.d : b.l) ? 1 : 0;
      return BOOLEAN;
    }
  }

  /**
   * {@code CONTAINSKEY(m, k)}: the map, or a map nested one level in it, has the key; for a list,
   * one of its maps has it (as Bullet).
   */
  static final class ContainsKey extends TwoOperands {
    ContainsKey(Eval a, Eval key, EvalStats stats) {
      super(a, key, stats);
    }

    @Override
    public int eval(Record r) {
      int k = a.eval(r);
      int kk = b.eval(r);
      if (k == NULL || kk == NULL) {
        return NULL;
      }
      if (kk != STRING || (k != MAP && k != LIST)) {
        return fail();
      }
      boolean found = false;
      if (k == MAP) {
        found = containsKey((Map<?, ?>) a.o, b.o);
      } else {
        for (Object item : (List<?>) a.o) {
          if (item instanceof Map<?, ?> m && containsKey(m, b.o)) {
            found = true;
            break;
          }
        }
      }
      l = found ? 1 : 0;
      return BOOLEAN;
    }

    private static boolean containsKey(Map<?, ?> m, Object key) {
      if (m.containsKey(key)) {
        return true;
      }
      for (Object v : m.values()) {
        if (v instanceof Map<?, ?> nested && nested.containsKey(key)) {
          return true;
        }
      }
      return false;
    }
  }

  /**
   * {@code CONTAINSVALUE(c, v)}: the map's values or the list's items, or the values of a map
   * nested one level in them, hold v (as Bullet).
   */
  static final class ContainsValue extends TwoOperands {
    ContainsValue(Eval a, Eval value, EvalStats stats) {
      super(a, value, stats);
    }

    @Override
    public int eval(Record r) {
      int k = a.eval(r);
      int kv = b.eval(r);
      if (k == NULL || kv == NULL) {
        return NULL;
      }
      Object v = b.boxed(kv);
      Collection<?> items;
      if (k == MAP) {
        items = ((Map<?, ?>) a.o).values();
      } else if (k == LIST) {
        items = (List<?>) a.o;
      } else {
        return fail();
      }
      boolean found = false;
      for (Object item : items) {
        if (Values.equal(item, v) || (item instanceof Map<?, ?> m && contains(m.values(), v))) {
          found = true;
          break;
        }
      }
      l = found ? 1 : 0;
      return BOOLEAN;
    }

    private static boolean contains(Collection<?> items, Object v) {
      for (Object item : items) {
        if (Values.equal(item, v)) {
          return true;
        }
      }
      return false;
    }
  }

  static final class Filter extends TwoOperands {
    Filter(Eval list, Eval mask, EvalStats stats) {
      super(list, mask, stats);
    }

    @Override
    public int eval(Record r) {
      int kl = a.eval(r);
      int km = b.eval(r);
      if (kl == NULL || km == NULL) {
        return NULL;
      }
      if (kl != LIST || km != LIST) {
        return fail();
      }
      List<?> items = (List<?>) a.o;
      List<?> flags = (List<?>) b.o;
      List<Object> out = new ArrayList<>();
      for (int i = 0; i < items.size() && i < flags.size(); i++) {
        if (Boolean.TRUE.equals(flags.get(i))) {
          out.add(items.get(i));
        }
      }
      o = out;
      return LIST;
    }
  }

  /** {@code m[k]}, {@code m.k}, {@code l[i]}. */
  static final class Index extends TwoOperands {
    Index(Eval base, Eval key, EvalStats stats) {
      super(base, key, stats);
    }

    @Override
    public int eval(Record r) {
      int kb = a.eval(r);
      if (kb == NULL) {
        return NULL;
      }
      int kk = b.eval(r);
      if (kk == NULL) {
        return NULL;
      }
      if (kb == MAP && kk == STRING) {
        return load(((Map<?, ?>) a.o).get(b.o));
      }
      if (kb == LIST && (kk == INTEGER || kk == LONG)) {
        List<?> list = (List<?>) a.o;
        long i = b.l;
        return i >= 0 && i < list.size() ? load(list.get((int) i)) : NULL;
      }
      return fail();
    }
  }

  /** A list of expressions that are not all constants. */
  static final class ListOf extends Eval {
    final Eval[] items;

    ListOf(Eval[] items) {
      this.items = items;
    }

    @Override
    public int eval(Record r) {
      List<Object> out = new ArrayList<>(items.length);
      for (Eval e : items) {
        out.add(e.boxed(e.eval(r)));
      }
      o = out;
      return LIST;
    }
  }
}
