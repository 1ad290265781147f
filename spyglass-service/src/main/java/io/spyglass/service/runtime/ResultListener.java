package io.spyglass.service.runtime;

import io.spyglass.core.query.QueryStats;
import io.spyglass.core.result.Result;

/** Receives one query's results and then its end, in order, on one runtime thread at a time. */
public interface ResultListener {
  void onResult(Result result);

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
