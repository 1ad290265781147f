package io.spyglass.core.query;

import static io.spyglass.core.record.Record.LIST;
import static io.spyglass.core.record.Record.MAP;
import static io.spyglass.core.record.Record.NULL;

import io.spyglass.core.exec.Eval;
import io.spyglass.core.exec.EvalStats;
import io.spyglass.core.exec.ExprCompiler;
import io.spyglass.core.partial.CountDistinctPartial;
import io.spyglass.core.partial.DistributionPartial;
import io.spyglass.core.partial.EventTimePartial;
import io.spyglass.core.partial.GroupPartial;
import io.spyglass.core.partial.Partial;
import io.spyglass.core.partial.RawPartial;
import io.spyglass.core.partial.TopKPartial;
import io.spyglass.core.plan.Aggregation;
import io.spyglass.core.plan.Expr;
import io.spyglass.core.plan.NamedExpr;
import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.plan.QueryPlan;
import io.spyglass.core.plan.Window;
import io.spyglass.core.record.Record;
import io.spyglass.core.record.Values;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The evaluation side of one query's filter in one partition of the stream: its compiled evaluators
 * and its partial state, made by its {@link QueryFilter} at the first record offered to it (a query
 * the index routes no record to holds none). Confined to one thread.
 *
 * <p>What only a matching record needs, the partial state and what feeds it, is made at the first
 * record that passes the filter: a query whose filter passes nothing (most of ten thousand needle
 * queries, each waiting for its id) holds its compiled filter only.
 */
final class QueryEvaluation {
  private final QueryPlan plan;
  private final QueryLimits limits;
  private final LongSupplier clock;
  private final int rawCapacity;

  /** Counts what its evaluators could not evaluate; made with them. */
  private EvalStats stats;

  private Eval where;

  /** Its lateral views. */
  private View[] views;

  /** The state records fed since the last flush; null until a record passed the filter. */
  private Partial partial;

  /** Feeds the state; null until a record passed the filter. */
  private Feeder feeder;

  /** The event time of event-time windows; null for other windows. */
  private Eval eventTime;

  /** A scratch copy of the record that lateral views explode; null without views. */
  private Record exploded;

  /** Records that passed its filter. */
  long matched;

  /**
   * @param plan what it evaluates
   * @param limits its limits (its own, or its filter set's)
   * @param clock the engine clock, read by {@code NOW()}
   */
  QueryEvaluation(QueryPlan plan, QueryLimits limits, LongSupplier clock) {
    this.plan = plan;
    this.limits = limits;
    this.clock = clock;
    if (plan.window() instanceof Window.EventTime) {
      this.rawCapacity = 0; // flushed like aggregations: its windows close on event time
    } else {
      this.rawCapacity =
          plan.aggregation() instanceof Aggregation.Raw ? PartialFactory.rawCapacity(plan) : 0;
    }
    compile();
  }

  /** Compiles the filter, its lateral views and its event time. */
  private void compile() {
    ExprCompiler compiler = new ExprCompiler(clock, evalStats());
    Eval w = plan.where().map(compiler::compile).orElse(null);
    View[] v =
        plan.lateralViews().isEmpty()
            ? NO_VIEWS
            : plan.lateralViews().stream()
                .map(
                    view ->
                        new View(
                            compiler.compile(view.source()),
                            view.alias(),
                            view.valueAlias().orElse(null),
                            view.outer()))
                .toArray(View[]::new);
    Eval time = plan.window() instanceof Window.EventTime et ? compiler.compile(et.time()) : null;
    this.where = w;
    this.views = v;
    this.eventTime = time;
    this.exploded = v.length == 0 ? null : new Record(32);
  }

  private EvalStats evalStats() {
    if (stats == null) {
      stats = new EvalStats();
    }
    return stats;
  }

  /** What its evaluators could not evaluate (a value NULL for a record instead) so far. */
  long errors() {
    return stats == null ? 0 : stats.errors();
  }

  /** Its state since the last flush; null when no record has passed the filter yet. */
  Partial partial() {
    return partial;
  }

  /** Its state since the last flush, made empty when no record has passed the filter yet. */
  Partial state() {
    if (partial == null) {
      makeState();
    }
    return partial;
  }

  /** Whether records fed its state since the last flush: there is something to flush. */
  boolean hasState() {
    return partial != null && !partial.isEmpty();
  }

  /** Makes the state and its feeder, at the first record that passed the filter. */
  private void makeState() {
    Partial state = PartialFactory.create(plan, limits);
    ExprCompiler compiler = new ExprCompiler(clock, evalStats());
    this.partial =
        plan.window() instanceof Window.EventTime w
            ? new EventTimePartial(w.sizeMs(), state)
            : state;
    this.feeder = feeder(plan.aggregation(), compiler);
  }

  /**
   * Windows an event-time partial may hold before it is flushed: records with times far apart (a
   * replay of old data) cannot grow one batch's state without bound.
   */
  static final int MAX_WINDOWS_PER_FLUSH = 256;

  boolean isRaw() {
    return rawCapacity > 0;
  }

  /** What {@link #consume} did with a record. */
  static final int SKIPPED = 0, MATCHED = 1, FULL = 2;

  /**
   * Offers one record. {@code record} is valid only during this call.
   *
   * @return {@link #SKIPPED}, {@link #MATCHED}, or {@link #FULL} when the partial is full and must
   *     be flushed before the next record
   */
  int consume(Record record) {
    if (views.length == 0) {
      return accept(record);
    }
    exploded.clear();
    for (int j = 0; j < record.size(); j++) {
      exploded.putFrom(record.nameAt(j), record, j);
    }
    exploded.sameSourceAs(record);
    return explode(0);
  }

  private int accept(Record r) {
    if (where != null) {
      int k = where.eval(r);
      if (k != Record.BOOLEAN || where.l == 0) {
        return SKIPPED;
      }
    }
    matched++;
    if (partial == null) {
      makeState();
    }
    if (eventTime != null) {
      return acceptByTime(r);
    }
    feeder.feed(r, partial);
    return rawCapacity > 0 && ((RawPartial) partial).size() >= rawCapacity ? FULL : MATCHED;
  }

  /** Feeds the window of the record's event time; a record without a usable one is counted. */
  private int acceptByTime(Record r) {
    EventTimePartial windows = (EventTimePartial) partial;
    int k = eventTime.eval(r);
    long timeMs;
    if (k == Record.INTEGER || k == Record.LONG) {
      timeMs = eventTime.l;
    } else if ((k == Record.FLOAT || k == Record.DOUBLE) && Double.isFinite(eventTime.d)) {
      timeMs = (long) Math.floor(eventTime.d);
    } else {
      windows.noTime();
      return MATCHED;
    }
    feeder.feed(r, windows.window(timeMs).state());
    return windows.windows().size() >= MAX_WINDOWS_PER_FLUSH ? FULL : MATCHED;
  }

  /**
   * Applies lateral view {@code i} and the following ones to the scratch copy of the record: each
   * level overwrites only its own aliases, so one scratch record serves every combination.
   *
   * @return the strongest outcome over the exploded records, as {@link #consume}
   */
  private int explode(int i) {
    if (i == views.length) {
      return accept(exploded);
    }
    View v = views[i];
    int k = v.source.eval(exploded);
    int outcome = SKIPPED;
    boolean any = false;
    if (k == LIST) {
      for (Object item : (List<?>) v.source.o) {
        any = true;
        exploded.put(v.alias, item);
        outcome = Math.max(outcome, explode(i + 1));
      }
    } else if (k == MAP) {
      for (Map.Entry<?, ?> e : ((Map<?, ?>) v.source.o).entrySet()) {
        any = true;
        exploded.put(v.alias, e.getKey());
        if (v.valueAlias != null) {
          exploded.put(v.valueAlias, e.getValue());
        }
        outcome = Math.max(outcome, explode(i + 1));
      }
    }
    if (any || !v.outer) {
      return outcome;
    }
    exploded.putNull(v.alias);
    if (v.valueAlias != null) {
      exploded.putNull(v.valueAlias);
    }
    return explode(i + 1);
  }

  private record View(Eval source, String alias, String valueAlias, boolean outer) {}

  private static final View[] NO_VIEWS = new View[0];

  // ------------------------------------------------------------------ feeders

  /** Feeds a record to a state of the query's aggregation (its own, or an event-time window's). */
  private interface Feeder {
    void feed(Record r, Partial state);
  }

  private static Feeder feeder(Aggregation agg, ExprCompiler compiler) {
    if (agg instanceof Aggregation.Raw) {
      return rawFeeder((Aggregation.Raw) agg, compiler);
    } else if (agg instanceof Aggregation.Group) {
      return new GroupFeeder((Aggregation.Group) agg, compiler);
    } else if (agg instanceof Aggregation.CountDistinct) {
      Eval[] fields = compileAll(((Aggregation.CountDistinct) agg).fields(), compiler);
      return (r, state) -> ((CountDistinctPartial) state).update(tupleHash(fields, r));
    } else if (agg instanceof Aggregation.Distribution) {
      Eval value = compiler.compile(((Aggregation.Distribution) agg).value());
      return (r, state) -> {
        int k = value.eval(r);
        if (Values.isNumeric((byte) k)) {
          ((DistributionPartial) state).update(value.asDouble(k));
        }
      };
    } else {
      Aggregation.TopK t = (Aggregation.TopK) agg;
      Eval[] fields = compileNamed(t.fields(), compiler);
      Object[] scratch = new Object[fields.length];
      return (r, state) -> {
        for (int i = 0; i < fields.length; i++) {
          scratch[i] = fields[i].boxed(fields[i].eval(r));
        }
        ((TopKPartial) state).update(scratch);
      };
    }
  }

  private static Feeder rawFeeder(Aggregation.Raw raw, ExprCompiler compiler) {
    if (raw.projection().isEmpty()) {
      return (r, state) -> ((RawPartial) state).add(r.toFullMap());
    }
    List<NamedExpr> items = raw.projection().get();
    Eval[] evals = compileNamed(items, compiler);
    String[] names = items.stream().map(NamedExpr::name).toArray(String[]::new);
    return (r, state) -> {
      RawPartial rp = (RawPartial) state;
      if (rp.isFull()) {
        return;
      }
      Map<String, Object> out = new LinkedHashMap<>(names.length * 2);
      for (int i = 0; i < evals.length; i++) {
        int k = evals[i].eval(r);
        if (k != NULL) {
          out.put(names[i], evals[i].boxed(k));
        }
      }
      rp.add(out);
    };
  }

  static long tupleHash(Eval[] fields, Record r) {
    long h = 0;
    for (Eval f : fields) {
      h = Values.combine(h, f.hash(f.eval(r)));
    }
    return h;
  }

  private static Eval[] compileAll(List<Expr> exprs, ExprCompiler compiler) {
    return exprs.stream().map(compiler::compile).toArray(Eval[]::new);
  }

  private static Eval[] compileNamed(List<NamedExpr> exprs, ExprCompiler compiler) {
    return exprs.stream().map(e -> compiler.compile(e.expr())).toArray(Eval[]::new);
  }

  private static final class GroupFeeder implements Feeder {
    private final Eval[] keys;
    private final Object[] scratch;
    private final Aggregation.MetricKind[] kinds;
    private final Eval[][] args;

    GroupFeeder(Aggregation.Group group, ExprCompiler compiler) {
      this.keys = compileNamed(group.keys(), compiler);
      this.scratch = new Object[keys.length];
      List<Aggregation.Metric> metrics = group.metrics();
      this.kinds = new Aggregation.MetricKind[metrics.size()];
      this.args = new Eval[metrics.size()][];
      for (int i = 0; i < kinds.length; i++) {
        kinds[i] = metrics.get(i).kind();
        args[i] = compileAll(metrics.get(i).arguments(), compiler);
      }
    }

    @Override
    public void feed(Record r, Partial state) {
      GroupPartial partial = (GroupPartial) state;
      for (int i = 0; i < keys.length; i++) {
        int k = keys[i].eval(r);
        if (k == MAP || k == LIST) {
          return; // as Bullet: a record whose key is not a primitive joins no group
        }
        scratch[i] = keys[i].boxed(k);
      }
      int slot = partial.group(scratch);
      if (slot < 0) {
        return;
      }
      for (int i = 0; i < kinds.length; i++) {
        Aggregation.MetricKind kind = kinds[i];
        if (kind == Aggregation.MetricKind.COUNT && args[i].length == 0) {
          partial.count(slot, i);
          continue;
        }
        if (kind == Aggregation.MetricKind.COUNT_DISTINCT) {
          partial.distinct(slot, i, tupleHash(args[i], r));
          continue;
        }
        Eval arg = args[i][0];
        int k = arg.eval(r);
        if (k == NULL) {
          continue;
        }
        if (kind == Aggregation.MetricKind.COUNT) {
          partial.count(slot, i);
          continue;
        }
        if (!Values.isNumeric((byte) k)) {
          continue;
        }
        double v = arg.asDouble(k);
        switch (kind) {
          case SUM:
          case AVG:
            partial.add(slot, i, v);
            break;
          case MIN:
            partial.min(slot, i, v);
            break;
          default:
            partial.max(slot, i, v);
        }
      }
    }
  }
}
