package io.spyglass.service.metering;

import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.run.CheckedQuery;
import io.spyglass.service.auth.User;
import io.spyglass.service.runtime.QueryRuntime;
import io.spyglass.service.runtime.StandingOptions;
import io.spyglass.sinks.QuerySinks;
import io.spyglass.sinks.SinkSpec;
import io.spyglass.sinks.Sinks;
import java.util.List;
import java.util.function.LongSupplier;
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
  private final String tenantField;
  private final Sinks sinks;
  private final StandingWindows windows;
  private final LongSupplier clock;
  private final StandingActor actor;
  private final StandingActor.Stream stream;

  StandingStarts(
      QueryRuntime runtime,
      QueryLimits limits,
      String tenantField,
      Sinks sinks,
      StandingWindows windows,
      LongSupplier clock,
      StandingActor actor,
      StandingActor.Stream stream) {
    this.runtime = runtime;
    this.limits = limits;
    this.tenantField = tenantField;
    this.sinks = sinks;
    this.windows = windows;
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
   * A query defined now by {@code by}, not started yet: it starts at the cut of the checkpoint that
   * writes it.
   *
   * @param maxGroups the exact groups a window of it keeps, fixed from now on
   */
  StandingQuery defined(
      String name, CheckedQuery checked, List<SinkSpec> sinkSpecs, User by, int maxGroups) {
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
    return q;
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
