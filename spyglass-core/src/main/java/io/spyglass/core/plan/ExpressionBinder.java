package io.spyglass.core.plan;

import io.spyglass.core.record.Type;
import io.spyglass.core.record.Type.Kind;
import io.spyglass.core.syntax.BqlError;
import io.spyglass.core.syntax.Expression;
import io.spyglass.core.syntax.Expression.Access;
import io.spyglass.core.syntax.Expression.Between;
import io.spyglass.core.syntax.Expression.Binary;
import io.spyglass.core.syntax.Expression.Cast;
import io.spyglass.core.syntax.Expression.Distribution;
import io.spyglass.core.syntax.Expression.Field;
import io.spyglass.core.syntax.Expression.Hint;
import io.spyglass.core.syntax.Expression.In;
import io.spyglass.core.syntax.Expression.IsNull;
import io.spyglass.core.syntax.Expression.ListOf;
import io.spyglass.core.syntax.Expression.Quantifier;
import io.spyglass.core.syntax.Expression.Unary;
import io.spyglass.core.syntax.Span;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Binds syntax expressions to typed plan expressions, checking types where they are known. What a
 * field name or an aggregate means depends on the {@link Scope}: a field of the record, or a column
 * of an aggregated result.
 */
final class ExpressionBinder {

  /** What names and aggregates mean where an expression stands. */
  interface Scope {
    /**
     * A replacement for a whole subexpression before it is bound, e.g. a GROUP BY key becomes a
     * reference to its result column.
     */
    default Optional<Expr> replace(Expression expression) {
      return Optional.empty();
    }

    /** A field by name. */
    Expr field(Field field);

    /** An aggregate call ({@code COUNT}, {@code SUM}, ..., {@code QUANTILE}, {@code TOP}). */
    Expr aggregate(Expression aggregate);
  }

  /** Aggregate functions: their presence makes a query an aggregation. */
  static final Set<String> AGGREGATES = Set.of("COUNT", "SUM", "AVG", "MIN", "MAX", "TOP");

  /** Scalar functions by name, with the arity they accept (min, max). */
  private static final Map<String, int[]> FUNCTIONS = new TreeMap<>();

  static {
    FUNCTIONS.put("ABS", new int[] {1, 1});
    FUNCTIONS.put("TRIM", new int[] {1, 1});
    FUNCTIONS.put("LOWER", new int[] {1, 1});
    FUNCTIONS.put("UPPER", new int[] {1, 1});
    FUNCTIONS.put("SIZEOF", new int[] {1, 1});
    FUNCTIONS.put("HASH", new int[] {1, 1});
    FUNCTIONS.put("SIZEIS", new int[] {2, 2});
    FUNCTIONS.put("CONTAINSKEY", new int[] {2, 2});
    FUNCTIONS.put("CONTAINSVALUE", new int[] {2, 2});
    FUNCTIONS.put("FILTER", new int[] {2, 2});
    FUNCTIONS.put("IF", new int[] {3, 3});
    FUNCTIONS.put("BETWEEN", new int[] {3, 3});
    FUNCTIONS.put("SUBSTRING", new int[] {2, 3});
    FUNCTIONS.put("SUBSTR", new int[] {2, 3});
    FUNCTIONS.put("UNIXTIMESTAMP", new int[] {0, 2});
    FUNCTIONS.put("NOW", new int[] {0, 0});
  }

  private final List<BqlError> errors;

  ExpressionBinder(List<BqlError> errors) {
    this.errors = errors;
  }

  void error(Span span, String message, String resolution) {
    errors.add(new BqlError(span, message, resolution));
  }

  /** Whether the expression is itself an aggregate call. */
  static boolean isAggregate(Expression e) {
    return e instanceof Distribution
        || (e instanceof Expression.Call call && AGGREGATES.contains(call.name()));
  }

  /** The aggregate calls inside an expression, outermost first, in order of appearance. */
  static List<Expression> aggregatesIn(Expression e) {
    List<Expression> found = new ArrayList<>();
    collectAggregates(e, found);
    return found;
  }

  private static void collectAggregates(Expression e, List<Expression> found) {
    if (isAggregate(e)) {
      found.add(e);
      return;
    }
    for (Expression child : children(e)) {
      collectAggregates(child, found);
    }
  }

  static List<Expression> children(Expression e) {
    if (e instanceof Access a) {
      return List.of(a.base(), a.key());
    } else if (e instanceof Hint h) {
      return List.of(h.expression());
    } else if (e instanceof ListOf l) {
      return l.items();
    } else if (e instanceof Unary u) {
      return List.of(u.operand());
    } else if (e instanceof Binary b) {
      return List.of(b.left(), b.right());
    } else if (e instanceof Expression.Chain c) {
      return c.operands();
    } else if (e instanceof IsNull n) {
      return List.of(n.operand());
    } else if (e instanceof In in) {
      return List.of(in.value(), in.list());
    } else if (e instanceof Between b) {
      return List.of(b.value(), b.lower(), b.upper());
    } else if (e instanceof Expression.Call c) {
      return c.args();
    } else if (e instanceof Cast c) {
      return List.of(c.operand());
    } else if (e instanceof Distribution d) {
      return List.of(d.value());
    }
    return List.of();
  }

  Expr bind(Expression e, Scope scope) {
    Optional<Expr> replaced = scope.replace(e);
    if (replaced.isPresent()) {
      return replaced.get();
    }
    if (e instanceof Expression.Literal literal) {
      return new Literal(literal.value(), literal.type());
    }
    if (e instanceof Field field) {
      return scope.field(field);
    }
    if (isAggregate(e)) {
      return scope.aggregate(e);
    }
    if (e instanceof Access access) {
      Expr base = bind(access.base(), scope);
      Expr key = bind(access.key(), scope);
      Type baseType = base.type();
      if (!isUnknown(baseType) && baseType.kind() != Kind.MAP && baseType.kind() != Kind.LIST) {
        error(
            access.base().span(),
            "Only a MAP or a LIST has subfields, but this is " + baseType,
            "Remove the subfield access, or give the field a MAP or LIST type hint");
      }
      return new Call(Op.INDEX, List.of(base, key), elementType(baseType));
    }
    if (e instanceof Hint hint) {
      return hint(hint, bind(hint.expression(), scope));
    }
    if (e instanceof ListOf list) {
      List<Expr> items = new ArrayList<>();
      for (Expression item : list.items()) {
        items.add(bind(item, scope));
      }
      return list(items);
    }
    if (e instanceof Unary unary) {
      Expr operand = bind(unary.operand(), scope);
      if (unary.op() == Expression.UnaryOp.NOT) {
        return not(operand, unary.operand().span());
      }
      requireNumeric(operand, unary.operand().span(), "-");
      return new Call(Op.NEG, List.of(operand), numericOrUnknown(operand.type()));
    }
    if (e instanceof Expression.Chain chain) {
      return chain(chain, scope);
    }
    if (e instanceof Binary binary) {
      return binary(binary, bind(binary.left(), scope), bind(binary.right(), scope));
    }
    if (e instanceof IsNull isNull) {
      return new Call(
          isNull.negated() ? Op.IS_NOT_NULL : Op.IS_NULL,
          List.of(bind(isNull.operand(), scope)),
          Type.BOOLEAN);
    }
    if (e instanceof In in) {
      Expr value = bind(in.value(), scope);
      Expr list = bind(in.list(), scope);
      requireList(list, in.list().span(), "IN");
      Expr call = new Call(Op.IN, List.of(value, list), Type.BOOLEAN);
      return in.negated() ? new Call(Op.NOT, List.of(call), Type.BOOLEAN) : call;
    }
    if (e instanceof Between between) {
      Expr call =
          between(
              List.of(
                  bind(between.value(), scope),
                  bind(between.lower(), scope),
                  bind(between.upper(), scope)),
              List.of(between.value().span(), between.lower().span(), between.upper().span()));
      return between.negated() ? new Call(Op.NOT, List.of(call), Type.BOOLEAN) : call;
    }
    if (e instanceof Cast cast) {
      Expr operand = bind(cast.operand(), scope);
      if (!cast.type().kind().isPrimitive()) {
        error(
            cast.span(),
            "Cannot CAST to " + cast.type(),
            "CAST to INTEGER, LONG, FLOAT, DOUBLE, BOOLEAN or STRING");
      }
      return new Call(Op.CAST, List.of(operand), cast.type());
    }
    return function((Expression.Call) e, scope);
  }

  private Expr hint(Hint hint, Expr bound) {
    if (bound instanceof FieldRef field) {
      return new FieldRef(field.name(), hint.type(), true);
    }
    if (bound instanceof Call call && call.op() == Op.INDEX) {
      return new Call(Op.INDEX, call.args(), hint.type());
    }
    error(
        hint.span(),
        "A type hint can only follow a field or a subfield",
        "Use CAST(x AS " + hint.type() + ") to convert a value");
    return bound;
  }

  /** A list: a constant when every item is a primitive constant, else a {@link Op#LIST} call. */
  static Expr list(List<Expr> items) {
    Type element = commonType(items.stream().map(Expr::type).collect(Collectors.toList()));
    boolean constant =
        items.stream().allMatch(i -> i instanceof Literal l && !(l.value() instanceof List));
    if (constant) {
      List<Object> values = new ArrayList<>();
      for (Expr item : items) {
        values.add(((Literal) item).value());
      }
      return new Literal(Collections.unmodifiableList(values), Type.listOf(element));
    }
    return new Call(Op.LIST, items, Type.listOf(element));
  }

  private static Type commonType(List<Type> types) {
    Type common = null;
    for (Type type : types) {
      if (type.kind() == Kind.NULL) {
        continue;
      }
      if (common == null) {
        common = type;
      } else if (!common.equals(type)) {
        return Type.UNKNOWN;
      }
    }
    return common == null ? Type.UNKNOWN : common;
  }

  private Expr binary(Binary binary, Expr left, Expr right) {
    Span leftSpan = binary.left().span();
    Span rightSpan = binary.right().span();
    String symbol = binary.op().symbol();
    switch (binary.op()) {
      case MULTIPLY:
      case DIVIDE:
      case MODULO:
      case ADD:
      case SUBTRACT:
        {
          if (binary.op() == Expression.BinaryOp.ADD && isConcatenation(left, right)) {
            return new Call(Op.ADD, List.of(left, right), Type.STRING);
          }
          requireNumeric(left, leftSpan, symbol);
          requireNumeric(right, rightSpan, symbol);
          Op op =
              switch (binary.op()) {
                case MULTIPLY -> Op.MUL;
                case DIVIDE -> Op.DIV;
                case MODULO -> Op.MOD;
                case ADD -> Op.ADD;
                default -> Op.SUB;
              };
          return new Call(op, List.of(left, right), promote(left.type(), right.type()));
        }
      case AND:
      case OR:
      case XOR:
        requireBoolean(left, leftSpan, symbol);
        requireBoolean(right, rightSpan, symbol);
        Op op =
            switch (binary.op()) {
              case AND -> Op.AND;
              case OR -> Op.OR;
              default -> Op.XOR;
            };
        return new Call(op, List.of(left, right), Type.BOOLEAN);
      case RLIKE:
        {
          requireString(left, leftSpan, "RLIKE");
          Op rlike = Op.RLIKE;
          if (binary.quantifier() == Quantifier.ANY) {
            rlike = Op.RLIKE_ANY;
            requireList(right, rightSpan, "RLIKE ANY");
          } else {
            requireString(right, rightSpan, "RLIKE");
          }
          checkRegexes(right, rightSpan);
          Expr call = new Call(rlike, List.of(left, right), Type.BOOLEAN);
          return binary.negated() ? new Call(Op.NOT, List.of(call), Type.BOOLEAN) : call;
        }
      default:
        return comparison(binary, left, right);
    }
  }

  /** An AND or OR chain: one n-ary call, chains of the same operator in it spliced in. */
  private Expr chain(Expression.Chain chain, Scope scope) {
    Op op = chain.op() == Expression.BinaryOp.AND ? Op.AND : Op.OR;
    List<Expr> args = new ArrayList<>();
    for (Expression operand : chain.operands()) {
      Expr bound = bind(operand, scope);
      requireBoolean(bound, operand.span(), chain.op().symbol());
      if (bound instanceof Call call && call.op() == op) {
        args.addAll(call.args());
      } else {
        args.add(bound);
      }
    }
    return new Call(op, args, Type.BOOLEAN);
  }

  private Expr comparison(Binary binary, Expr left, Expr right) {
    int base =
        switch (binary.op()) {
          case EQUAL -> 0;
          case NOT_EQUAL -> 1;
          case LESS -> 2;
          case LESS_EQUAL -> 3;
          case GREATER -> 4;
          default -> 5;
        };
    Op[] plain = {Op.EQ, Op.NE, Op.LT, Op.LE, Op.GT, Op.GE};
    Op[] any = {Op.EQ_ANY, Op.NE_ANY, Op.LT_ANY, Op.LE_ANY, Op.GT_ANY, Op.GE_ANY};
    Op[] all = {Op.EQ_ALL, Op.NE_ALL, Op.LT_ALL, Op.LE_ALL, Op.GT_ALL, Op.GE_ALL};
    Op op;
    Type rightType = right.type();
    if (binary.quantifier() == Quantifier.NONE) {
      op = plain[base];
    } else {
      op = binary.quantifier() == Quantifier.ANY ? any[base] : all[base];
      requireList(right, binary.right().span(), binary.op().symbol() + " " + binary.quantifier());
      rightType = elementType(right.type());
    }
    if (!comparable(left.type(), rightType)) {
      error(
          binary.span(),
          "Cannot compare " + left.type() + " with " + rightType,
          "Compare values of the same kind, or CAST one side");
    }
    return new Call(op, List.of(left, right), Type.BOOLEAN);
  }

  private static boolean comparable(Type a, Type b) {
    if (isUnknown(a) || isUnknown(b)) {
      return true;
    }
    if (a.isNumeric() && b.isNumeric()) {
      return true;
    }
    return a.kind() == b.kind();
  }

  private Expr between(List<Expr> args, List<Span> spans) {
    for (int i = 0; i < 3; i++) {
      Type t = args.get(i).type();
      if (!isUnknown(t) && !t.isNumeric() && t.kind() != Kind.STRING) {
        error(
            spans.get(i),
            "BETWEEN needs numbers or strings, but this is " + t,
            "Use numeric or string bounds");
      }
    }
    return new Call(Op.BETWEEN, args, Type.BOOLEAN);
  }

  private Expr not(Expr operand, Span span) {
    requireBoolean(operand, span, "NOT");
    return new Call(Op.NOT, List.of(operand), Type.BOOLEAN);
  }

  private Expr function(Expression.Call call, Scope scope) {
    String name = call.name();
    int[] arity = FUNCTIONS.get(name);
    if (arity == null) {
      error(call.nameSpan(), "Unknown function " + name, suggestion(name));
      for (Expression arg : call.args()) {
        bind(arg, scope);
      }
      return new Literal(null, Type.UNKNOWN);
    }
    if (call.star() || call.distinct()) {
      error(
          call.span(),
          (call.star() ? "* " : "DISTINCT ") + "is only allowed in COUNT, not in " + name,
          "Pass the arguments of " + name + " directly");
    }
    int n = call.args().size();
    if (n < arity[0] || n > arity[1]) {
      String expected = arity[0] == arity[1] ? "" + arity[0] : arity[0] + " to " + arity[1];
      error(
          call.span(),
          name + " takes " + expected + " argument" + (arity[1] == 1 ? "" : "s") + ", not " + n,
          "Call it as " + usage(name));
      return new Literal(null, Type.UNKNOWN);
    }
    List<Expr> args = new ArrayList<>();
    for (Expression arg : call.args()) {
      args.add(bind(arg, scope));
    }
    List<Span> spans = call.args().stream().map(Expression::span).collect(Collectors.toList());
    switch (name) {
      case "ABS":
        requireNumeric(args.get(0), spans.get(0), name);
        return new Call(Op.ABS, args, numericOrUnknown(args.get(0).type()));
      case "TRIM":
      case "LOWER":
      case "UPPER":
        requireString(args.get(0), spans.get(0), name);
        return new Call(Op.valueOf(name), args, Type.STRING);
      case "SIZEOF":
        requireSized(args.get(0), spans.get(0), name);
        return new Call(Op.SIZEOF, args, Type.INTEGER);
      case "HASH":
        return new Call(Op.HASH, args, Type.INTEGER);
      case "SIZEIS":
        requireSized(args.get(0), spans.get(0), name);
        requireNumeric(args.get(1), spans.get(1), name);
        return new Call(Op.SIZEIS, args, Type.BOOLEAN);
      case "CONTAINSKEY":
      case "CONTAINSVALUE":
        requireCollection(args.get(0), spans.get(0), name);
        return new Call(Op.valueOf(name), args, Type.BOOLEAN);
      case "FILTER":
        requireList(args.get(0), spans.get(0), name);
        requireList(args.get(1), spans.get(1), name);
        return new Call(Op.FILTER, args, args.get(0).type());
      case "IF":
        {
          requireBoolean(args.get(0), spans.get(0), name);
          Type a = args.get(1).type();
          Type b = args.get(2).type();
          Type type;
          if (a.equals(b) || b.kind() == Kind.NULL) {
            type = a;
          } else if (a.kind() == Kind.NULL) {
            type = b;
          } else if (a.isNumeric() && b.isNumeric()) {
            type = promote(a, b);
          } else {
            type = Type.UNKNOWN;
          }
          return new Call(Op.IF, args, type);
        }
      case "BETWEEN":
        return between(args, spans);
      case "SUBSTRING":
      case "SUBSTR":
        requireString(args.get(0), spans.get(0), name);
        for (int i = 1; i < args.size(); i++) {
          requireNumeric(args.get(i), spans.get(i), name);
        }
        return new Call(Op.SUBSTRING, args, Type.STRING);
      case "UNIXTIMESTAMP":
        if (args.size() == 2) {
          requireString(args.get(1), spans.get(1), name);
        }
        return new Call(Op.UNIXTIMESTAMP, args, Type.LONG);
      default:
        return new Call(Op.NOW, args, Type.LONG);
    }
  }

  static String usage(String name) {
    return switch (name) {
      case "SIZEIS" -> "SIZEIS(collection, size)";
      case "CONTAINSKEY" -> "CONTAINSKEY(map, key)";
      case "CONTAINSVALUE" -> "CONTAINSVALUE(collection, value)";
      case "FILTER" -> "FILTER(list, booleanList)";
      case "IF" -> "IF(condition, then, else)";
      case "BETWEEN" -> "BETWEEN(value, lower, upper)";
      case "SUBSTRING", "SUBSTR" -> name + "(string, start[, length])";
      case "UNIXTIMESTAMP" ->
          "UNIXTIMESTAMP(), UNIXTIMESTAMP(time) or UNIXTIMESTAMP(time, pattern)";
      case "NOW" -> "NOW() or NOW";
      case "COUNT" -> "COUNT(*) or COUNT(DISTINCT a, b)";
      case "TOP" -> "TOP(k[, minCount], field, ...)";
      default -> name + "(x)";
    };
  }

  /** Names close to an unknown one, so a typo is easy to fix. */
  static String suggestion(String name) {
    List<String> known = new ArrayList<>(FUNCTIONS.keySet());
    known.addAll(AGGREGATES);
    known.addAll(List.of("QUANTILE", "FREQ", "CUMFREQ", "CAST"));
    List<String> close = Names.closest(name, known, Math.max(2, name.length() / 3));
    if (!close.isEmpty()) {
      return "Did you mean " + String.join(" or ", close) + "?";
    }
    Collections.sort(known);
    return "Use one of: " + String.join(", ", known);
  }

  // Type rules. UNKNOWN (a field without a hint) and NULL pass every check.

  static boolean isUnknown(Type t) {
    return t.kind() == Kind.UNKNOWN || t.kind() == Kind.NULL;
  }

  static Type elementType(Type t) {
    if ((t.kind() == Kind.MAP || t.kind() == Kind.LIST) && t.element() != null) {
      return t.element();
    }
    return Type.UNKNOWN;
  }

  static Type promote(Type a, Type b) {
    if (isUnknown(a) || isUnknown(b) || !a.isNumeric() || !b.isNumeric()) {
      return Type.UNKNOWN;
    }
    return a.kind().ordinal() >= b.kind().ordinal() ? a : b;
  }

  private static Type numericOrUnknown(Type t) {
    return t.isNumeric() ? t : Type.UNKNOWN;
  }

  private void require(boolean ok, Expr e, Span span, String what, String needs, String fix) {
    if (!ok && !isUnknown(e.type())) {
      error(span, what + " needs " + needs + ", but this is " + e.type(), fix);
    }
  }

  void requireNumeric(Expr e, Span span, String what) {
    require(e.type().isNumeric(), e, span, what, "a number", "Use a numeric value, or CAST it");
  }

  void requireBoolean(Expr e, Span span, String what) {
    require(
        e.type().kind() == Kind.BOOLEAN,
        e,
        span,
        what,
        "a BOOLEAN",
        "Use a condition such as x = 1, or CAST it to BOOLEAN");
  }

  /** {@code a + b} on strings: one side a STRING, the other a STRING or not known until read. */
  private static boolean isConcatenation(Expr left, Expr right) {
    Kind l = left.type().kind();
    Kind r = right.type().kind();
    return (l == Kind.STRING && (r == Kind.STRING || r == Kind.UNKNOWN))
        || (r == Kind.STRING && l == Kind.UNKNOWN);
  }

  /**
   * Rejects a constant pattern that RE2/J, the linear-time engine RLIKE runs on, cannot compile:
   * invalid syntax, what needs backtracking (backreferences, lookahead and lookbehind), and a
   * pattern whose program would be too large ({@link Regexes}).
   */
  private void checkRegexes(Expr patterns, Span span) {
    if (!(patterns instanceof Literal)) {
      return;
    }
    Object v = ((Literal) patterns).value();
    for (Object p : v instanceof List ? (List<?>) v : java.util.Collections.singletonList(v)) {
      if (p instanceof String regex) {
        try {
          Regexes.compile(regex);
        } catch (Regexes.TooLarge e) {
          error(
              span,
              e.getMessage(),
              "Use fewer or smaller counted repetitions ({n}, {n,m}): each copies what it repeats,"
                  + " and nested ones multiply");
        } catch (com.google.re2j.PatternSyntaxException e) {
          error(
              span,
              "Invalid regular expression '" + regex + "': " + e.getDescription(),
              "RLIKE takes RE2 regular expressions, which match in linear time: no backreferences"
                  + " (\\1) and no lookaround ((?=...), (?!...), (?<=...)); escape special"
                  + " characters such as ( [ { with \\");
        }
      }
    }
  }

  private void requireString(Expr e, Span span, String what) {
    require(e.type().kind() == Kind.STRING, e, span, what, "a STRING", "Use a string, or CAST it");
  }

  private void requireList(Expr e, Span span, String what) {
    require(
        e.type().kind() == Kind.LIST,
        e,
        span,
        what,
        "a LIST",
        "Use a list such as [1, 2] or a LIST field");
  }

  private void requireCollection(Expr e, Span span, String what) {
    Kind k = e.type().kind();
    require(
        k == Kind.LIST || k == Kind.MAP,
        e,
        span,
        what,
        "a LIST or a MAP",
        "Use a LIST or MAP field");
  }

  private void requireSized(Expr e, Span span, String what) {
    Kind k = e.type().kind();
    require(
        k == Kind.LIST || k == Kind.MAP || k == Kind.STRING,
        e,
        span,
        what,
        "a LIST, a MAP or a STRING",
        "Use a LIST, MAP or STRING value");
  }
}
