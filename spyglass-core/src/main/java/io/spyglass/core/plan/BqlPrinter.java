package io.spyglass.core.plan;

import io.spyglass.core.plan.Aggregation.Metric;
import io.spyglass.core.plan.Aggregation.Points;
import io.spyglass.core.plan.PostAggregation.SortKey;
import io.spyglass.core.plan.QueryPlan.LateralView;
import io.spyglass.core.record.Type;
import io.spyglass.core.record.Type.Kind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Prints plans as canonical BQL: keywords upper case, every column named with {@code AS}, durations
 * in milliseconds, operands parenthesised. Compiling the text gives back an equal plan. Also names
 * unaliased columns, in a mode that leaves out hints and quotes.
 */
final class BqlPrinter {
  private static final Pattern PLAIN = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  /** Every keyword of the grammar, reserved or not: such names are always quoted. */
  private static final Set<String> KEYWORDS =
      Set.of(
          "ALL",
          "AND",
          "ANY",
          "AS",
          "ASC",
          "BETWEEN",
          "BY",
          "CAST",
          "CUMFREQ",
          "DESC",
          "DISTINCT",
          "EVENT_TIME",
          "EVERY",
          "EXPLODE",
          "FALSE",
          "FIRST",
          "FOREVER",
          "FREQ",
          "FROM",
          "GROUP",
          "HAVING",
          "IN",
          "IS",
          "LATENESS",
          "LATERAL",
          "LIMIT",
          "LINEAR",
          "MANUAL",
          "MAX",
          "NOT",
          "NULL",
          "OR",
          "ORDER",
          "OUTER",
          "QUANTILE",
          "RECORD",
          "REGION",
          "RLIKE",
          "SELECT",
          "SIZEOF",
          "STREAM",
          "TIME",
          "TRUE",
          "TUMBLING",
          "VIEW",
          "WHERE",
          "WINDOWING",
          "XOR",
          "INTEGER",
          "LONG",
          "FLOAT",
          "DOUBLE",
          "BOOLEAN",
          "STRING",
          "LIST",
          "MAP",
          "NOW");

  /** Prints expressions over record fields, where no name stands for an aggregated column. */
  private static final BqlPrinter RECORD = new BqlPrinter(false, Map.of(), Style.CANONICAL);

  /** The printer of expressions over record fields. */
  static final BqlPrinter RECORD_PRINTER = RECORD;

  /**
   * How a query is written: canonical (every column named, durations in milliseconds, LIMIT written
   * out), or tidy for people (a column's name only when it is not its default, durations with a
   * unit, LIMIT only when {@code TIDY_WITH_LIMIT}).
   */
  enum Style {
    CANONICAL,
    TIDY,
    TIDY_WITH_LIMIT
  }

  private final boolean naming;

  /** Text that stands for a result column in post-aggregation expressions (its aggregate call). */
  private final Map<String, String> columns;

  private final Style style;

  private BqlPrinter(boolean naming, Map<String, String> columns, Style style) {
    this.naming = naming;
    this.columns = columns;
    this.style = style;
  }

  /** The default name of an unaliased column: its expression, without hints or quotes. */
  static String name(Expr e, Map<String, String> columns) {
    return new BqlPrinter(true, columns, Style.CANONICAL).expr(e);
  }

  static String aggregateName(Aggregation.MetricKind kind, List<Expr> args) {
    return new BqlPrinter(true, Map.of(), Style.CANONICAL).metric(kind, args);
  }

  static String countDistinctName(List<Expr> fields) {
    return aggregateName(Aggregation.MetricKind.COUNT_DISTINCT, fields);
  }

  static String print(QueryPlan plan) {
    return print(plan, Style.CANONICAL);
  }

  static String print(QueryPlan plan, Style style) {
    StringBuilder out = new StringBuilder();
    if (plan.outer().isPresent()) {
      QueryPlan outer = plan.outer().get();
      new BqlPrinter(false, columns(outer), style)
          .query(outer, "(" + inner(plan, style) + ")", out);
      return out.toString();
    }
    return inner(plan, style);
  }

  private static String inner(QueryPlan plan, Style style) {
    StringBuilder out = new StringBuilder();
    BqlPrinter printer = new BqlPrinter(false, columns(plan), style);
    String source =
        plan.runsForever()
            ? "STREAM(FOREVER)"
            : plan.durationMs() == QueryPlan.UNBOUNDED
                ? "STREAM(MAX, TIME)"
                : "STREAM(" + printer.duration(plan.durationMs()) + ", TIME)";
    printer.query(plan, source, out);
    return out.toString();
  }

  /** Milliseconds as written: a number, or when tidy with the largest unit that divides them. */
  private String duration(long ms) {
    if (style == Style.CANONICAL || ms <= 0) {
      return Long.toString(ms);
    }
    if (ms % 3_600_000 == 0) {
      return ms / 3_600_000 + "h";
    }
    if (ms % 60_000 == 0) {
      return ms / 60_000 + "m";
    }
    if (ms % 1000 == 0) {
      return ms / 1000 + "s";
    }
    return ms + "ms";
  }

  /** A window's size or period: a duration for TIME, a count for RECORD. */
  private String amount(long n, Window.Unit unit) {
    return unit == Window.Unit.TIME ? duration(n) : Long.toString(n);
  }

  /**
   * A column as selected: {@code expression AS name}, or the expression when tidy and the name is
   * its default.
   */
  private String column(String expression, String name, String defaultName) {
    if (style != Style.CANONICAL && name.equals(defaultName)) {
      return expression;
    }
    return expression + " AS " + identifier(name);
  }

  /** For each aggregated column, the text that computes it. */
  private static Map<String, String> columns(QueryPlan plan) {
    Map<String, String> map = new HashMap<>();
    BqlPrinter printer = RECORD;
    Aggregation a = plan.aggregation();
    if (a instanceof Aggregation.Group group) {
      for (NamedExpr key : group.keys()) {
        map.put(key.name(), printer.atom(key.expr()));
      }
      for (Metric metric : group.metrics()) {
        map.put(metric.name(), printer.metric(metric.kind(), metric.arguments()));
      }
    } else if (a instanceof Aggregation.CountDistinct cd) {
      map.put(cd.name(), printer.metric(Aggregation.MetricKind.COUNT_DISTINCT, cd.fields()));
    }
    return map;
  }

  private void query(QueryPlan plan, String source, StringBuilder out) {
    PostAggregation post = plan.postAggregation();
    Aggregation a = plan.aggregation();
    Map<String, String> items = new LinkedHashMap<>();
    List<String> natural = new ArrayList<>();
    String groupBy = null;
    Integer limit = null;
    if (a instanceof Aggregation.Raw raw) {
      if (raw.projection().isEmpty()) {
        items.put("*", "*");
        natural.add("*");
      } else {
        for (NamedExpr p : raw.projection().get()) {
          if (!post.culled().contains(p.name())) {
            items.put(p.name(), column(RECORD.expr(p.expr()), p.name(), name(p.expr(), Map.of())));
            natural.add(p.name());
          }
        }
      }
      limit = raw.limit();
    } else if (a instanceof Aggregation.Group group) {
      List<String> keys = new ArrayList<>();
      for (NamedExpr key : group.keys()) {
        keys.add(RECORD.expr(key.expr()));
        if (!post.culled().contains(key.name())) {
          items.put(
              key.name(), column(RECORD.expr(key.expr()), key.name(), name(key.expr(), Map.of())));
          natural.add(key.name());
        }
      }
      for (Metric metric : group.metrics()) {
        if (!post.culled().contains(metric.name())) {
          items.put(
              metric.name(),
              column(
                  RECORD.metric(metric.kind(), metric.arguments()),
                  metric.name(),
                  aggregateName(metric.kind(), metric.arguments())));
          natural.add(metric.name());
        }
      }
      if (!keys.isEmpty()) {
        groupBy = String.join(", ", keys);
      } else if (post.having().isPresent()) {
        groupBy = "()"; // HAVING needs a GROUP BY: GROUP ALL.
      }
      if (post.having().isEmpty() && post.orderBy().isEmpty()) {
        limit = group.limit();
      }
    } else if (a instanceof Aggregation.CountDistinct cd) {
      if (!post.culled().contains(cd.name())) {
        items.put(
            cd.name(),
            column(
                RECORD.metric(Aggregation.MetricKind.COUNT_DISTINCT, cd.fields()),
                cd.name(),
                countDistinctName(cd.fields())));
        natural.add(cd.name());
      }
    } else if (a instanceof Aggregation.Distribution d) {
      items.put("", RECORD.distribution(d));
      natural.add("");
      limit = d.limit();
    } else if (a instanceof Aggregation.TopK top) {
      boolean explicit =
          post.columnOrder().isPresent()
              || top.fields().stream().anyMatch(f -> !f.name().equals(name(f.expr(), Map.of())));
      if (explicit) {
        for (NamedExpr f : top.fields()) {
          items.put(f.name(), RECORD.expr(f.expr()) + " AS " + identifier(f.name()));
          natural.add(f.name());
        }
      }
      items.put(top.countName(), RECORD.top(top) + " AS " + identifier(top.countName()));
      natural.add(top.countName());
    }
    for (NamedExpr c : post.computations()) {
      items.put(c.name(), expr(c.expr()) + " AS " + identifier(c.name()));
      natural.add(c.name());
    }
    List<String> order = post.columnOrder().orElse(natural);
    List<String> select = new ArrayList<>();
    for (String column : order) {
      if (items.containsKey(column)) {
        select.add(items.get(column));
      }
    }
    for (String column : natural) {
      if (!order.contains(column)) {
        select.add(items.get(column));
      }
    }
    out.append("SELECT ").append(String.join(", ", select)).append(" FROM ").append(source);
    for (LateralView view : plan.lateralViews()) {
      out.append(" LATERAL VIEW ")
          .append(view.outer() ? "OUTER " : "")
          .append("EXPLODE(")
          .append(RECORD.expr(view.source()))
          .append(") AS ");
      if (view.valueAlias().isPresent()) {
        out.append('(')
            .append(identifier(view.alias()))
            .append(", ")
            .append(identifier(view.valueAlias().get()))
            .append(')');
      } else {
        out.append(identifier(view.alias()));
      }
    }
    plan.where().ifPresent(w -> out.append(" WHERE ").append(RECORD.expr(w)));
    if (groupBy != null) {
      out.append(" GROUP BY ").append(groupBy);
    }
    post.having().ifPresent(h -> out.append(" HAVING ").append(expr(h)));
    if (!post.orderBy().isEmpty()) {
      List<String> keys = new ArrayList<>();
      for (SortKey key : post.orderBy()) {
        keys.add(expr(key.expr()) + (key.descending() ? " DESC" : " ASC"));
      }
      out.append(" ORDER BY ").append(String.join(", ", keys));
    }
    String window = window(plan.window());
    if (window != null) {
      out.append(" WINDOWING ").append(window);
    }
    if (post.limit().isPresent()) {
      limit = post.limit().get();
    }
    if (limit != null && style != Style.TIDY) {
      out.append(" LIMIT ").append(limit);
    }
  }

  /** A window as written after {@code WINDOWING}; null for none. */
  String window(Window window) {
    if (window instanceof Window.Tumbling t) {
      return "TUMBLING(" + amount(t.size(), t.unit()) + ", " + t.unit() + ")";
    } else if (window instanceof Window.Additive add) {
      return "EVERY(" + duration(add.emitEveryMs()) + ", TIME, ALL)";
    } else if (window instanceof Window.Sliding s) {
      return "EVERY("
          + amount(s.emitEvery(), s.emitUnit())
          + ", "
          + s.emitUnit()
          + ", FIRST, "
          + amount(s.size(), s.sizeUnit())
          + ", "
          + s.sizeUnit()
          + ")";
    } else if (window instanceof Window.EventTime e) {
      return "TUMBLING("
          + duration(e.sizeMs())
          + ", EVENT_TIME("
          + expr(e.time())
          + "), LATENESS "
          + duration(e.latenessMs())
          + ")";
    }
    return null;
  }

  static String windowName(Window window) {
    return RECORD.window(window);
  }

  private String metric(Aggregation.MetricKind kind, List<Expr> args) {
    String joined = args.stream().map(this::expr).collect(Collectors.joining(", "));
    return switch (kind) {
      case COUNT -> "COUNT(*)";
      case COUNT_DISTINCT -> "COUNT(DISTINCT " + joined + ")";
      default -> kind.name() + "(" + joined + ")";
    };
  }

  private String distribution(Aggregation.Distribution d) {
    String function =
        switch (d.kind()) {
          case QUANTILE -> "QUANTILE";
          case PMF -> "FREQ";
          default -> "CUMFREQ";
        };
    String points;
    if (d.points() instanceof Points.Linear linear) {
      points = "LINEAR, " + linear.count();
    } else if (d.points() instanceof Points.Region region) {
      points =
          "REGION, "
              + number(region.start())
              + ", "
              + number(region.end())
              + ", "
              + number(region.step());
    } else {
      points =
          "MANUAL, "
              + ((Points.Manual) d.points())
                  .points().stream().map(BqlPrinter::number).collect(Collectors.joining(", "));
    }
    return function + "(" + expr(d.value()) + ", " + points + ")";
  }

  private static String number(double value) {
    return Double.toString(value);
  }

  private String top(Aggregation.TopK top) {
    StringBuilder s = new StringBuilder("TOP(").append(top.k());
    top.minCount().ifPresent(m -> s.append(", ").append(m));
    for (NamedExpr f : top.fields()) {
      s.append(", ").append(expr(f.expr()));
    }
    return s.append(')').toString();
  }

  String expr(Expr e) {
    if (e instanceof Literal literal) {
      return literal(literal.value(), literal.type());
    }
    if (e instanceof FieldRef field) {
      String column = columns.get(field.name());
      if (column != null && !field.hinted()) {
        return column;
      }
      String name = naming ? field.name() : identifier(field.name());
      return field.hinted() && !naming ? name + " : " + field.type() : name;
    }
    Call call = (Call) e;
    List<Expr> args = call.args();
    switch (call.op()) {
      case INDEX:
        {
          String base = atom(args.get(0));
          String access;
          if (args.get(1) instanceof Literal key
              && key.value() instanceof String s
              && PLAIN.matcher(s).matches()
              && !KEYWORDS.contains(s.toUpperCase(Locale.ROOT))) {
            access = base + "." + s;
          } else {
            access = base + "[" + expr(args.get(1)) + "]";
          }
          if (!naming && isHintedIndex(call)) {
            return access + " : " + call.type();
          }
          return access;
        }
      case NEG:
        return "-" + paren(args.get(0));
      case NOT:
        return "NOT " + paren(args.get(0));
      case IS_NULL:
        return atom(args.get(0)) + " IS NULL";
      case IS_NOT_NULL:
        return atom(args.get(0)) + " IS NOT NULL";
      case BETWEEN:
        return atom(args.get(0))
            + " BETWEEN ("
            + expr(args.get(1))
            + ", "
            + expr(args.get(2))
            + ")";
      case LIST:
        return "[" + args.stream().map(this::expr).collect(Collectors.joining(", ")) + "]";
      case CAST:
        return "CAST(" + expr(args.get(0)) + " AS " + call.type() + ")";
      case NOW:
        return "NOW()";
      default:
        String infix = infix(call.op());
        if (infix != null) {
          // AND and OR chains print flat, whatever their length
          return args.stream().map(this::atom).collect(Collectors.joining(" " + infix + " "));
        }
        return call.op().name()
            + "("
            + args.stream().map(this::expr).collect(Collectors.joining(", "))
            + ")";
    }
  }

  /** Whether an INDEX carries a type its base does not imply: it came from a hint. */
  static boolean isHintedIndex(Call call) {
    Type implied = ExpressionBinder.elementType(call.arg(0).type());
    return !call.type().equals(implied);
  }

  private static String infix(Op op) {
    return switch (op) {
      case ADD -> "+";
      case SUB -> "-";
      case MUL -> "*";
      case DIV -> "/";
      case MOD -> "%";
      case EQ -> "=";
      case NE -> "!=";
      case LT -> "<";
      case LE -> "<=";
      case GT -> ">";
      case GE -> ">=";
      case EQ_ANY -> "= ANY";
      case NE_ANY -> "!= ANY";
      case LT_ANY -> "< ANY";
      case LE_ANY -> "<= ANY";
      case GT_ANY -> "> ANY";
      case GE_ANY -> ">= ANY";
      case EQ_ALL -> "= ALL";
      case NE_ALL -> "!= ALL";
      case LT_ALL -> "< ALL";
      case LE_ALL -> "<= ALL";
      case GT_ALL -> "> ALL";
      case GE_ALL -> ">= ALL";
      case RLIKE -> "RLIKE";
      case RLIKE_ANY -> "RLIKE ANY";
      case IN -> "IN";
      case AND -> "AND";
      case OR -> "OR";
      case XOR -> "XOR";
      default -> null;
    };
  }

  /** An operand: printed bare when it binds tighter than any operator, else in parentheses. */
  private String atom(Expr e) {
    String text = expr(e);
    if (isAtomic(e)) {
      return text;
    }
    return "(" + text + ")";
  }

  private String paren(Expr e) {
    return "(" + expr(e) + ")";
  }

  private boolean isAtomic(Expr e) {
    if (e instanceof Literal literal) {
      return !(literal.value() instanceof Number n) || !text(n).startsWith("-");
    }
    if (e instanceof FieldRef field) {
      return naming || !field.hinted() || columns.containsKey(field.name());
    }
    Call call = (Call) e;
    if (call.op() == Op.INDEX) {
      return naming || !isHintedIndex(call);
    }
    return infix(call.op()) == null
        && call.op() != Op.NEG
        && call.op() != Op.NOT
        && call.op() != Op.IS_NULL
        && call.op() != Op.IS_NOT_NULL
        && call.op() != Op.BETWEEN;
  }

  private static String text(Number n) {
    return n.toString();
  }

  static String literal(Object value, Type type) {
    if (value == null) {
      return "NULL";
    }
    if (value instanceof Boolean b) {
      return b ? "TRUE" : "FALSE";
    }
    if (value instanceof String s) {
      return "'" + s.replace("'", "''") + "'";
    }
    if (value instanceof List<?> list) {
      Type element = ExpressionBinder.elementType(type);
      List<String> items = new ArrayList<>();
      for (Object item : list) {
        items.add(literal(item, item == null ? Type.NULL : typeOf(item, element)));
      }
      return "[" + String.join(", ", items) + "]";
    }
    if (value instanceof Long l) {
      return l + "L";
    }
    if (value instanceof Float f) {
      return f + "F";
    }
    return value.toString();
  }

  private static Type typeOf(Object value, Type fallback) {
    if (value instanceof Integer) {
      return Type.INTEGER;
    }
    if (value instanceof Long) {
      return Type.LONG;
    }
    if (value instanceof Float) {
      return Type.FLOAT;
    }
    if (value instanceof Double) {
      return Type.DOUBLE;
    }
    return fallback.kind() == Kind.UNKNOWN ? Type.UNKNOWN : fallback;
  }

  /** A name as BQL text: bare when plain, else in double quotes. */
  static String identifier(String name) {
    if (PLAIN.matcher(name).matches() && !KEYWORDS.contains(name.toUpperCase(Locale.ROOT))) {
      return name;
    }
    return "\"" + name.replace("\"", "\"\"") + "\"";
  }
}
