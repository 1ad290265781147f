package io.spyglass.core.query;

import io.spyglass.core.partial.Partial;
import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.record.Record;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The filter side of one query in one partition of the stream: its place in its {@link FilterSet}
 * and, from the first record offered to it, its {@link QueryEvaluation} (compiled evaluators and
 * partial state). Records go in through {@link #consume}; the partial is flushed by the owning
 * {@link FilterSet}. Confined to one thread.
 *
 * <p>A query that the index routes no record to in this partition (a needle query whose id has not
 * come: most of ten thousand) holds no evaluators in it, only this and its place in the index; each
 * worker has one of these for each query, so it keeps to what an idle query needs.
 */
final class QueryFilter {
  /**
   * The query evaluated here; when it shares its filter ({@link FilterSet#shareIdentical}) and
   * leaves first, the next of {@link #sharers} takes its place (same plan, same limits).
   */
  Query query;

  /**
   * The other queries that share this filter's evaluation and partials, in the order they came;
   * empty unless the filter set shares identical queries. Read-only: {@link #share} adds one (a
   * list of its own made at the first, none for the filters of ten thousand distinct queries).
   */
  List<Query> sharers = NO_SHARERS;

  private static final List<Query> NO_SHARERS = List.of();

  /** Its evaluators and state; null until a record is offered to it. */
  private QueryEvaluation evaluation;

  /**
   * What the filters of one filter set share, one object for all of them (not two fields in each of
   * ten thousand filters per worker).
   *
   * @param limits the limits of a query that has none of its own ({@link Query#limitsOr})
   * @param clock the engine clock, read by {@code NOW()}
   */
  record Env(QueryLimits limits, LongSupplier clock) {}

  /** Whether the filter set has this raw query on its list to flush at the end of the batch. */
  boolean dirty;

  /** Whether the filter set has this query on its list of those offered records since a flush. */
  boolean offeredSinceFlush;

  /** The same, since its last statistics snapshot. */
  boolean offeredSinceStats;

  /** Whether this query threw and waits to be dropped by its filter set. */
  boolean failed;

  /** This query's position in the filter set's statistics snapshots. */
  int statsSlot;

  /** Records processed by the filter set when this query joined; for "records seen". */
  long seenBase;

  QueryFilter(Query query) {
    this.query = query;
  }

  /** {@code query} shares this filter from now on, after the others. */
  void share(Query query) {
    if (sharers == NO_SHARERS) {
      sharers = new ArrayList<>(2);
    }
    sharers.add(query);
  }

  /** Whether its filter is compiled: a record was offered to it here. For tests. */
  boolean isCompiled() {
    return evaluation != null;
  }

  /** Records that passed its filter. */
  long matched() {
    return evaluation == null ? 0 : evaluation.matched;
  }

  /** What its evaluators could not evaluate (a value NULL for a record instead) so far. */
  long errors() {
    return evaluation == null ? 0 : evaluation.errors();
  }

  /** Its state since the last flush; null when no record has passed the filter yet. */
  Partial partial() {
    return evaluation == null ? null : evaluation.partial();
  }

  /** Whether records fed its state since the last flush: there is something to flush. */
  boolean hasState() {
    return evaluation != null && evaluation.hasState();
  }

  /** Whether it keeps records, flushed when its partial fills or its batch ends. */
  boolean isRaw() {
    return evaluation != null && evaluation.isRaw();
  }

  /**
   * Offers one record, compiling the filter at the first. {@code record} is valid only during this
   * call.
   *
   * @param env its filter set's limits and clock
   * @return {@link QueryEvaluation#SKIPPED}, {@link QueryEvaluation#MATCHED}, or {@link
   *     QueryEvaluation#FULL} when the partial is full and must be flushed before the next record
   */
  int consume(Record record, Env env) {
    QueryEvaluation e = evaluation;
    if (e == null) {
      e = evaluation = new QueryEvaluation(query.plan(), query.limitsOr(env.limits()), env.clock());
    }
    return e.consume(record);
  }
}
