package io.spyglass.service.runtime;

import io.spyglass.core.query.QueryStats;
import io.spyglass.core.result.Result;

/**
 * Receives one query's results and then its end, in order, on one runtime thread at a time. A
 * standing query's listener also receives its checkpoint markers, in order with its results. Its
 * calls must return at once: the thread that makes them serves every query.
 */
public interface ResultListener {
  void onResult(Result result);

  /**
   * A checkpoint's marker in a standing query's result stream: the results before it came from
   * records before the checkpoint's cut, and {@code marker}'s state has seen exactly those; the
   * results after it, from records after the cut. Nothing by default.
   */
  default void onCheckpoint(CheckpointMarker marker) {}

  /**
   * Whether it takes another result now. A standing query's listener that is not ready gets no
   * result until it is and says so ({@link QueryRuntime#resumeDelivery}); meanwhile its results
   * wait in the runtime, which stops reading its source rather than drop them, and the other
   * queries' results go on. Must return at once; always ready by default.
   */
  default boolean ready() {
    return true;
  }

  /**
   * The query ended: after its final result, or without one when it failed or the runtime stopped.
   *
   * @param error why it failed, or null when it ended normally
   * @param last its counters when it ended, or null when the runtime does not know them
   */
  void onEnd(String error, QueryStats last);

  /**
   * The error of a query whose results could not be handled because {@code t} was thrown while
   * handling them: the query is stopped, the others go on.
   */
  static String failure(Throwable t) {
    String what =
        t.getMessage() == null
            ? t.getClass().getSimpleName()
            : t.getClass().getSimpleName() + ": " + t.getMessage();
    return "The service could not handle this query's results ("
        + what
        + ") and stopped it; the other queries go on";
  }
}
