package io.spyglass.service.runtime;

import io.spyglass.core.run.CheckedQuery;
import java.util.Objects;

/**
 * A standing query to start at a checkpoint's cut ({@link QueryRuntime#checkpoint}): it sees
 * exactly the records after the cut, and its state at the cut (empty) is saved with the others.
 *
 * @param id its id, unique among the running queries
 * @param query its checked text
 * @param options its start and the state it resumes from
 * @param listener receives its results and checkpoint markers, then its end
 */
public record StandingStart(
    String id, CheckedQuery query, StandingOptions options, ResultListener listener) {
  public StandingStart {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(query, "query");
    Objects.requireNonNull(options, "options");
    Objects.requireNonNull(listener, "listener");
  }
}
