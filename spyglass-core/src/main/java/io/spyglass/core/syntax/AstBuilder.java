package io.spyglass.core.syntax;

import io.spyglass.core.record.Type;
import io.spyglass.core.syntax.Expression.Access;
import io.spyglass.core.syntax.Expression.Between;
import io.spyglass.core.syntax.Expression.Binary;
import io.spyglass.core.syntax.Expression.BinaryOp;
import io.spyglass.core.syntax.Expression.Call;
import io.spyglass.core.syntax.Expression.Cast;
import io.spyglass.core.syntax.Expression.Distribution;
import io.spyglass.core.syntax.Expression.DistributionFunction;
import io.spyglass.core.syntax.Expression.Field;
import io.spyglass.core.syntax.Expression.Hint;
import io.spyglass.core.syntax.Expression.In;
import io.spyglass.core.syntax.Expression.IsNull;
import io.spyglass.core.syntax.Expression.ListOf;
import io.spyglass.core.syntax.Expression.Literal;
import io.spyglass.core.syntax.Expression.PointsMode;
import io.spyglass.core.syntax.Expression.Quantifier;
import io.spyglass.core.syntax.Expression.Unary;
import io.spyglass.core.syntax.Expression.UnaryOp;
import io.spyglass.core.syntax.Select.Amount;
import io.spyglass.core.syntax.Select.Duration;
import io.spyglass.core.syntax.Select.EventTimeTumbling;
import io.spyglass.core.syntax.Select.Every;
import io.spyglass.core.syntax.Select.Explode;
import io.spyglass.core.syntax.Select.Item;
import io.spyglass.core.syntax.Select.LateralView;
import io.spyglass.core.syntax.Select.Limit;
import io.spyglass.core.syntax.Select.SelectItem;
import io.spyglass.core.syntax.Select.SortItem;
import io.spyglass.core.syntax.Select.Source;
import io.spyglass.core.syntax.Select.Star;
import io.spyglass.core.syntax.Select.Stream;
import io.spyglass.core.syntax.Select.SubQuery;
import io.spyglass.core.syntax.Select.Tumbling;
import io.spyglass.core.syntax.Select.Unit;
import io.spyglass.core.syntax.Select.WindowClause;
import io.spyglass.core.syntax.internal.BqlParser;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.antlr.v4.runtime.ParserRuleContext;
import org.antlr.v4.runtime.Token;

/** Turns an ANTLR parse tree into the positioned syntax tree, collecting value errors. */
final class AstBuilder {
  private final List<BqlError> errors = new ArrayList<>();

  List<BqlError> errors() {
    return errors;
  }

  static Span span(ParserRuleContext ctx) {
    Token start = ctx.getStart();
    Token stop = ctx.getStop();
    int end =
        stop == null || stop.getStopIndex() < start.getStartIndex()
            ? start.getStartIndex()
            : stop.getStopIndex() + 1;
    return new Span(start.getLine(), start.getCharPositionInLine() + 1, start.getStartIndex(), end);
  }

  static Span span(Token token) {
    return new Span(
        token.getLine(),
        token.getCharPositionInLine() + 1,
        token.getStartIndex(),
        Math.max(token.getStartIndex(), token.getStopIndex() + 1));
  }

  private void error(Span span, String message, String resolution) {
    errors.add(new BqlError(span, message, resolution));
  }

  Select query(BqlParser.QueryContext ctx) {
    BqlParser.SelectListContext selectList = ctx.selectList();
    List<SelectItem> items = new ArrayList<>();
    for (BqlParser.SelectItemContext item : selectList.selectItem()) {
      items.add(selectItem(item));
    }
    Source source = source(ctx.source());
    List<LateralView> views = new ArrayList<>();
    for (BqlParser.LateralViewContext view : ctx.lateralView()) {
      views.add(tableFunction(view.tableFunction(), span(view)));
    }
    Optional<List<Expression>> groupBy = Optional.empty();
    if (ctx.groupBy() != null) {
      groupBy =
          Optional.of(
              ctx.groupBy().expressions() == null
                  ? List.of()
                  : expressions(ctx.groupBy().expressions()));
    }
    List<SortItem> orderBy = new ArrayList<>();
    for (BqlParser.SortItemContext sort : ctx.sortItem()) {
      boolean descending = sort.ordering != null && sort.ordering.getType() == BqlParser.DESC;
      orderBy.add(new SortItem(expression(sort.expression()), descending, span(sort)));
    }
    Optional<WindowClause> window =
        ctx.window() == null ? Optional.empty() : Optional.of(window(ctx.window()));
    Optional<Limit> limit = Optional.empty();
    if (ctx.limit != null) {
      limit = Optional.of(new Limit(integer(ctx.limit), span(ctx.limit)));
    }
    return new Select(
        selectList.DISTINCT() != null,
        items,
        source,
        views,
        Optional.ofNullable(ctx.where).map(this::expression),
        groupBy,
        Optional.ofNullable(ctx.having).map(this::expression),
        orderBy,
        window,
        limit,
        span(ctx));
  }

  private SelectItem selectItem(BqlParser.SelectItemContext ctx) {
    if (ctx instanceof BqlParser.SelectAllContext) {
      return new Star(span(ctx));
    }
    if (ctx instanceof BqlParser.SelectExplodeContext explode) {
      return new Explode(tableFunction(explode.tableFunction(), span(ctx)), span(ctx));
    }
    BqlParser.SelectExpressionContext item = (BqlParser.SelectExpressionContext) ctx;
    Optional<String> alias = Optional.ofNullable(item.alias).map(AstBuilder::name);
    if (alias.isPresent() && alias.get().isEmpty()) {
      error(span(item.alias), "An alias cannot be empty", "Give the column a non-empty name");
    }
    return new Item(expression(item.expression()), alias, span(ctx));
  }

  private LateralView tableFunction(BqlParser.TableFunctionContext ctx, Span span) {
    Expression source = expression(ctx.expression());
    boolean outer = ctx.OUTER() != null;
    if (ctx.alias != null) {
      return new LateralView(source, name(ctx.alias), Optional.empty(), outer, span);
    }
    return new LateralView(
        source, name(ctx.keyAlias), Optional.of(name(ctx.valueAlias)), outer, span);
  }

  private Source source(BqlParser.SourceContext ctx) {
    if (ctx instanceof BqlParser.SubQuerySourceContext sub) {
      return new SubQuery(query(sub.query()), span(ctx));
    }
    if (ctx instanceof BqlParser.ForeverSourceContext forever) {
      Span at = span(forever.FOREVER().getSymbol());
      return new Stream(Optional.of(new Duration(0, false, true, at)), span(ctx));
    }
    BqlParser.StreamSourceContext stream = (BqlParser.StreamSourceContext) ctx;
    if (stream.streamDuration() == null) {
      return new Stream(Optional.empty(), span(ctx));
    }
    BqlParser.StreamDurationContext duration = stream.streamDuration();
    if (duration.MAX() != null) {
      return new Stream(Optional.of(new Duration(0, true, false, span(duration))), span(ctx));
    }
    Amount amount = amount(duration.amount(), Unit.TIME);
    return new Stream(
        Optional.of(new Duration(amount.value(), false, false, amount.span())), span(ctx));
  }

  private WindowClause window(BqlParser.WindowContext ctx) {
    if (ctx instanceof BqlParser.TumblingContext tumbling) {
      return new Tumbling(amount(tumbling.size, unit(tumbling.sizeUnit)), span(ctx));
    }
    if (ctx instanceof BqlParser.EventTimeTumblingContext eventTime) {
      Optional<Amount> lateness =
          eventTime.lateness == null
              ? Optional.empty()
              : Optional.of(amount(eventTime.lateness, Unit.TIME));
      return new EventTimeTumbling(
          amount(eventTime.size, Unit.TIME), expression(eventTime.time), lateness, span(ctx));
    }
    BqlParser.EveryContext every = (BqlParser.EveryContext) ctx;
    Amount emit = amount(every.emit, unit(every.emitUnit));
    BqlParser.IncludeContext include = every.include();
    Optional<Amount> first =
        include.ALL() != null
            ? Optional.empty()
            : Optional.of(amount(include.size, unit(include.sizeUnit)));
    return new Every(emit, first, span(ctx));
  }

  private static Unit unit(BqlParser.UnitContext ctx) {
    return ctx.RECORD() != null ? Unit.RECORD : Unit.TIME;
  }

  private Amount amount(BqlParser.AmountContext ctx, Unit unit) {
    Token token = ctx.getStart();
    String text = token.getText().toUpperCase(Locale.ROOT);
    Span span = span(ctx);
    if (token.getType() == BqlParser.DURATION_VALUE) {
      int digits = 0;
      while (digits < text.length() && Character.isDigit(text.charAt(digits))) {
        digits++;
      }
      String suffix = text.substring(digits);
      long factor =
          switch (suffix) {
            case "MS" -> 1L;
            case "S" -> 1_000L;
            case "M" -> 60_000L;
            default -> 3_600_000L;
          };
      long value = parseLong(text.substring(0, digits), span);
      if (unit == Unit.RECORD) {
        error(
            span,
            "A count of records cannot have a time unit: " + token.getText(),
            "Write a plain number of records, e.g. " + text.substring(0, digits));
      }
      try {
        return new Amount(Math.multiplyExact(value, factor), unit, true, span);
      } catch (ArithmeticException e) {
        error(span, "The duration " + token.getText() + " is too long", "Use a shorter duration");
        return new Amount(Long.MAX_VALUE, unit, true, span);
      }
    }
    String digits =
        token.getType() == BqlParser.LONG_VALUE ? text.substring(0, text.length() - 1) : text;
    return new Amount(parseLong(digits, span), unit, false, span);
  }

  private long integer(BqlParser.SignedIntegerContext ctx) {
    Token value = ctx.getStop();
    String text = value.getText().toUpperCase(Locale.ROOT);
    if (text.endsWith("L")) {
      text = text.substring(0, text.length() - 1);
    }
    long parsed = parseLong(text, span(ctx));
    return ctx.MINUS() != null ? -parsed : parsed;
  }

  private long parseLong(String digits, Span span) {
    try {
      return Long.parseLong(digits);
    } catch (NumberFormatException e) {
      error(span, "The number " + digits + " is too large", "Use a number below 2^63");
      return Long.MAX_VALUE;
    }
  }

  List<Expression> expressions(BqlParser.ExpressionsContext ctx) {
    List<Expression> result = new ArrayList<>();
    if (ctx != null) {
      for (BqlParser.ExpressionContext e : ctx.expression()) {
        result.add(expression(e));
      }
    }
    return result;
  }

  Expression expression(BqlParser.ExpressionContext ctx) {
    Span span = span(ctx);
    if (ctx instanceof BqlParser.PrimaryExpressionContext primary) {
      return primary(primary.primary());
    }
    if (ctx instanceof BqlParser.DotAccessContext dot) {
      Span keySpan = span(dot.key);
      return new Access(
          expression(dot.base), new Literal(name(dot.key), Type.STRING, keySpan), true, span);
    }
    if (ctx instanceof BqlParser.IndexAccessContext index) {
      return new Access(expression(index.base), expression(index.key), false, span);
    }
    if (ctx instanceof BqlParser.TypeHintContext hint) {
      return new Hint(expression(hint.expression()), type(hint.fieldType()), span);
    }
    if (ctx instanceof BqlParser.SignedContext signed) {
      boolean minus = signed.op.getType() == BqlParser.MINUS;
      if (minus && signed.operand.getStart() == signed.operand.getStop()) {
        String digits = signed.operand.getText().toUpperCase(Locale.ROOT);
        if (signed.operand.getStart().getType() == BqlParser.INTEGER_VALUE
            && digits.equals("2147483648")) {
          return new Literal(Integer.MIN_VALUE, Type.INTEGER, span); // -2^31 fits an INTEGER
        }
        if (digits.equals("9223372036854775808L") || digits.equals("9223372036854775808")) {
          return new Literal(Long.MIN_VALUE, Type.LONG, span); // -2^63 fits a LONG
        }
      }
      Expression operand = expression(signed.operand);
      return minus ? negate(operand, span) : operand;
    }
    if (ctx instanceof BqlParser.NullPredicateContext isNull) {
      return new IsNull(expression(isNull.expression()), isNull.NOT() != null, span);
    }
    if (ctx instanceof BqlParser.BinaryContext binary
        && (binary.op.getType() == BqlParser.AND || binary.op.getType() == BqlParser.OR)) {
      return chain(binary, span);
    }
    if (ctx instanceof BqlParser.BinaryContext binary) {
      Quantifier quantifier = Quantifier.NONE;
      if (binary.quantifier != null) {
        quantifier = binary.quantifier.getType() == BqlParser.ANY ? Quantifier.ANY : Quantifier.ALL;
      }
      return new Binary(
          binaryOp(binary.op),
          quantifier,
          binary.NOT() != null,
          expression(binary.left),
          expression(binary.right),
          span);
    }
    if (ctx instanceof BqlParser.InListContext in) {
      Span listSpan = span(in.expressions());
      return new In(
          expression(in.left),
          new ListOf(expressions(in.expressions()), listSpan),
          in.NOT() != null,
          span);
    }
    if (ctx instanceof BqlParser.InExpressionContext in) {
      Expression right = expression(in.right);
      if (in.right instanceof BqlParser.PrimaryExpressionContext p
          && p.primary() instanceof BqlParser.ParenthesesContext) {
        // x IN ('a'): a list of one item, not a parenthesised value
        right = new ListOf(List.of(right), span(in.right));
      }
      return new In(expression(in.left), right, in.NOT() != null, span);
    }
    if (ctx instanceof BqlParser.BetweenContext between) {
      return new Between(
          expression(between.value),
          expression(between.lower),
          expression(between.upper),
          between.NOT() != null,
          span);
    }
    BqlParser.PrefixContext prefix = (BqlParser.PrefixContext) ctx;
    return prefix(prefix.op, expression(prefix.operand), span);
  }

  /** An AND or OR chain, walked along its left spine without recursion. */
  private Expression chain(BqlParser.BinaryContext top, Span span) {
    int op = top.op.getType();
    List<BqlParser.ExpressionContext> rights = new ArrayList<>();
    BqlParser.ExpressionContext left = top;
    while (left instanceof BqlParser.BinaryContext b && b.op.getType() == op) {
      rights.add(b.right);
      left = b.left;
    }
    List<Expression> operands = new ArrayList<>();
    operands.add(expression(left));
    for (int i = rights.size() - 1; i >= 0; i--) {
      operands.add(expression(rights.get(i)));
    }
    return new Expression.Chain(binaryOp(top.op), operands, span);
  }

  private static Expression prefix(Token op, Expression operand, Span span) {
    if (op.getType() == BqlParser.NOT) {
      return new Unary(UnaryOp.NOT, operand, span);
    }
    return new Call("SIZEOF", List.of(operand), false, false, span(op), span);
  }

  /** Folds the sign into a numeric literal, so that {@code -5} is a constant. */
  private static Expression negate(Expression operand, Span span) {
    if (operand instanceof Literal literal && literal.value() instanceof Number number) {
      Object negated =
          switch (literal.type().kind()) {
            case INTEGER -> -number.intValue();
            case LONG -> -number.longValue();
            case FLOAT -> -number.floatValue();
            default -> -number.doubleValue();
          };
      return new Literal(negated, literal.type(), span);
    }
    return new Unary(UnaryOp.NEGATE, operand, span);
  }

  private static BinaryOp binaryOp(Token op) {
    return switch (op.getType()) {
      case BqlParser.ASTERISK -> BinaryOp.MULTIPLY;
      case BqlParser.SLASH -> BinaryOp.DIVIDE;
      case BqlParser.PERCENT -> BinaryOp.MODULO;
      case BqlParser.PLUS -> BinaryOp.ADD;
      case BqlParser.MINUS -> BinaryOp.SUBTRACT;
      case BqlParser.LT -> BinaryOp.LESS;
      case BqlParser.LTE -> BinaryOp.LESS_EQUAL;
      case BqlParser.GT -> BinaryOp.GREATER;
      case BqlParser.GTE -> BinaryOp.GREATER_EQUAL;
      case BqlParser.EQ -> BinaryOp.EQUAL;
      case BqlParser.NEQ -> BinaryOp.NOT_EQUAL;
      case BqlParser.RLIKE -> BinaryOp.RLIKE;
      case BqlParser.AND -> BinaryOp.AND;
      case BqlParser.XOR -> BinaryOp.XOR;
      default -> BinaryOp.OR;
    };
  }

  private Expression primary(BqlParser.PrimaryContext ctx) {
    Span span = span(ctx);
    if (ctx instanceof BqlParser.LiteralPrimaryContext literal) {
      return literal(literal.literal().getStart(), span);
    }
    if (ctx instanceof BqlParser.ListPrimaryContext list) {
      return new ListOf(expressions(list.expressions()), span);
    }
    if (ctx instanceof BqlParser.CastContext cast) {
      return new Cast(expression(cast.expression()), type(cast.fieldType()), span);
    }
    if (ctx instanceof BqlParser.DistributionContext distribution) {
      return distribution(distribution, span);
    }
    if (ctx instanceof BqlParser.PrefixCallContext prefix) {
      return prefix(prefix.op, expression(prefix.expression()), span);
    }
    if (ctx instanceof BqlParser.BetweenCallContext between) {
      return new Call(
          "BETWEEN",
          expressions(between.expressions()),
          false,
          false,
          span(between.BETWEEN().getSymbol()),
          span);
    }
    if (ctx instanceof BqlParser.StarCallContext call) {
      return new Call(functionName(call.name), List.of(), true, false, span(call.name), span);
    }
    if (ctx instanceof BqlParser.DistinctCallContext call) {
      return new Call(
          functionName(call.name),
          expressions(call.expressions()),
          false,
          true,
          span(call.name),
          span);
    }
    if (ctx instanceof BqlParser.CallContext call) {
      return new Call(
          functionName(call.name),
          expressions(call.expressions()),
          false,
          false,
          span(call.name),
          span);
    }
    if (ctx instanceof BqlParser.FieldContext field) {
      // Bullet's NOW keyword, the current time; quote the name to read a field called NOW.
      if (field.identifier().QUOTED_IDENTIFIER() == null
          && field.getText().equalsIgnoreCase("NOW")) {
        return new Call("NOW", List.of(), false, false, span, span);
      }
      return new Field(name(field.identifier()), span);
    }
    return expression(((BqlParser.ParenthesesContext) ctx).expression());
  }

  private Expression distribution(BqlParser.DistributionContext ctx, Span span) {
    DistributionFunction function =
        switch (ctx.kind.getType()) {
          case BqlParser.QUANTILE -> DistributionFunction.QUANTILE;
          case BqlParser.FREQ -> DistributionFunction.FREQ;
          default -> DistributionFunction.CUMFREQ;
        };
    BqlParser.PointsSpecContext points = ctx.pointsSpec();
    PointsMode mode;
    List<BqlParser.NumberContext> numbers;
    if (points instanceof BqlParser.LinearPointsContext linear) {
      mode = PointsMode.LINEAR;
      numbers = List.of(linear.count);
    } else if (points instanceof BqlParser.RegionPointsContext region) {
      mode = PointsMode.REGION;
      numbers = List.of(region.start, region.end, region.step);
    } else {
      mode = PointsMode.MANUAL;
      numbers = ((BqlParser.ManualPointsContext) points).number();
    }
    List<Literal> values = new ArrayList<>();
    for (BqlParser.NumberContext number : numbers) {
      Expression value = literal(number.value, span(number));
      if (number.sign != null && number.sign.getType() == BqlParser.MINUS) {
        value = negate(value, span(number));
      }
      values.add((Literal) value);
    }
    return new Distribution(function, expression(ctx.expression()), mode, values, span);
  }

  private Expression literal(Token token, Span span) {
    String text = token.getText();
    switch (token.getType()) {
      case BqlParser.NULL:
        return new Literal(null, Type.NULL, span);
      case BqlParser.TRUE:
        return new Literal(Boolean.TRUE, Type.BOOLEAN, span);
      case BqlParser.FALSE:
        return new Literal(Boolean.FALSE, Type.BOOLEAN, span);
      case BqlParser.STRING:
        return new Literal(unquote(text, '\''), Type.STRING, span);
      case BqlParser.INTEGER_VALUE:
        try {
          return new Literal(Integer.parseInt(text), Type.INTEGER, span);
        } catch (NumberFormatException e) {
          // Too large for an INTEGER: read it as a LONG, as Bullet's documentation shows.
          return new Literal(parseLong(text, span), Type.LONG, span);
        }
      case BqlParser.LONG_VALUE:
        return new Literal(parseLong(text.substring(0, text.length() - 1), span), Type.LONG, span);
      case BqlParser.FLOAT_VALUE:
        {
          float value = Float.parseFloat(text.substring(0, text.length() - 1));
          if (Float.isInfinite(value)) {
            error(span, "The number " + text + " is too large for a FLOAT", "Use a DOUBLE");
          }
          return new Literal(value, Type.FLOAT, span);
        }
      default:
        {
          double value = Double.parseDouble(text);
          if (Double.isInfinite(value)) {
            error(
                span, "The number " + text + " is too large for a DOUBLE", "Use a smaller number");
          }
          return new Literal(value, Type.DOUBLE, span);
        }
    }
  }

  private static Type type(BqlParser.FieldTypeContext ctx) {
    if (ctx.outer != null) {
      Type element = ctx.fieldType() == null ? Type.UNKNOWN : type(ctx.fieldType());
      return ctx.outer.getType() == BqlParser.LIST_TYPE
          ? Type.listOf(element)
          : Type.mapOf(element);
    }
    return switch (ctx.getStart().getType()) {
      case BqlParser.INTEGER_TYPE -> Type.INTEGER;
      case BqlParser.LONG_TYPE -> Type.LONG;
      case BqlParser.FLOAT_TYPE -> Type.FLOAT;
      case BqlParser.DOUBLE_TYPE -> Type.DOUBLE;
      case BqlParser.BOOLEAN_TYPE -> Type.BOOLEAN;
      default -> Type.STRING;
    };
  }

  private static String functionName(BqlParser.IdentifierContext ctx) {
    return name(ctx).toUpperCase(Locale.ROOT);
  }

  /** The name an identifier stands for: quotes removed, case kept. */
  static String name(BqlParser.IdentifierContext ctx) {
    String text = ctx.getText();
    if (ctx.QUOTED_IDENTIFIER() != null) {
      return unquote(text, '"');
    }
    return text;
  }

  private static String unquote(String text, char quote) {
    String body = text.substring(1, text.length() - 1);
    String doubled = String.valueOf(quote) + quote;
    return body.replace(doubled, String.valueOf(quote));
  }
}
