package io.spyglass.core.plan;

import io.spyglass.core.syntax.Select;

/** Binds the duration of {@code FROM STREAM(...)} and the {@code WINDOWING} clause. */
final class WindowBinder {
  /** Most panes (size / emit) of a time-based sliding window: each pane holds a partial. */
  static final int MAX_PANES = 1_000;

  private final BindContext cx;

  WindowBinder(BindContext cx) {
    this.cx = cx;
  }

  long duration(Select query) {
    Select.Stream stream = (Select.Stream) query.source();
    if (stream.duration().isEmpty()) {
      return cx.limits.defaultDurationMs();
    }
    Select.Duration d = stream.duration().get();
    if (d.forever()) {
      return QueryPlan.FOREVER;
    }
    if (d.max()) {
      return QueryPlan.UNBOUNDED;
    }
    if (d.millis() <= 0) {
      cx.error(d.span(), "The duration must be positive", "Give a duration such as 30000 or 30s");
      return cx.limits.defaultDurationMs();
    }
    // Longer than allowed: capped, as for STREAM(MAX, TIME).
    return Math.min(d.millis(), cx.limits.maxDurationMs());
  }

  /**
   * @param raw whether the query returns raw records, the only kind record windows are for
   * @param outer whether this is an outer query, which has no window of its own
   */
  Window window(Select query, boolean raw, boolean outer) {
    if (query.window().isEmpty()) {
      return Window.NONE;
    }
    Select.WindowClause clause = query.window().get();
    if (outer) {
      cx.error(
          clause.span(),
          "An outer query cannot have a WINDOWING clause",
          "Put the WINDOWING clause in the inner query");
      return Window.NONE;
    }
    if (clause instanceof Select.Tumbling tumbling) {
      Select.Amount size = tumbling.size();
      return amount(size, raw) ? new Window.Tumbling(size.value(), unit(size.unit())) : Window.NONE;
    }
    if (clause instanceof Select.EventTimeTumbling eventTime) {
      return eventTime(eventTime);
    }
    Select.Every every = (Select.Every) clause;
    Select.Amount emit = every.emit();
    if (!amount(emit, raw)) {
      return Window.NONE;
    }
    if (every.first().isEmpty()) {
      if (emit.unit() == Select.Unit.RECORD) {
        cx.error(
            every.span(),
            "EVERY(n, RECORD, ALL) is not supported",
            "Use EVERY(ms, TIME, ALL), or EVERY(n, RECORD, FIRST, n, RECORD)");
        return Window.NONE;
      }
      return new Window.Additive(emit.value());
    }
    Select.Amount size = every.first().get();
    if (!amount(size, raw) || !sliding(every, emit, size)) {
      return Window.NONE;
    }
    return new Window.Sliding(emit.value(), unit(emit.unit()), size.value(), unit(size.unit()));
  }

  /**
   * {@code TUMBLING(size, EVENT_TIME(time), LATENESS lateness)}: a positive size, and at most
   * {@link #MAX_PANES} windows open at once (the lateness spans at most that many sizes). The size
   * is not bound by the clock's limits: event time is the records'.
   */
  private Window eventTime(Select.EventTimeTumbling clause) {
    Expr time = cx.bindRecord(clause.time(), "inside EVENT_TIME");
    cx.expressions.requireNumeric(time, clause.time().span(), "EVENT_TIME");
    Select.Amount size = clause.size();
    long lateness = clause.lateness().map(Select.Amount::value).orElse(0L);
    boolean ok = true;
    if (size.value() < 1) {
      cx.error(
          size.span(), "An event-time window must be at least 1 ms long", "Use a size such as 1h");
      ok = false;
    }
    if (ok && lateness / size.value() >= MAX_PANES) {
      Select.Amount late = clause.lateness().get();
      cx.error(
          late.span(),
          "A LATENESS of "
              + lateness
              + " ms keeps more than "
              + MAX_PANES
              + " windows of "
              + size.value()
              + " ms open at once",
          "Use a LATENESS below " + MAX_PANES * size.value() + " ms, or longer windows");
      ok = false;
    }
    return ok ? new Window.EventTime(size.value(), time, lateness) : Window.NONE;
  }

  /** Checks a window that emits every {@code emit} and holds the last {@code size}. */
  private boolean sliding(Select.Every every, Select.Amount emit, Select.Amount size) {
    if (size.unit() != emit.unit()) {
      cx.error(
          every.span(),
          "A window must emit and include in the same unit",
          "Use TIME for both or RECORD for both");
      return false;
    }
    if (emit.unit() == Select.Unit.RECORD && size.value() != emit.value()) {
      cx.error(
          size.span(),
          "A record window must include as many records as it emits every",
          "Use EVERY(" + emit.value() + ", RECORD, FIRST, " + emit.value() + ", RECORD)");
      return false;
    }
    if (size.value() < emit.value() || size.value() % emit.value() != 0) {
      cx.error(
          size.span(),
          "A sliding window's size must be a multiple of its emit period",
          "Use a size of " + emit.value() + " times a whole number, e.g. " + 2 * emit.value());
      return false;
    }
    if (size.value() / emit.value() > MAX_PANES) {
      cx.error(
          size.span(),
          "A sliding window keeps one pane per emit period, and "
              + size.value() / emit.value()
              + " panes is more than the "
              + MAX_PANES
              + " allowed",
          "Emit less often or use a shorter size: at most "
              + MAX_PANES
              + " emit periods per window, e.g. EVERY("
              + Math.max(emit.value(), size.value() / MAX_PANES)
              + ", TIME, FIRST, "
              + size.value()
              + ", TIME)");
      return false;
    }
    return true;
  }

  private boolean amount(Select.Amount amount, boolean raw) {
    if (amount.unit() == Select.Unit.RECORD) {
      if (!raw) {
        cx.error(
            amount.span(),
            "RECORD windows are only supported for queries of raw records",
            "Use a TIME window, or remove the aggregation");
        return false;
      }
      if (amount.value() < 1) {
        cx.error(amount.span(), "A record window needs at least 1 record", "Use a positive count");
        return false;
      }
      return true;
    }
    long min = cx.limits.minWindowEmitMs();
    if (amount.value() < min) {
      cx.error(
          amount.span(),
          "A time window must be at least " + min + " ms long",
          "Use a window of " + min + " ms or more");
      return false;
    }
    if (amount.value() > cx.limits.maxDurationMs()) {
      cx.error(
          amount.span(),
          "A time window cannot be longer than the longest query, "
              + cx.limits.maxDurationMs()
              + " ms",
          "Use a shorter window");
      return false;
    }
    return true;
  }

  private static Window.Unit unit(Select.Unit unit) {
    return unit == Select.Unit.TIME ? Window.Unit.TIME : Window.Unit.RECORD;
  }
}
