package io.spyglass.core.plan;

import io.spyglass.core.record.Type;
import java.util.ArrayList;
import java.util.List;

/**
 * A constant. {@code value} is {@code null} (type NULL), a {@link Boolean}, {@link Integer}, {@link
 * Long}, {@link Float}, {@link Double} or {@link String}; or a {@link List} of those for a list
 * literal such as the right side of {@code IN}.
 */
public record Literal(Object value, Type type) implements Expr {
  public static final Literal NULL = new Literal(null, Type.NULL);
  public static final Literal TRUE = new Literal(Boolean.TRUE, Type.BOOLEAN);
  public static final Literal FALSE = new Literal(Boolean.FALSE, Type.BOOLEAN);

  public static Literal of(long v) {
    return new Literal(v, Type.LONG);
  }

  public static Literal of(int v) {
    return new Literal(v, Type.INTEGER);
  }

  public static Literal of(double v) {
    return new Literal(v, Type.DOUBLE);
  }

  public static Literal of(String v) {
    return new Literal(v, Type.STRING);
  }

  public static Literal of(boolean v) {
    return v ? TRUE : FALSE;
  }

  /**
   * The values of a constant list: a list literal, or {@link Op#LIST} of literals ({@code IN ('a',
   * 'b')}); null when {@code e} is not one. Items may be null.
   */
  public static List<?> listValues(Expr e) {
    if (e instanceof Literal && ((Literal) e).value() instanceof List) {
      return (List<?>) ((Literal) e).value();
    }
    if (e instanceof Call && ((Call) e).op() == Op.LIST) {
      List<Object> out = new ArrayList<>();
      for (Expr a : ((Call) e).args()) {
        if (!(a instanceof Literal)) {
          return null;
        }
        out.add(((Literal) a).value());
      }
      return out;
    }
    return null;
  }
}
