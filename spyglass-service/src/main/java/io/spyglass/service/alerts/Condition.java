package io.spyglass.service.alerts;

import io.spyglass.core.exec.Eval;
import io.spyglass.core.exec.EvalStats;
import io.spyglass.core.exec.ExprCompiler;
import io.spyglass.core.plan.Bql;
import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.record.Record;
import io.spyglass.core.syntax.BqlError;
import io.spyglass.core.syntax.BqlException;
import io.spyglass.core.syntax.Expression;
import io.spyglass.core.syntax.QueryParser;
import io.spyglass.core.syntax.Select;
import io.spyglass.core.syntax.Span;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An alert's condition on a row of a final window: a BQL boolean expression over the window's
 * columns, as a HAVING clause is written ({@code n > 100 AND org != 'test'}), or a threshold on one
 * column ({@code {"column": "n", "op": ">", "value": 100}}, which is the expression {@code "n" >
 * 100}). A row meets it when the expression is TRUE (not NULL, not FALSE).
 *
 * <p>Parsed by the BQL parser and bound by its binder (as the filter of a query over the rows);
 * every column it names must be one of the window's. Not thread-safe: its compiled form keeps the
 * last value; one evaluating thread.
 */
final class Condition {
  /** What the expression is bound within: it is the filter of a query over the window's rows. */
  private static final String PREFIX = "SELECT * FROM STREAM(30s, TIME) WHERE ";

  /** A clause of a query after WHERE. */
  private static final Pattern CLAUSE =
      Pattern.compile("(?i)\\b(GROUP|HAVING|ORDER|WINDOWING|LIMIT)\\b");

  /** The operators of a threshold. */
  static final List<String> OPS = List.of(">", ">=", "<", "<=", "=", "!=");

  /** The expression as BQL. */
  final String text;

  private final Eval eval;

  private Condition(String text, Eval eval) {
    this.text = text;
    this.eval = eval;
  }

  /**
   * A condition that cannot be used: what is wrong with it, where, and what to do.
   *
   * @param field the field of the request's body it is in ({@code condition.having})
   * @param errors the BQL errors, their spans in the field's text; empty when none applies
   */
  static final class Invalid extends Exception {
    private static final long serialVersionUID = 1L;
    final String field;
    final String resolution;
    final transient List<BqlError> errors;

    Invalid(String field, String message, String resolution, List<BqlError> errors) {
      super(message);
      this.field = field;
      this.resolution = resolution;
      this.errors = List.copyOf(errors);
    }
  }

  /**
   * Parses and binds a HAVING-like expression over {@code shape}'s columns.
   *
   * @throws Invalid with the position of what is wrong in {@code text}
   */
  static Condition having(String text, Shape shape, QueryLimits limits, LongSupplier clock)
      throws Invalid {
    return compile(text, shape, limits, clock, "condition.having");
  }

  /**
   * A threshold: {@code column op value}, value a number (or, for = and !=, a string or boolean).
   *
   * @throws Invalid naming the field that is wrong
   */
  static Condition threshold(
      String column, String op, Object value, Shape shape, QueryLimits limits, LongSupplier clock)
      throws Invalid {
    if (!shape.columns().contains(column)) {
      throw new Invalid(
          "condition.column",
          "The standing query's windows have no column \"" + column + "\"",
          "Name one of " + shape.columns(),
          List.of());
    }
    if (!OPS.contains(op)) {
      throw new Invalid(
          "condition.op",
          "\"op\" is \"" + op + "\": a threshold's operator is one of " + OPS,
          "Write e.g. {\"column\": \"" + column + "\", \"op\": \">\", \"value\": 100}",
          List.of());
    }
    String literal;
    if (value instanceof Number n) {
      literal = n.toString();
    } else if ((value instanceof String || value instanceof Boolean)
        && (op.equals("=") || op.equals("!="))) {
      literal =
          value instanceof String s
              ? "'" + s.replace("'", "''") + "'"
              : value.toString().toUpperCase(Locale.ROOT);
    } else {
      throw new Invalid(
          "condition.value",
          "A threshold's \"value\" is a number (or, with = and !=, a string or a boolean)",
          "Write e.g. {\"column\": \"" + column + "\", \"op\": \">\", \"value\": 100}",
          List.of());
    }
    String text = quote(column) + " " + op + " " + literal;
    return compile(text, shape, limits, clock, "condition");
  }

  /** A column's name as a BQL identifier: in double quotes, quotes doubled. */
  static String quote(String column) {
    return "\"" + column.replace("\"", "\"\"") + "\"";
  }

  private static Condition compile(
      String text, Shape shape, QueryLimits limits, LongSupplier clock, String field)
      throws Invalid {
    if (text.isBlank()) {
      throw new Invalid(
          field,
          "The condition is empty",
          "Write e.g. n > 100, over the window's columns",
          List.of());
    }
    String full = PREFIX + text;
    Select select;
    try {
      select = QueryParser.parse(full, limits.maxQueryLength());
    } catch (BqlException e) {
      throw invalid(field, text, e.errors());
    }
    Expression where = select.where().orElseThrow(); // text not blank: the parser wants one
    if (select.groupBy().isPresent()
        || select.having().isPresent()
        || !select.orderBy().isEmpty()
        || select.window().isPresent()
        || select.limit().isPresent()) {
      // more than one expression: e.g. "n > 1 GROUP BY org"
      Matcher m = CLAUSE.matcher(full);
      int at = m.find(where.span().end()) ? m.start() : where.span().end();
      throw new Invalid(
          field,
          "The condition is one boolean expression over the window's columns",
          "Write e.g. n > 100 AND org != 'test', with no clause after it",
          List.of(
              new BqlError(
                  shift(spanAt(full, at)),
                  "Only an expression is taken here",
                  "Remove what follows")));
    }
    List<BqlError> unknown = new ArrayList<>();
    columns(where, shape.columns(), unknown);
    if (!unknown.isEmpty()) {
      throw new Invalid(
          field,
          unknown.get(0).message(),
          "Name the window's columns: " + shape.columns(),
          unknown);
    }
    try {
      var plan = Bql.compile(full, limits);
      Eval eval = new ExprCompiler(clock, new EvalStats()).compile(plan.where().orElseThrow());
      return new Condition(text, eval);
    } catch (BqlException e) {
      throw invalid(field, text, e.errors());
    }
  }

  /** The span of the first character at or after {@code from} that is not blank. */
  private static Span spanAt(String text, int from) {
    int at = from;
    while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
      at++;
    }
    int line = 1;
    int lineStart = 0;
    for (int i = 0; i < at && i < text.length(); i++) {
      if (text.charAt(i) == '\n') {
        line++;
        lineStart = i + 1;
      }
    }
    return new Span(line, at - lineStart + 1, at, Math.min(text.length(), at + 1));
  }

  private static Invalid invalid(String field, String text, List<BqlError> errors) {
    List<BqlError> shifted = new ArrayList<>();
    for (BqlError e : errors) {
      String message = e.message();
      String resolution = e.resolution();
      if (message.startsWith("An aggregate is not allowed")) {
        message = "The condition reads the window's columns: an aggregate is not computed here";
        resolution =
            "Name the aggregate in the standing query (COUNT(*) AS n) and write the condition on"
                + " its column (n > 100)";
      }
      shifted.add(new BqlError(shift(e.span()), message, resolution));
    }
    BqlError first = shifted.get(0);
    return new Invalid(
        field,
        "The condition is not valid: "
            + first.message()
            + " (line "
            + first.span().line()
            + ", column "
            + first.span().column()
            + ")",
        first.resolution(),
        shifted);
  }

  /** A span of the full text as a span of the condition's text. */
  private static Span shift(Span s) {
    int p = PREFIX.length();
    int start = Math.max(0, s.start() - p);
    int end = Math.max(start, s.end() - p);
    int column = s.line() == 1 ? Math.max(1, s.column() - p) : s.column();
    return new Span(s.line(), column, start, end);
  }

  /** Adds an error for each field {@code e} reads that is not one of {@code columns}. */
  private static void columns(Expression e, List<String> columns, List<BqlError> out) {
    if (e instanceof Expression.Field f) {
      if (!columns.contains(f.name())) {
        out.add(
            new BqlError(
                shift(f.span()),
                "The standing query's windows have no column \"" + f.name() + "\"",
                "Name one of " + columns));
      }
      return;
    }
    for (Expression child : children(e)) {
      columns(child, columns, out);
    }
  }

  private static List<Expression> children(Expression e) {
    if (e instanceof Expression.Access a) {
      return a.dot() ? List.of(a.base()) : List.of(a.base(), a.key());
    } else if (e instanceof Expression.Hint h) {
      return List.of(h.expression());
    } else if (e instanceof Expression.ListOf l) {
      return l.items();
    } else if (e instanceof Expression.Unary u) {
      return List.of(u.operand());
    } else if (e instanceof Expression.Binary b) {
      return List.of(b.left(), b.right());
    } else if (e instanceof Expression.Chain c) {
      return c.operands();
    } else if (e instanceof Expression.IsNull n) {
      return List.of(n.operand());
    } else if (e instanceof Expression.In in) {
      return List.of(in.value(), in.list());
    } else if (e instanceof Expression.Between b) {
      return List.of(b.value(), b.lower(), b.upper());
    } else if (e instanceof Expression.Call c) {
      return c.args();
    } else if (e instanceof Expression.Cast c) {
      return List.of(c.operand());
    } else if (e instanceof Expression.Distribution d) {
      return List.of(d.value());
    }
    return List.of();
  }

  /** Whether {@code row} meets the condition: the expression is TRUE on it. */
  boolean test(Map<String, Object> row) {
    Record r = Record.fromMap(row);
    int kind = eval.eval(r);
    return kind == Record.BOOLEAN && eval.l != 0;
  }
}
