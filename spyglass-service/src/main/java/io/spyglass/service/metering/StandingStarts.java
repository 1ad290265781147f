package io.spyglass.service.metering;

import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.run.CheckedQuery;
import io.spyglass.service.auth.User;
import io.spyglass.service.runtime.QueryRuntime;
import io.spyglass.service.runtime.StandingOptions;
import io.spyglass.sinks.QuerySinks;
import io.spyglass.sinks.SinkSpec;
import io.spyglass.sinks.Sinks;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a standing query comes to be: restored from its stored row at a start (running again from its
 * saved state, or stopped as it was, with its windows), or defined now (it starts at the next
 * checkpoint's cut); with its sinks. Owning thread only.
 */
final class StandingStarts {
  private static final Logger LOG = LoggerFactory.getLogger(StandingStarts.class);

  private final QueryRuntime runtime;
  private final QueryLimits limits;
  private final StandingQueries.Limits standing;
  private final String tenantField;
  private final Sinks sinks;
  private final StandingWindows windows;
  private final StandingCheckpoints checkpoints;
  private final LongSupplier clock;
  private final StandingActor actor;
  private final StandingActor.Stream stream;

  /** Those being defined, waiting for the checkpoint they start at, by name. */
  private final Map<String, StandingQuery> starting = new LinkedHashMap<>();

  StandingStarts(
      QueryRuntime runtime,
      QueryLimits limits,
      StandingQueries.Limits standing,
      Sinks sinks,
      StandingWindows windows,
      StandingCheckpoints checkpoints,
      LongSupplier clock,
      StandingActor actor,
      StandingActor.Stream stream) {
    this.runtime = runtime;
    this.limits = limits;
    this.standing = standing;
    this.tenantField = standing.tenantField();
    this.sinks = sinks;
    this.windows = windows;
    this.checkpoints = checkpoints;
    this.clock = clock;
    this.actor = actor;
    this.stream = stream;
  }

  /**
   * A stored query, running again from its saved state on the runtime (which reads nothing yet), or
   * stopped: as it was stored, or because it cannot run any more (the error says why).
   */
  StandingQuery restored(StandingStore.Stored st) {
    StandingQuery q = new StandingQuery(st, limits, tenantField);
    q.sinks = sinksOf(q);
    if (st.error() != null) {
      q.error = st.error();
      windows.openWindowsOf(q, st.state());
      return q;
    }
    try {
      runtime.submitStanding(
          q.id(),
          q.checked(),
          new StandingOptions(st.createdMs(), st.state()),
          actor.listener(q, stream));
      q.started = true;
    } catch (RuntimeException e) {
      q.error = "cannot restart: " + e.getMessage();
      LOG.error("standing query {} cannot restart: {}", st.name(), e.getMessage());
    }
    return q;
  }

  /**
   * Defines a standing query now: it starts at the cut of the checkpoint that writes it, and is put
   * in {@code queries} there.
   *
   * @param checked its text, checked under the standing queries' limits
   * @param maxGroups the exact groups a window of it keeps, fixed from now on
   * @return completes, on the owning thread, with the query once its checkpoint is written; fails
   *     with {@link StandingQueries.Refused} 503 when that checkpoint could not save every running
   *     query (it is not kept)
   * @throws StandingQueries.Refused 409 when the name is taken, 403 when {@code by} has as many
   *     standing queries as one user may
   */
  CompletableFuture<StandingQuery> define(
      String name,
      CheckedQuery checked,
      List<SinkSpec> sinkSpecs,
      User by,
      int maxGroups,
      Map<String, StandingQuery> queries) {
    if (queries.containsKey(name) || starting.containsKey(name)) {
      throw new StandingQueries.Refused(409, "A standing query named " + name + " exists");
    }
    long mine =
        Stream.concat(queries.values().stream(), starting.values().stream())
            .filter(q -> q.owner().equals(by.name()))
            .count();
    StandingRules.mayDefineAnother(by, mine, standing);
    StandingQuery q =
        new StandingQuery(
            new StandingStore.Stored(
                name,
                checked.text(),
                by.name(),
                clock.getAsLong(),
                null,
                null,
                maxGroups,
                sinkSpecs.isEmpty() ? null : SinkSpec.toJson(sinkSpecs)),
            limits,
            tenantField,
            checked);
    q.sinks = sinksOf(q);
    starting.put(name, q);
    return checkpoints
        .take(q, null)
        .handle(
            (states, error) -> {
              starting.remove(name);
              if (error == null) {
                return q;
              }
              if (q.sinks != null) {
                q.sinks.release();
              }
              Throwable cause = Checkpointer.unwrap(error);
              if (cause instanceof Checkpointer.NotSaved e) {
                throw new StandingQueries.Refused(
                    503,
                    "Standing query "
                        + name
                        + " could not start: the checkpoint it starts at could not be taken",
                    e);
              }
              throw cause instanceof RuntimeException r ? r : new IllegalStateException(cause);
            });
  }

  /**
   * The deliveries of a standing query's stored sinks; null without any. A sink the service no
   * longer allows (its operator changed the lists) gives every document up, saying why.
   */
  private QuerySinks sinksOf(StandingQuery q) {
    List<SinkSpec> specs;
    try {
      specs = SinkSpec.listFromJson(q.stored.sinks());
    } catch (IllegalArgumentException e) {
      LOG.error("standing query {}: its sinks cannot be read: {}", q.name(), e.getMessage());
      return null;
    }
    if (specs.isEmpty()) {
      return null;
    }
    if (sinks == null) {
      LOG.warn(
          "standing query {}: this service delivers to no sink, its sinks get nothing", q.name());
      return null;
    }
    return sinks.forQuery(q.id(), specs);
  }
}
