package io.spyglass.core.query;

import io.spyglass.core.plan.Call;
import io.spyglass.core.plan.Expr;
import io.spyglass.core.plan.FieldRef;
import io.spyglass.core.plan.Literal;
import io.spyglass.core.plan.Op;
import io.spyglass.core.plan.QueryPlan;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The queries whose filter bounds one numeric field ({@code duration > 500}, {@code x <= 3}, {@code
 * t BETWEEN (a, b)}, as the whole filter or one of its conjuncts), sorted by their bounds so that a
 * record reaches only those whose interval can hold its value. Bounds are taken as inclusive, so
 * the candidates are a superset of the matches; each candidate still evaluates its whole filter.
 *
 * <p>Not thread-safe. Sorting is deferred to the first lookup after a change, so adding thousands
 * of queries between two records sorts once.
 */
final class RangeIndex {
  /** The interval a query's filter allows on a field; infinite ends are open. */
  record Range(String field, double lo, double hi) {}

  private record Entry(QueryFilter filter, double lo, double hi) {}

  private final List<Entry> entries = new ArrayList<>();
  private boolean sorted = true;

  /** Queries bounded below only, by ascending lower bound. */
  private QueryFilter[] upward = new QueryFilter[0];

  private double[] upwardLo = new double[0];

  /** Queries bounded above only, by ascending upper bound. */
  private QueryFilter[] downward = new QueryFilter[0];

  private double[] downwardHi = new double[0];

  /** Queries bounded on both sides, by ascending lower bound; widest interval. */
  private QueryFilter[] bounded = new QueryFilter[0];

  private double[] boundedLo = new double[0];
  private double maxWidth;

  /** The range a plan's filter puts on one numeric field, if any. */
  static Optional<Range> rangeOf(QueryPlan plan) {
    if (!plan.lateralViews().isEmpty() || plan.where().isEmpty()) {
      return Optional.empty();
    }
    return Optional.ofNullable(find(plan.where().get()));
  }

  private static Range find(Expr e) {
    if (!(e instanceof Call)) {
      return null;
    }
    Call c = (Call) e;
    switch (c.op()) {
      case AND:
        for (Expr conjunct : c.args()) {
          Range range = find(conjunct);
          if (range != null) {
            return range;
          }
        }
        return null;
      case GT:
      case GE:
      case LT:
      case LE:
        if (isField(c.arg(0)) && isNumber(c.arg(1))) {
          return bound(field(c.arg(0)), c.op(), number(c.arg(1)));
        }
        if (isNumber(c.arg(0)) && isField(c.arg(1))) {
          return bound(field(c.arg(1)), flip(c.op()), number(c.arg(0)));
        }
        return null;
      case BETWEEN:
        if (isField(c.arg(0)) && isNumber(c.arg(1)) && isNumber(c.arg(2))) {
          return new Range(field(c.arg(0)), number(c.arg(1)), number(c.arg(2)));
        }
        return null;
      default:
        return null;
    }
  }

  private static Range bound(String field, Op op, double v) {
    if (Double.isNaN(v)) {
      return null;
    }
    return op == Op.GT || op == Op.GE
        ? new Range(field, v, Double.POSITIVE_INFINITY)
        : new Range(field, Double.NEGATIVE_INFINITY, v);
  }

  private static Op flip(Op op) {
    switch (op) {
      case GT:
        return Op.LT;
      case GE:
        return Op.LE;
      case LT:
        return Op.GT;
      default:
        return Op.GE;
    }
  }

  private static boolean isField(Expr e) {
    return e instanceof FieldRef && !((FieldRef) e).hinted();
  }

  private static String field(Expr e) {
    return ((FieldRef) e).name();
  }

  private static boolean isNumber(Expr e) {
    return e instanceof Literal && ((Literal) e).value() instanceof Number;
  }

  private static double number(Expr e) {
    return ((Number) ((Literal) e).value()).doubleValue();
  }

  void add(QueryFilter filter, Range range) {
    entries.add(new Entry(filter, range.lo(), range.hi()));
    sorted = false;
  }

  void remove(QueryFilter filter) {
    sorted &= !entries.removeIf(e -> e.filter() == filter);
  }

  boolean isEmpty() {
    return entries.isEmpty();
  }

  /** Offers {@code v}'s candidates to {@code sink}; NaN reaches every query here. */
  void candidates(double v, Sink sink) {
    if (!sorted) {
      sort();
    }
    if (Double.isNaN(v)) {
      for (Entry e : entries) {
        sink.offer(e.filter());
      }
      return;
    }
    for (int i = 0, n = upperBound(upwardLo, v); i < n; i++) {
      sink.offer(upward[i]);
    }
    for (int i = lowerBound(downwardHi, v); i < downward.length; i++) {
      sink.offer(downward[i]);
    }
    for (int i = lowerBound(boundedLo, Math.nextDown(v - maxWidth)), n = upperBound(boundedLo, v);
        i < n;
        i++) {
      sink.offer(bounded[i]);
    }
  }

  /** Whether some query here could hold {@code v}: {@link #candidates} would offer one. */
  boolean mayHold(double v) {
    if (!sorted) {
      sort();
    }
    if (Double.isNaN(v)) {
      return !entries.isEmpty();
    }
    if (upperBound(upwardLo, v) > 0 || lowerBound(downwardHi, v) < downward.length) {
      return true;
    }
    return upperBound(boundedLo, v) > lowerBound(boundedLo, Math.nextDown(v - maxWidth));
  }

  /** Receives candidates. */
  interface Sink {
    void offer(QueryFilter filter);
  }

  private void sort() {
    List<Entry> up = new ArrayList<>();
    List<Entry> down = new ArrayList<>();
    List<Entry> both = new ArrayList<>();
    maxWidth = 0;
    for (Entry e : entries) {
      if (e.hi() == Double.POSITIVE_INFINITY) {
        up.add(e);
      } else if (e.lo() == Double.NEGATIVE_INFINITY) {
        down.add(e);
      } else {
        both.add(e);
        // rounded up: hi - lo rounds to the nearest double, which can be less than the width
        // (2^53 - (-1)), and a value at the top of the interval would then find no candidate
        maxWidth = Math.max(maxWidth, Math.nextUp(e.hi() - e.lo()));
      }
    }
    up.sort(Comparator.comparingDouble(Entry::lo));
    down.sort(Comparator.comparingDouble(Entry::hi));
    both.sort(Comparator.comparingDouble(Entry::lo));
    upward = up.stream().map(Entry::filter).toArray(QueryFilter[]::new);
    upwardLo = up.stream().mapToDouble(Entry::lo).toArray();
    downward = down.stream().map(Entry::filter).toArray(QueryFilter[]::new);
    downwardHi = down.stream().mapToDouble(Entry::hi).toArray();
    bounded = both.stream().map(Entry::filter).toArray(QueryFilter[]::new);
    boundedLo = both.stream().mapToDouble(Entry::lo).toArray();
    sorted = true;
  }

  /** The first index whose value is >= v. */
  private static int lowerBound(double[] a, double v) {
    int lo = 0;
    int hi = a.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (a[mid] < v) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** The first index whose value is > v. */
  private static int upperBound(double[] a, double v) {
    int lo = 0;
    int hi = a.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (a[mid] <= v) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  @Override
  public String toString() {
    return "RangeIndex"
        + Arrays.toString(new int[] {upward.length, downward.length, bounded.length});
  }
}
