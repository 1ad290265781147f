package io.spyglass.sinks;

import io.spyglass.core.result.Meta;
import io.spyglass.core.result.Result;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Results as a query emits them, for tests. */
final class Results {
  private Results() {}

  /** Window {@code n} of a tumbling clock window, with one record {@code {"n": n}}. */
  static Result window(String id, long n, boolean isFinal) {
    return new Result(
        List.<Map<String, Object>>of(Map.of("n", n)),
        new Meta(
            id,
            "SELECT COUNT(*) AS n FROM STREAM(10s, TIME) WINDOWING TUMBLING(1000, TIME)",
            1_000L,
            isFinal ? Optional.of(1_000L + n * 1000) : Optional.empty(),
            Optional.of(
                new Meta.WindowMeta(n, "TUMBLING(1000, TIME)", 1_000L + n * 1000, n * 1000, 1)),
            Map.of(),
            List.of(),
            isFinal));
  }

  /** The one result of a query without a window. */
  static Result whole(String id) {
    return new Result(
        List.<Map<String, Object>>of(Map.of("n", 7L)),
        new Meta(
            id,
            "SELECT COUNT(*) AS n FROM STREAM(1s, TIME)",
            1_000L,
            Optional.of(2_000L),
            Optional.empty(),
            Map.of(),
            List.of(),
            true));
  }

  /** A late update of event-time window {@code n}, the query having {@code lateSoFar} late. */
  static Result lateUpdate(String id, long n, long lateSoFar) {
    return new Result(
        List.of(),
        new Meta(
            id,
            "SELECT COUNT(*) AS n FROM STREAM(FOREVER) WINDOWING TUMBLING(1000, EVENT_TIME(ts))",
            1_000L,
            Optional.empty(),
            Optional.of(
                new Meta.WindowMeta(
                    n,
                    "TUMBLING(1000, EVENT_TIME(ts))",
                    5_000L,
                    n * 1000,
                    0,
                    Optional.of(new Meta.EventWindow(n * 1000 + 1000, true, 1, true)))),
            Map.of(),
            List.of(),
            false,
            Map.of(),
            Optional.of(
                new Meta.EventTimeMeta(Optional.of(9_000L), Optional.of(9_000L), lateSoFar, 0))));
  }
}
