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

import io.spyglass.core.plan.Call;
import io.spyglass.core.plan.Expr;
import io.spyglass.core.plan.FieldRef;
import io.spyglass.core.plan.Literal;
import io.spyglass.core.plan.Op;
import io.spyglass.core.record.Record;
import io.spyglass.core.record.Type;
import io.spyglass.core.record.Values;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;
import java.time.temporal.TemporalAccessor;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Compiles plan expressions into {@link Eval} trees specialised by the operator and, where the plan
 * knows them, by the operand types: a field compared with a constant, a constant set for {@code
 * IN}, a precompiled regex for {@code RLIKE}.
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
    if (e instanceof Literal) {
      return constant(((Literal) e).value());
    } else if (e instanceof FieldRef) {
      FieldRef f = (FieldRef) e;
      return f.hinted()
          ? new HintedField(f.name().intern(), f.type())
          : new Field(f.name().intern());
    }
    return compileCall((Call) e);
  }

  private static Eval constant(Object value) {
    Const c = new Const();
    // interned: map keys read from JSON are interned too, so a lookup such as m['k'] finds its
    // key by identity without comparing characters
    c.kind = c.load(value instanceof String ? ((String) value).intern() : value);
    return c;
  }

  private Eval compileCall(Call c) {
    Op op = c.op();
    switch (op) {
      case ADD:
      case SUB:
      case MUL:
      case DIV:
      case MOD:
        return new Arith(op, compile(c.arg(0)), compile(c.arg(1)), stats);
      case NEG:
        return new Neg(compile(c.arg(0)), stats);
      case EQ:
      case NE:
      case LT:
      case LE:
      case GT:
      case GE:
        return comparison(op, c.arg(0), c.arg(1));
      case EQ_ANY:
      case NE_ANY:
      case LT_ANY:
      case LE_ANY:
      case GT_ANY:
      case GE_ANY:
        return new Quantified(baseOf(op), true, compile(c.arg(0)), compile(c.arg(1)), stats);
      case EQ_ALL:
      case NE_ALL:
      case LT_ALL:
      case LE_ALL:
      case GT_ALL:
      case GE_ALL:
        return new Quantified(baseOf(op), false, compile(c.arg(0)), compile(c.arg(1)), stats);
      case RLIKE:
        return rlike(c, false);
      case RLIKE_ANY:
        return rlike(c, true);
      case IN:
        return in(c);
      case BETWEEN:
        if (c.arg(0) instanceof FieldRef
            && !((FieldRef) c.arg(0)).hinted()
            && isNumberLiteral(c.arg(1))
            && isNumberLiteral(c.arg(2))) {
          return new FieldBetweenNumbers(
              ((FieldRef) c.arg(0)).name().intern(),
              (Number) ((Literal) c.arg(1)).value(),
              (Number) ((Literal) c.arg(2)).value(),
              stats);
        }
        return new Between(compile(c.arg(0)), compile(c.arg(1)), compile(c.arg(2)), stats);
      case AND:
        return new And(compile(c.arg(0)), compile(c.arg(1)), stats);
      case OR:
        return new Or(compile(c.arg(0)), compile(c.arg(1)), stats);
      case XOR:
        return new Xor(compile(c.arg(0)), compile(c.arg(1)), stats);
      case NOT:
        return new Not(compile(c.arg(0)), stats);
      case IS_NULL:
        return new IsNull(compile(c.arg(0)), false);
      case IS_NOT_NULL:
        return new IsNull(compile(c.arg(0)), true);
      case SIZEOF:
        return new SizeOf(compile(c.arg(0)), stats);
      case SIZEIS:
        return new SizeIs(compile(c.arg(0)), compile(c.arg(1)), stats);
      case CONTAINSKEY:
        return new ContainsKey(compile(c.arg(0)), compile(c.arg(1)), stats);
      case CONTAINSVALUE:
        return new ContainsValue(compile(c.arg(0)), compile(c.arg(1)), stats);
      case FILTER:
        return new Filter(compile(c.arg(0)), compile(c.arg(1)), stats);
      case INDEX:
        Eval index = new Index(compile(c.arg(0)), compile(c.arg(1)), stats);
        return c.type().isUnknown() ? index : new Typed(index, c.type());
      case LIST:
        return list(c);
      case TRIM:
      case LOWER:
      case UPPER:
        return new StringFn(op, compile(c.arg(0)), stats);
      case ABS:
        return new Abs(compile(c.arg(0)), stats);
      case SUBSTRING:
        return new Substring(
            compile(c.arg(0)),
            compile(c.arg(1)),
            c.args().size() > 2 ? compile(c.arg(2)) : null,
            stats);
      case HASH:
        return new Hash(compile(c.arg(0)));
      case IF:
        return new If(compile(c.arg(0)), compile(c.arg(1)), compile(c.arg(2)));
      case UNIXTIMESTAMP:
        return unixTimestamp(c);
      case NOW:
        return new Now(clock);
      case CAST:
        return new Cast(compile(c.arg(0)), c.type().kind(), stats);
      default:
        throw new IllegalArgumentException("Cannot compile " + op);
    }
  }

  private static boolean isNumberLiteral(Expr e) {
    return e instanceof Literal && ((Literal) e).value() instanceof Number;
  }

  private static Op baseOf(Op quantified) {
    switch (quantified) {
      case EQ_ANY:
      case EQ_ALL:
        return Op.EQ;
      case NE_ANY:
      case NE_ALL:
        return Op.NE;
      case LT_ANY:
      case LT_ALL:
        return Op.LT;
      case LE_ANY:
      case LE_ALL:
        return Op.LE;
      case GT_ANY:
      case GT_ALL:
        return Op.GT;
      default:
        return Op.GE;
    }
  }

  private Eval comparison(Op op, Expr left, Expr right) {
    if (left instanceof FieldRef && !((FieldRef) left).hinted() && right instanceof Literal) {
      Object v = ((Literal) right).value();
      String name = ((FieldRef) left).name().intern();
      if (v instanceof String && (op == Op.EQ || op == Op.NE)) {
        return new FieldEqString(name, (String) v, op == Op.NE, stats);
      }
      if (v instanceof Number) {
        return new FieldCmpNumber(name, op, (Number) v, stats);
      }
    }
    return new Compare(op, compile(left), compile(right), stats);
  }

  private Eval rlike(Call c, boolean any) {
    Eval value = compile(c.arg(0));
    Expr pattern = c.arg(1);
    if (pattern instanceof Literal) {
      Object p = ((Literal) pattern).value();
      try {
        List<Pattern> patterns = new ArrayList<>();
        boolean nullPattern = p == null;
        if (p instanceof List) {
          for (Object each : (List<?>) p) {
            if (unwrap(each) == null) {
              nullPattern = true;
            } else {
              patterns.add(Pattern.compile(String.valueOf(each)));
            }
          }
        } else if (p != null) {
          patterns.add(Pattern.compile(String.valueOf(p)));
        }
        return new RlikeConst(value, patterns.toArray(new Pattern[0]), nullPattern, stats);
      } catch (PatternSyntaxException e) {
        // the binder validates literal patterns; a bad one here evaluates to NULL per record
      }
    }
    return new RlikeDynamic(value, compile(pattern), stats);
  }

  private Eval in(Call c) {
    Eval value = compile(c.arg(0));
    Expr list = c.arg(1);
    List<?> items = Literal.listValues(list);
    if (items != null) {
      boolean allStrings = !items.isEmpty();
      for (Object each : items) {
        allStrings &= each instanceof String;
      }
      if (allStrings) {
        return new InStrings(value, new HashSet<>(castStrings(items)), stats);
      }
      return new InValues(value, items, stats);
    }
    return new Quantified(Op.EQ, true, value, compile(list), stats);
  }

  @SuppressWarnings("unchecked")
  private static List<String> castStrings(List<?> items) {
    return (List<String>) items;
  }

  private Eval list(Call c) {
    List<?> constant = Literal.listValues(c);
    if (constant != null) {
      return constant(List.copyOf(nullSafe(constant)));
    }
    Eval[] items = new Eval[c.args().size()];
    for (int i = 0; i < items.length; i++) {
      items[i] = compile(c.arg(i));
    }
    return new ListOf(items);
  }

  private static List<Object> nullSafe(List<?> in) {
    List<Object> out = new ArrayList<>(in.size());
    for (Object o : in) {
      out.add(o == null ? NullValue.INSTANCE : o);
    }
    return out;
  }

  private Eval unixTimestamp(Call c) {
    if (c.args().isEmpty()) {
      return new UnixNow(clock);
    }
    Eval value = compile(c.arg(0));
    DateTimeFormatter formatter = null;
    if (c.args().size() > 1 && c.arg(1) instanceof Literal) {
      formatter = DateTimeFormatter.ofPattern(String.valueOf(((Literal) c.arg(1)).value()));
    }
    return new UnixTimestamp(value, formatter, stats);
  }

  /** Stands for NULL inside constant lists built by {@code List.copyOf}, which rejects nulls. */
  enum NullValue {
    INSTANCE
  }

  static Object unwrap(Object o) {
    return o == NullValue.INSTANCE ? null : o;
  }

  // ---------------------------------------------------------------- nodes

  /** A node of one operand; {@code stats} counts the values it could not evaluate. */
  abstract static class OneOperand extends Eval {
    final Eval a;
    final EvalStats stats;

    OneOperand(Eval a, EvalStats stats) {
      this.a = a;
      this.stats = stats;
    }
  }

  /** A node of two operands; {@code stats} counts the values it could not evaluate. */
  abstract static class TwoOperands extends Eval {
    final Eval a;
    final Eval b;
    final EvalStats stats;

    TwoOperands(Eval a, Eval b, EvalStats stats) {
      this.a = a;
      this.b = b;
      this.stats = stats;
    }
  }

  static final class Const extends Eval {
    int kind;

    @Override
    public int eval(Record r) {
      return kind;
    }
  }

  static final class Field extends Eval {
    final String name;

    Field(String name) {
      this.name = name;
    }

    @Override
    public int eval(Record r) {
      int i = r.indexOf(name);
      return i < 0 ? NULL : load(r, i);
    }
  }

  /** A field with a type hint: values of another kind read as NULL. */
  static final class HintedField extends Eval {
    final String name;
    final byte kind;

    HintedField(String name, Type type) {
      this.name = name;
      this.kind = (byte) type.kind().ordinal();
    }

    @Override
    public int eval(Record r) {
      int i = r.indexOf(name);
      if (i < 0) {
        return NULL;
      }
      byte k = r.kindAt(i);
      if (k == kind) {
        return load(r, i);
      }
      if (Values.isNumeric(k) && Values.isNumeric(kind)) {
        return convertNumber(this, load(r, i), kind);
      }
      return NULL;
    }
  }

  /** Converts the numeric value in {@code e}'s registers from kind {@code from} to {@code to}. */
  static int convertNumber(Eval e, int from, byte to) {
    boolean fromFloat = from == FLOAT || from == DOUBLE;
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

  static boolean isNum(int k) {
    return k >= INTEGER && k <= DOUBLE;
  }

  static boolean isFloat(int k) {
    return k == FLOAT || k == DOUBLE;
  }

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
        stats.errors++;
        return NULL;
      }
      if (!isFloat(ka) && !isFloat(kb)) {
        long x = a.l;
        long y = b.l;
        switch (op) {
          case ADD:
            l = x + y;
            break;
          case SUB:
            l = x - y;
            break;
          case MUL:
            l = x * y;
            break;
          case DIV:
            if (y == 0) {
              stats.errors++;
              return NULL;
            }
            l = x / y;
            break;
          default:
            if (y == 0) {
              stats.errors++;
              return NULL;
            }
            l = x % y;
        }
        return ka == LONG || kb == LONG ? LONG : INTEGER;
      }
      double x = a.asDouble(ka);
      double y = b.asDouble(kb);
      switch (op) {
        case ADD:
          d = x + y;
          break;
        case SUB:
          d = x - y;
          break;
        case MUL:
          d = x * y;
          break;
        case DIV:
          d = x / y;
          break;
        default:
          d = x % y;
      }
      return ka == DOUBLE || kb == DOUBLE ? DOUBLE : FLOAT;
    }
  }

  static final class Neg extends OneOperand {
    Neg(Eval a, EvalStats stats) {
      super(a, stats);
    }

    @Override
    public int eval(Record r) {
      int k = a.eval(r);
      if (k == NULL) {
        return NULL;
      }
      if (!isNum(k)) {
        stats.errors++;
        return NULL;
      }
      l = -a.l;
      d = -a.d;
      return k;
    }
  }

  /**
   * Compares the values in two registers sets; returns <0, 0, >0, or {@link Integer#MIN_VALUE} when
   * the kinds are incomparable.
   */
  static int compareRegisters(Eval a, int ka, Eval b, int kb) {
    if (isNum(ka) && isNum(kb)) {
      if (!isFloat(ka) && !isFloat(kb)) {
        return Long.compare(a.l, b.l);
      }
      return Double.compare(a.asDouble(ka), b.asDouble(kb));
    }
    if (ka == STRING && kb == STRING) {
      return ((String) a.o).compareTo((String) b.o);
    }
    if (ka == BOOLEAN && kb == BOOLEAN) {
      return Long.compare(a.l, b.l);
    }
    if ((ka == MAP || ka == LIST) && ka == kb) {
      return a.o.equals(b.o) ? 0 : Integer.MAX_VALUE;
    }
    return Integer.MIN_VALUE;
  }

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
        return cmp > 0 && cmp != Integer.MAX_VALUE;
      default:
        return cmp >= 0 && cmp != Integer.MAX_VALUE;
    }
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
      if (cmp == Integer.MIN_VALUE) {
        stats.errors++;
        return NULL;
      }
      if (cmp == Integer.MAX_VALUE && op != Op.EQ && op != Op.NE) {
        stats.errors++;
        return NULL;
      }
      l = test(op, cmp) ? 1 : 0;
      return BOOLEAN;
    }
  }

  /** {@code field = 'constant'} and {@code field != 'constant'}: the commonest filter. */
  static final class FieldEqString extends Eval {
    final String name;
    final String value;
    final boolean negate;
    final EvalStats stats;

    FieldEqString(String name, String value, boolean negate, EvalStats stats) {
      this.name = name;
      this.value = value;
      this.negate = negate;
      this.stats = stats;
    }

    @Override
    public int eval(Record r) {
      int i = r.indexOf(name);
      if (i < 0) {
        return NULL;
      }
      byte k = r.kindAt(i);
      if (k != STRING) {
        if (k != NULL) {
          stats.errors++;
        }
        return NULL;
      }
      l = value.equals(r.refAt(i)) != negate ? 1 : 0;
      return BOOLEAN;
    }
  }

  /** {@code field <op> number}. */
  static final class FieldCmpNumber extends Eval {
    final String name;
    final Op op;
    final long lv;
    final double dv;
    final boolean floating;
    final EvalStats stats;

    FieldCmpNumber(String name, Op op, Number v, EvalStats stats) {
      this.name = name;
      this.op = op;
      this.floating = v instanceof Double || v instanceof Float;
      this.lv = v.longValue();
      this.dv = v.doubleValue();
      this.stats = stats;
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
        cmp = floating ? Double.compare(r.longAt(i), dv) : Long.compare(r.longAt(i), lv);
      } else if (k == DOUBLE || k == FLOAT) {
        cmp = Double.compare(r.doubleAt(i), dv);
      } else {
        if (k != NULL) {
          stats.errors++;
        }
        return NULL;
      }
      l = test(op, cmp) ? 1 : 0;
      return BOOLEAN;
    }
  }

  /** {@code x op ANY list} / {@code x op ALL list}. */
  static final class Quantified extends Eval {
    final Op op;
    final boolean any;
    final Eval value;
    final Eval list;
    final EvalStats stats;
    final Const element = new Const();

    Quantified(Op op, boolean any, Eval value, Eval list, EvalStats stats) {
      this.op = op;
      this.any = any;
      this.value = value;
      this.list = list;
      this.stats = stats;
    }

    @Override
    public int eval(Record r) {
      int kv = value.eval(r);
      if (kv == NULL) {
        return NULL;
      }
      int kl = list.eval(r);
      if (kl != LIST) {
        if (kl != NULL) {
          stats.errors++;
        }
        return NULL;
      }
      boolean sawNull = false;
      for (Object item : (List<?>) list.o) {
        int ke = element.load(unwrap(item));
        if (ke == NULL) {
          sawNull = true;
          continue;
        }
        int cmp = compareRegisters(value, kv, element, ke);
        if (cmp == Integer.MIN_VALUE) {
          sawNull = true;
          continue;
        }
        boolean t = test(op, cmp);
        if (any && t) {
          l = 1;
          return BOOLEAN;
        }
        if (!any && !t) {
          l = 0;
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
  static final class InStrings extends Eval {
    final Eval value;
    final Set<String> set;
    final EvalStats stats;

    InStrings(Eval value, Set<String> set, EvalStats stats) {
      this.value = value;
      this.set = set;
      this.stats = stats;
    }

    @Override
    public int eval(Record r) {
      int k = value.eval(r);
      if (k == NULL) {
        return NULL;
      }
      if (k != STRING) {
        stats.errors++;
        return NULL;
      }
      l = set.contains((String) value.o) ? 1 : 0;
      return BOOLEAN;
    }
  }

  /**
   * {@code x IN (constants)}: TRUE when an item equals x; otherwise NULL when an item is NULL or of
   * a type x cannot be compared with (as {@code =} would be), else FALSE.
   */
  static final class InValues extends Eval {
    final Eval value;
    final Object[] items;
    final EvalStats stats;
    final Const element = new Const();

    InValues(Eval value, List<?> items, EvalStats stats) {
      this.value = value;
      this.items = items.toArray();
      this.stats = stats;
    }

    @Override
    public int eval(Record r) {
      int k = value.eval(r);
      if (k == NULL) {
        return NULL;
      }
      boolean unknown = false;
      for (Object item : items) {
        int ke = element.load(item);
        int cmp = ke == NULL ? Integer.MIN_VALUE : compareRegisters(value, k, element, ke);
        if (cmp == 0) {
          l = 1;
          return BOOLEAN;
        }
        unknown |= cmp == Integer.MIN_VALUE;
      }
      if (unknown) {
        return NULL;
      }
      l = 0;
      return BOOLEAN;
    }
  }

  static final class RlikeConst extends Eval {
    final Eval value;
    final Pattern[] patterns;

    /** A NULL among the patterns: no match is then NULL, not FALSE. */
    final boolean nullPattern;

    final EvalStats stats;

    RlikeConst(Eval value, Pattern[] patterns, boolean nullPattern, EvalStats stats) {
      this.value = value;
      this.patterns = patterns;
      this.nullPattern = nullPattern;
      this.stats = stats;
    }

    @Override
    public int eval(Record r) {
      int k = value.eval(r);
      if (k == NULL) {
        return NULL;
      }
      if (k != STRING) {
        stats.errors++;
        return NULL;
      }
      String s = (String) value.o;
      for (Pattern p : patterns) {
        if (p.matcher(s).matches()) {
          l = 1;
          return BOOLEAN;
        }
      }
      if (nullPattern) {
        return NULL;
      }
      l = 0;
      return BOOLEAN;
    }
  }

  static final class RlikeDynamic extends Eval {
    final Eval value;
    final Eval pattern;
    final EvalStats stats;
    private String lastRegex;
    private Pattern last;

    RlikeDynamic(Eval value, Eval pattern, EvalStats stats) {
      this.value = value;
      this.pattern = pattern;
      this.stats = stats;
    }

    @Override
    public int eval(Record r) {
      int k = value.eval(r);
      int kp = pattern.eval(r);
      if (k == NULL || kp == NULL) {
        return NULL;
      }
      if (k != STRING) {
        stats.errors++;
        return NULL;
      }
      String s = (String) value.o;
      List<?> regexes = kp == LIST ? (List<?>) pattern.o : List.of(pattern.boxed(kp));
      boolean sawNull = false;
      for (Object regex : regexes) {
        if (unwrap(regex) == null) {
          sawNull = true;
          continue;
        }
        Pattern p = compiled(String.valueOf(regex));
        if (p == null) {
          return NULL;
        }
        if (p.matcher(s).matches()) {
          l = 1;
          return BOOLEAN;
        }
      }
      if (sawNull) {
        return NULL;
      }
      l = 0;
      return BOOLEAN;
    }

    private Pattern compiled(String regex) {
      if (!regex.equals(lastRegex)) {
        try {
          last = Pattern.compile(regex);
          lastRegex = regex;
        } catch (PatternSyntaxException e) {
          stats.errors++;
          return null;
        }
      }
      return last;
    }
  }

  static final class Between extends Eval {
    final Eval value;
    final Eval lo;
    final Eval hi;
    final EvalStats stats;

    Between(Eval value, Eval lo, Eval hi, EvalStats stats) {
      this.value = value;
      this.lo = lo;
      this.hi = hi;
      this.stats = stats;
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
      if (c1 == Integer.MIN_VALUE || c2 == Integer.MIN_VALUE) {
        stats.errors++;
        return NULL;
      }
      l = c1 >= 0 && c2 <= 0 ? 1 : 0;
      return BOOLEAN;
    }
  }

  /** {@code field BETWEEN (lo, hi)} with numeric constants: one lookup, two comparisons. */
  static final class FieldBetweenNumbers extends Eval {
    final String name;
    final double lo;
    final double hi;
    final long loLong;
    final long hiLong;
    final boolean integralBounds;
    final EvalStats stats;

    FieldBetweenNumbers(String name, Number lo, Number hi, EvalStats stats) {
      this.name = name;
      this.lo = lo.doubleValue();
      this.hi = hi.doubleValue();
      this.loLong = lo.longValue();
      this.hiLong = hi.longValue();
      this.integralBounds =
          (lo instanceof Long || lo instanceof Integer)
              && (hi instanceof Long || hi instanceof Integer);
      this.stats = stats;
    }

    @Override
    public int eval(Record r) {
      int i = r.indexOf(name);
      if (i < 0) {
        return NULL;
      }
      byte k = r.kindAt(i);
      if (k < INTEGER || k > DOUBLE) {
        if (k != NULL) {
          stats.errors++;
        }
        return NULL;
      }
      if (integralBounds && k <= LONG) {
        long v = r.longAt(i);
        l = v >= loLong && v <= hiLong ? 1 : 0;
      } else {
        double v = r.doubleAt(i);
        l = v >= lo && v <= hi ? 1 : 0;
      }
      return BOOLEAN;
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

  static final class And extends TwoOperands {
    And(Eval a, Eval b, EvalStats stats) {
      super(a, b, stats);
    }

    @Override
    public int eval(Record r) {
      int x = truth(a, r, stats);
      if (x == 0) {
        l = 0;
        return BOOLEAN;
      }
      int y = truth(b, r, stats);
      if (y == 0) {
        l = 0;
        return BOOLEAN;
      }
      if (x < 0 || y < 0) {
        return NULL;
      }
      l = 1;
      return BOOLEAN;
    }
  }

  static final class Or extends TwoOperands {
    Or(Eval a, Eval b, EvalStats stats) {
      super(a, b, stats);
    }

    @Override
    public int eval(Record r) {
      int x = truth(a, r, stats);
      if (x == 1) {
        l = 1;
        return BOOLEAN;
      }
      int y = truth(b, r, stats);
      if (y == 1) {
        l = 1;
        return BOOLEAN;
      }
      if (x < 0 || y < 0) {
        return NULL;
      }
      l = 0;
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
        stats.errors++;
        return NULL;
      }
      l = size;
      return INTEGER;
    }
  }

  static final class SizeIs extends Eval {
    final Eval a;
    final Eval n;
    final EvalStats stats;

    SizeIs(Eval a, Eval n, EvalStats stats) {
      this.a = a;
      this.n = n;
      this.stats = stats;
    }

    @Override
    public int eval(Record r) {
      int k = a.eval(r);
      int kn = n.eval(r);
      if (k == NULL || kn == NULL) {
        return NULL;
      }
      int size = sizeOf(a, k);
      if (size < 0 || !isNum(kn)) {
        stats.errors++;
        return NULL;
      }
      l = size == (isFloat(kn) ? n.d : n.l) ? 1 : 0;
      return BOOLEAN;
    }
  }

  static final class ContainsKey extends Eval {
    final Eval a;
    final Eval key;
    final EvalStats stats;

    ContainsKey(Eval a, Eval key, EvalStats stats) {
      this.a = a;
      this.key = key;
      this.stats = stats;
    }

    @Override
    public int eval(Record r) {
      int k = a.eval(r);
      int kk = key.eval(r);
      if (k == NULL || kk == NULL) {
        return NULL;
      }
      if (kk != STRING) {
        stats.errors++;
        return NULL;
      }
      if (k == MAP) {
        l = containsKey((Map<?, ?>) a.o, key.o) ? 1 : 0;
        return BOOLEAN;
      }
      if (k == LIST) {
        boolean found = false;
        for (Object item : (List<?>) a.o) {
          if (item instanceof Map && containsKey((Map<?, ?>) item, key.o)) {
            found = true;
            break;
          }
        }
        l = found ? 1 : 0;
        return BOOLEAN;
      }
      stats.errors++;
      return NULL;
    }

    /** Searches the map and, as Bullet does, the maps nested in it. */
    private static boolean containsKey(Map<?, ?> m, Object key) {
      if (m.containsKey(key)) {
        return true;
      }
      for (Object v : m.values()) {
        if (v instanceof Map && ((Map<?, ?>) v).containsKey(key)) {
          return true;
        }
      }
      return false;
    }
  }

  static final class ContainsValue extends Eval {
    final Eval a;
    final Eval value;
    final EvalStats stats;

    ContainsValue(Eval a, Eval value, EvalStats stats) {
      this.a = a;
      this.value = value;
      this.stats = stats;
    }

    @Override
    public int eval(Record r) {
      int k = a.eval(r);
      int kv = value.eval(r);
      if (k == NULL || kv == NULL) {
        return NULL;
      }
      Object v = value.boxed(kv);
      java.util.Collection<?> items;
      if (k == MAP) {
        items = ((Map<?, ?>) a.o).values();
      } else if (k == LIST) {
        items = (List<?>) a.o;
      } else {
        stats.errors++;
        return NULL;
      }
      boolean found = false;
      for (Object item : items) {
        if (Values.equal(item, v)
            || (item instanceof Map && containsValue(((Map<?, ?>) item).values(), v))) {
          found = true;
          break;
        }
      }
      l = found ? 1 : 0;
      return BOOLEAN;
    }

    private static boolean containsValue(java.util.Collection<?> items, Object v) {
      for (Object item : items) {
        if (Values.equal(item, v)) {
          return true;
        }
      }
      return false;
    }
  }

  static final class Filter extends Eval {
    final Eval list;
    final Eval mask;
    final EvalStats stats;

    Filter(Eval list, Eval mask, EvalStats stats) {
      this.list = list;
      this.mask = mask;
      this.stats = stats;
    }

    @Override
    public int eval(Record r) {
      int kl = list.eval(r);
      int km = mask.eval(r);
      if (kl == NULL || km == NULL) {
        return NULL;
      }
      if (kl != LIST || km != LIST) {
        stats.errors++;
        return NULL;
      }
      List<?> items = (List<?>) list.o;
      List<?> flags = (List<?>) mask.o;
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

  static final class Index extends Eval {
    final Eval base;
    final Eval key;
    final EvalStats stats;

    Index(Eval base, Eval key, EvalStats stats) {
      this.base = base;
      this.key = key;
      this.stats = stats;
    }

    @Override
    public int eval(Record r) {
      int kb = base.eval(r);
      if (kb == NULL) {
        return NULL;
      }
      int kk = key.eval(r);
      if (kk == NULL) {
        return NULL;
      }
      if (kb == MAP) {
        if (kk != STRING) {
          stats.errors++;
          return NULL;
        }
        return load(((Map<?, ?>) base.o).get(key.o));
      }
      if (kb == LIST && (kk == INTEGER || kk == LONG)) {
        List<?> list = (List<?>) base.o;
        long i = key.l;
        return i >= 0 && i < list.size() ? load(list.get((int) i)) : NULL;
      }
      stats.errors++;
      return NULL;
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

  static final class StringFn extends OneOperand {
    final Op op;

    StringFn(Op op, Eval a, EvalStats stats) {
      super(a, stats);
      this.op = op;
    }

    @Override
    public int eval(Record r) {
      int k = a.eval(r);
      if (k == NULL) {
        return NULL;
      }
      if (k != STRING) {
        stats.errors++;
        return NULL;
      }
      String s = (String) a.o;
      o = op == Op.TRIM ? s.trim() : op == Op.LOWER ? s.toLowerCase() : s.toUpperCase();
      return STRING;
    }
  }

  static final class Abs extends OneOperand {
    Abs(Eval a, EvalStats stats) {
      super(a, stats);
    }

    @Override
    public int eval(Record r) {
      int k = a.eval(r);
      if (k == NULL) {
        return NULL;
      }
      if (!isNum(k)) {
        stats.errors++;
        return NULL;
      }
      l = Math.abs(a.l);
      d = Math.abs(a.d);
      return k;
    }
  }

  static final class Substring extends Eval {
    final Eval s;
    final Eval start;
    final Eval length;
    final EvalStats stats;

    Substring(Eval s, Eval start, Eval length, EvalStats stats) {
      this.s = s;
      this.start = start;
      this.length = length;
      this.stats = stats;
    }

    @Override
    public int eval(Record r) {
      int ks = s.eval(r);
      int kf = start.eval(r);
      int kl = length == null ? LONG : length.eval(r);
      if (ks == NULL || kf == NULL || kl == NULL) {
        return NULL;
      }
      if (ks != STRING || !isNum(kf) || !isNum(kl)) {
        stats.errors++;
        return NULL;
      }
      // As Bullet: 1-based, a negative start counts from the end; a start of 0 or beyond the
      // string, or a length below 1, gives "".
      String str = (String) s.o;
      long from = (long) start.asDouble(kf);
      long len = length == null ? str.length() : (long) length.asDouble(kl);
      if (from == 0 || Math.abs(from) > str.length() || len <= 0) {
        o = "";
        return STRING;
      }
      int begin = (int) (from > 0 ? from - 1 : from + str.length());
      int end = (int) Math.min(str.length(), begin + len);
      o = str.substring(begin, end);
      return STRING;
    }
  }

  static final class Hash extends Eval {
    final Eval a;

    Hash(Eval a) {
      this.a = a;
    }

    @Override
    public int eval(Record r) {
      int k = a.eval(r);
      if (k == NULL) {
        return NULL;
      }
      long h = a.hash(k);
      l = (int) (h ^ (h >>> 32));
      return INTEGER;
    }
  }

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

  static final class Now extends Eval {
    final LongSupplier clock;

    Now(LongSupplier clock) {
      this.clock = clock;
    }

    @Override
    public int eval(Record r) {
      l = clock.getAsLong();
      return LONG;
    }
  }

  /** {@code UNIXTIMESTAMP()}: the clock in epoch seconds, as in Bullet. */
  static final class UnixNow extends Eval {
    final LongSupplier clock;

    UnixNow(LongSupplier clock) {
      this.clock = clock;
    }

    @Override
    public int eval(Record r) {
      l = Math.floorDiv(clock.getAsLong(), 1000L);
      return LONG;
    }
  }

  /**
   * {@code UNIXTIMESTAMP(time[, pattern])} in epoch seconds (UTC), as in Bullet: without a pattern
   * the text is {@code yyyy-MM-dd HH:mm:ss[.f...]}; with one, a number is read as its digits.
   */
  static final class UnixTimestamp extends Eval {
    /** The text of a timestamp without pattern, as Bullet reads it with {@code Timestamp}. */
    static final DateTimeFormatter TIMESTAMP =
        new DateTimeFormatterBuilder()
            .appendPattern("yyyy-MM-dd HH:mm:ss")
            .optionalStart()
            .appendFraction(ChronoField.NANO_OF_SECOND, 0, 9, true)
            .optionalEnd()
            .toFormatter();

    final Eval value;
    final DateTimeFormatter formatter;
    final EvalStats stats;

    UnixTimestamp(Eval value, DateTimeFormatter formatter, EvalStats stats) {
      this.value = value;
      this.formatter = formatter;
      this.stats = stats;
    }

    @Override
    public int eval(Record r) {
      int k = value.eval(r);
      if (k == NULL) {
        return NULL;
      }
      String s;
      if (isNum(k) && formatter != null) {
        s = Long.toString((long) value.asDouble(k));
      } else if (k == STRING) {
        s = (String) value.o;
      } else {
        stats.errors++;
        return NULL;
      }
      try {
        if (formatter == null) {
          l = LocalDateTime.parse(s, TIMESTAMP).toEpochSecond(ZoneOffset.UTC);
        } else {
          TemporalAccessor t = formatter.parse(s);
          l = LocalDateTime.from(t).toEpochSecond(ZoneOffset.UTC);
        }
        return LONG;
      } catch (RuntimeException e) {
        stats.errors++;
        return NULL;
      }
    }
  }

  static final class Cast extends Eval {
    final Eval a;
    final Type.Kind target;
    final EvalStats stats;

    Cast(Eval a, Type.Kind target, EvalStats stats) {
      this.a = a;
      this.target = target;
      this.stats = stats;
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
          return k == MAP ? keep(k) : fail();
        case LIST:
          return k == LIST ? keep(k) : fail();
        default:
          return fail();
      }
    }

    private static boolean isBooleanText(String s) {
      String t = s.trim();
      return t.equalsIgnoreCase("true") || t.equalsIgnoreCase("false");
    }

    private int keep(int k) {
      o = a.o;
      return k;
    }

    private int fail() {
      stats.errors++;
      return NULL;
    }

    private int castNumber(int k, byte to) {
      if (k == BOOLEAN) {
        l = a.l;
        d = a.l;
        return convert(LONG, to);
      }
      if (isNum(k)) {
        l = a.l;
        d = a.d;
        return convert(k, to);
      }
      if (k == STRING) {
        String s = ((String) a.o).trim();
        try {
          if (to == INTEGER || to == LONG) {
            try {
              l = Long.parseLong(s);
              return convert(LONG, to);
            } catch (NumberFormatException e) {
              d = Double.parseDouble(s);
              return convert(DOUBLE, to);
            }
          }
          d = Double.parseDouble(s);
          return convert(DOUBLE, to);
        } catch (NumberFormatException e) {
          return fail();
        }
      }
      return fail();
    }

    private int convert(int from, byte to) {
      return convertNumber(this, from, to);
    }
  }
}
