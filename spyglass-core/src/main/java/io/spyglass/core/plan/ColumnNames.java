package io.spyglass.core.plan;

import io.spyglass.core.syntax.Expression;
import io.spyglass.core.syntax.Expression.Access;
import io.spyglass.core.syntax.Expression.Between;
import io.spyglass.core.syntax.Expression.Binary;
import io.spyglass.core.syntax.Expression.BinaryOp;
import io.spyglass.core.syntax.Expression.Cast;
import io.spyglass.core.syntax.Expression.Distribution;
import io.spyglass.core.syntax.Expression.Field;
import io.spyglass.core.syntax.Expression.Hint;
import io.spyglass.core.syntax.Expression.In;
import io.spyglass.core.syntax.Expression.IsNull;
import io.spyglass.core.syntax.Expression.ListOf;
import io.spyglass.core.syntax.Expression.Literal;
import io.spyglass.core.syntax.Expression.Quantifier;
import io.spyglass.core.syntax.Expression.Unary;
import io.spyglass.core.syntax.Expression.UnaryOp;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The name of an unaliased column: its expression as written, spaced and spelled as Bullet names it
 * ({@code ml['amir']} stays {@code ml['amir']}, {@code ml.amir} stays {@code ml.amir}, {@code n*2}
 * is {@code n * 2}, {@code abs(x)} is {@code ABS(x)}, {@code SIZEOF x} is {@code SIZEOF(x)}), with
 * parentheses where the structure needs them. Type hints and quotes are left out.
 */
final class ColumnNames {
  /** The query text, to see the parentheses the syntax tree does not keep. */
  private final String text;

  ColumnNames(String text) {
    this.text = text;
  }

  String of(Expression e) {
    if (e instanceof Literal literal) {
      String printed = BqlPrinter.literal(literal.value(), literal.type());
      // Bullet names TRUE, FALSE and NULL in lower case
      return literal.value() == null || literal.value() instanceof Boolean
          ? printed.toLowerCase(java.util.Locale.ROOT)
          : printed;
    }
    if (e instanceof Field field) {
      return field.name();
    }
    if (e instanceof Access access) {
      String base = operand(access.base(), 0, false);
      if (access.dot()) {
        return base + "." + ((Literal) access.key()).value();
      }
      return base + "[" + of(access.key()) + "]";
    }
    if (e instanceof Hint hint) {
      return of(hint.expression());
    }
    if (e instanceof ListOf list) {
      return "[" + join(list.items()) + "]";
    }
    if (e instanceof Unary unary) {
      if (unary.op() == UnaryOp.NOT && parenthesised(unary.span().start(), unary.operand())) {
        return "NOT(" + of(unary.operand()) + ")";
      }
      String operand = operand(unary.operand(), 1, false);
      return unary.op() == UnaryOp.NOT ? "NOT " + operand : "-" + operand;
    }
    if (e instanceof Binary binary) {
      int level = level(binary);
      String op = binary.op().symbol();
      if (binary.negated()) {
        op = "NOT " + op;
      }
      if (binary.quantifier() != Quantifier.NONE) {
        op = op + " " + binary.quantifier();
      }
      return operand(binary.left(), level, false)
          + " "
          + op
          + " "
          + operand(binary.right(), level, true);
    }
    if (e instanceof Expression.Chain chain) {
      int level = level(chain.op());
      StringBuilder out = new StringBuilder();
      for (int i = 0; i < chain.operands().size(); i++) {
        out.append(i == 0 ? "" : " " + chain.op().symbol() + " ")
            .append(operand(chain.operands().get(i), level, i > 0));
      }
      return out.toString();
    }
    if (e instanceof IsNull isNull) {
      return operand(isNull.operand(), 2, false) + (isNull.negated() ? " IS NOT NULL" : " IS NULL");
    }
    if (e instanceof In in) {
      String list =
          in.list() instanceof ListOf items
              ? "(" + join(items.items()) + ")"
              : operand(in.list(), 8, true);
      return operand(in.value(), 8, false) + (in.negated() ? " NOT IN " : " IN ") + list;
    }
    if (e instanceof Between between) {
      return operand(between.value(), 9, false)
          + (between.negated() ? " NOT BETWEEN (" : " BETWEEN (")
          + of(between.lower())
          + ", "
          + of(between.upper())
          + ")";
    }
    if (e instanceof Cast cast) {
      return "CAST(" + of(cast.operand()) + " AS " + cast.type() + ")";
    }
    if (e instanceof Distribution d) {
      String numbers = d.numbers().stream().map(n -> of(n)).collect(Collectors.joining(", "));
      return d.function() + "(" + of(d.value()) + ", " + d.mode() + ", " + numbers + ")";
    }
    Expression.Call call = (Expression.Call) e;
    if (call.star()) {
      return call.name() + "(*)";
    }
    return call.name() + "(" + (call.distinct() ? "DISTINCT " : "") + join(call.args()) + ")";
  }

  private String join(List<Expression> items) {
    return items.stream().map(this::of).collect(Collectors.joining(", "));
  }

  /**
   * An operand of an operator of {@code level}: in parentheses when it binds more loosely, or as
   * loosely on the right (operators associate to the left).
   */
  private String operand(Expression e, int level, boolean right) {
    int inner = level(e);
    String name = of(e);
    boolean needed = inner > level || (right && inner == level && inner > 1);
    return needed || written(e) ? "(" + name + ")" : name;
  }

  /** Whether the text has parentheses right around {@code e}. */
  private boolean written(Expression e) {
    int before = e.span().start() - 1;
    while (before >= 0 && Character.isWhitespace(text.charAt(before))) {
      before--;
    }
    int after = e.span().end();
    while (after < text.length() && Character.isWhitespace(text.charAt(after))) {
      after++;
    }
    return before >= 0
        && after < text.length()
        && text.charAt(before) == '('
        && text.charAt(after) == ')';
  }

  /** Whether {@code operand}, after the keyword starting at {@code from}, is in parentheses. */
  private boolean parenthesised(int from, Expression operand) {
    return operand.span().start() <= text.length()
        && text.substring(from, operand.span().start()).contains("(");
  }

  /** How loosely an expression binds: 0 for a primary, then as the grammar orders operators. */
  private static int level(Expression e) {
    if (e instanceof Unary) {
      return 1;
    }
    if (e instanceof IsNull) {
      return 2;
    }
    if (e instanceof In) {
      return 8;
    }
    if (e instanceof Between) {
      return 9;
    }
    if (e instanceof Binary binary) {
      return level(binary.op());
    }
    if (e instanceof Expression.Chain chain) {
      return level(chain.op());
    }
    return 0;
  }

  private static int level(BinaryOp op) {
    return switch (op) {
      case MULTIPLY, DIVIDE, MODULO -> 3;
      case ADD, SUBTRACT -> 4;
      case LESS, LESS_EQUAL, GREATER, GREATER_EQUAL -> 5;
      case EQUAL, NOT_EQUAL -> 6;
      case RLIKE -> 7;
      case AND -> 10;
      case XOR -> 11;
      default -> 12;
    };
  }
}
