package io.spyglass.core.plan;

import io.spyglass.core.syntax.BqlException;
import io.spyglass.core.syntax.QueryParser;

/**
 * The BQL front end: compiles query text to a validated {@link QueryPlan} and prints a plan back as
 * canonical BQL. Stateless and thread-safe.
 *
 * <p>{@code compile(print(plan), limits)} equals {@code plan} for every plan compiled with the same
 * {@code limits}.
 */
public final class Bql {
  private Bql() {}

  /**
   * Parses, binds and validates a query.
   *
   * @throws BqlException with every error found, each with its span, message and resolution
   */
  public static QueryPlan compile(String text, QueryLimits limits) {
    io.spyglass.core.syntax.Select query = QueryParser.parse(text, limits.maxQueryLength());
    return new Binder(limits, text).bindStatement(query);
  }

  /** {@link #compile(String, QueryLimits)} with {@link QueryLimits#DEFAULTS}. */
  public static QueryPlan compile(String text) {
    return compile(text, QueryLimits.DEFAULTS);
  }

  /**
   * The canonical BQL text of a plan: keywords in upper case, every column named with {@code AS},
   * durations in milliseconds, LIMIT explicit.
   */
  public static String print(QueryPlan plan) {
    return BqlPrinter.print(plan);
  }

  /**
   * The plan written for people: as {@link #print(QueryPlan)}, but a column named only when its
   * name is not the default one, durations with a unit ({@code 10s}, {@code 5m}), and LIMIT only
   * when it is not the default. {@code compile(format(plan, limits), limits)} equals {@code plan};
   * where the shorter text would not compile back to it, the canonical text is given.
   */
  public static String format(QueryPlan plan, QueryLimits limits) {
    for (BqlPrinter.Style style :
        new BqlPrinter.Style[] {BqlPrinter.Style.TIDY, BqlPrinter.Style.TIDY_WITH_LIMIT}) {
      String text = BqlPrinter.print(plan, style);
      try {
        if (compile(text, limits).equals(plan)) {
          return text;
        }
      } catch (BqlException e) {
        // not this one: try the next, longer form
      }
    }
    return print(plan);
  }

  /**
   * A window in canonical BQL, as written after {@code WINDOWING} ({@code TUMBLING(1000, TIME)});
   * null for {@link Window#NONE}.
   */
  public static String print(Window window) {
    return BqlPrinter.windowName(window);
  }
}
