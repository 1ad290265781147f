package io.spyglass.core.query;

import io.spyglass.core.partial.Partial;
import java.util.List;

/** Receives the partial results a {@link FilterSet} flushes. */
@FunctionalInterface
public interface PartialSink {
  /**
   * Takes the partial of one query. The partial is valid only during this call: the filter set
   * resets and reuses it afterwards, so merge it, encode it or copy it ({@code emptyCopy()} then
   * {@code merge}) before returning.
   */
  void accept(Query query, Partial partial);

  /**
   * Takes the partial of a query and of the queries that share its filter ({@link
   * FilterSet#shareIdentical}): the same records seen, so the same partial for each. The default
   * gives it to {@link #accept(Query, Partial)} once per query, which must then leave it as it
   * found it; a runtime that sends partials on encodes it once for them all.
   */
  default void accept(Query query, List<Query> sharers, Partial partial) {
    accept(query, partial);
    for (Query q : sharers) {
      accept(q, partial);
    }
  }

  /**
   * Told that a query threw while its records were evaluated, aggregated or flushed (or while it
   * was added): the filter set has dropped it, and the runtime should end it with the error (see
   * {@link QueryCombiner#fail(Throwable, long)}). Called outside the filter set's loops, so the
   * runtime may remove or add queries here. The default rethrows, for runtimes without isolation.
   */
  default void failed(Query query, Throwable error) {
    throw new IllegalStateException("Query " + query.id() + " failed", error);
  }
}
