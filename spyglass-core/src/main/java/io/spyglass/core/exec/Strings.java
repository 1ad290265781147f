package io.spyglass.core.exec;

import static io.spyglass.core.exec.Kinds.isNum;
import static io.spyglass.core.exec.Kinds.unwrap;
import static io.spyglass.core.record.Record.BOOLEAN;
import static io.spyglass.core.record.Record.LIST;
import static io.spyglass.core.record.Record.LONG;
import static io.spyglass.core.record.Record.NULL;
import static io.spyglass.core.record.Record.STRING;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import io.spyglass.core.plan.Call;
import io.spyglass.core.plan.Literal;
import io.spyglass.core.plan.Op;
import io.spyglass.core.plan.Regexes;
import io.spyglass.core.record.Record;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * String functions and regular expressions: TRIM, LOWER, UPPER, SUBSTRING, RLIKE. Regular
 * expressions run on RE2/J, in time linear in the input whatever the pattern, so that no pattern
 * can stall the thread that evaluates it.
 */
final class Strings {
  private Strings() {}

  /** {@code RLIKE} and {@code RLIKE ANY}: constant patterns are compiled once. */
  static Eval rlike(Call c, ExprCompiler compiler, EvalStats stats) {
    Eval value = compiler.compile(c.arg(0));
    if (c.arg(1) instanceof Literal literal) {
      Object p = literal.value();
      List<Object> patterns = new ArrayList<>();
      for (Object each : p instanceof List<?> list ? list : Collections.singletonList(p)) {
        Object regex = unwrap(each);
        patterns.add(regex == null ? null : precompiled(String.valueOf(regex)));
      }
      return new Rlike(value, null, patterns, stats);
    }
    return new Rlike(value, compiler.compile(c.arg(1)), null, stats);
  }

  /** The compiled pattern, or the text itself when it does not compile (NULL for each record). */
  private static Object precompiled(String regex) {
    try {
      return Regexes.compile(regex);
    } catch (PatternSyntaxException | Regexes.TooLarge e) {
      return regex;
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
        return fail();
      }
      String s = (String) a.o;
      o = op == Op.TRIM ? s.trim() : op == Op.LOWER ? s.toLowerCase() : s.toUpperCase();
      return STRING;
    }
  }

  static final class Substring extends Node {
    final Eval s;
    final Eval start;
    final Eval length;

    Substring(Eval s, Eval start, Eval length, EvalStats stats) {
      super(stats);
      this.s = s;
      this.start = start;
      this.length = length;
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
        return fail();
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

  /**
   * {@code s RLIKE p} and {@code s RLIKE ANY [p, ...]}: TRUE when a pattern matches the whole
   * string; else NULL when a pattern is NULL or invalid, else FALSE.
   */
  static final class Rlike extends OneOperand {
    /** The patterns when not constant. */
    final Eval pattern;

    /** How many patterns read from records stay compiled. */
    static final int CACHED = 64;

    /** Constant patterns: a {@link Pattern}, the text of an invalid one, or null for NULL. */
    final List<Object> constant;

    /** Patterns read from records, compiled: the most recently used, at most {@link #CACHED}. */
    private final Map<String, Pattern> cache = new LinkedHashMap<>(16, 0.75f, true);

    Rlike(Eval value, Eval pattern, List<Object> constant, EvalStats stats) {
      super(value, stats);
      this.pattern = pattern;
      this.constant = constant;
    }

    @Override
    public int eval(Record r) {
      int k = a.eval(r);
      List<?> patterns = constant;
      if (pattern != null) {
        int kp = pattern.eval(r);
        if (kp == NULL) {
          return NULL;
        }
        patterns = kp == LIST ? (List<?>) pattern.o : List.of(pattern.boxed(kp));
      }
      if (k == NULL) {
        return NULL;
      }
      if (k != STRING) {
        return fail();
      }
      String s = (String) a.o;
      boolean sawNull = false;
      for (Object each : patterns) {
        Object regex = unwrap(each);
        if (regex == null) {
          sawNull = true;
          continue;
        }
        Pattern p = regex instanceof Pattern compiled ? compiled : compiled(String.valueOf(regex));
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

    /** A pattern read from a record, compiled; null (counted) when it does not compile. */
    private Pattern compiled(String regex) {
      Pattern p = cache.get(regex);
      if (p == null) {
        try {
          p = Regexes.compile(regex);
        } catch (PatternSyntaxException | Regexes.TooLarge e) {
          stats.errors++;
          return null;
        }
        if (cache.size() >= CACHED) {
          Iterator<String> eldest = cache.keySet().iterator();
          eldest.next();
          eldest.remove();
        }
        cache.put(regex, p);
      }
      return p;
    }
  }
}
