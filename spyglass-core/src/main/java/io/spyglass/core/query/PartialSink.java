package io.spyglass.core.query;

import io.spyglass.core.partial.Partial;

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
   * Told that a query threw while its records were evaluated, aggregated or flushed (or while it
   * was added): the filter set has dropped it, and the runtime should end it with the error (see
   * {@link QueryCombiner#fail(Throwable, long)}). Called outside the filter set's loops, so the
   * runtime may remove or add queries here. The default rethrows, for runtimes without isolation.
   */
  default void failed(Query query, Throwable error) {
    throw new IllegalStateException("Query " + query.id() + " failed", error);
  }
}
