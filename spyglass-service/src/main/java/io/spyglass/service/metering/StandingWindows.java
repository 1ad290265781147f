package io.spyglass.service.metering;

import io.spyglass.core.query.Query;
import io.spyglass.core.query.QueryCombiner;
import io.spyglass.core.result.Result;
import io.spyglass.service.runtime.OpenWindows;
import io.spyglass.service.runtime.QueryRuntime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The standing queries' windows as they are read: a report joins the final windows written (the
 * database), those taken since the last checkpoint and the open ones in memory, and the open ones
 * of the running query, looked at through the runtime ({@link QueryRuntime#inspect}); a stopped
 * query's open windows come from its saved state.
 */
final class StandingWindows {
  private static final Logger LOG = LoggerFactory.getLogger(StandingWindows.class);

  private final QueryRuntime runtime;
  private final StandingStore store;
  private final LongSupplier clock;

  StandingWindows(QueryRuntime runtime, StandingStore store, LongSupplier clock) {
    this.runtime = runtime;
    this.store = store;
    this.clock = clock;
  }

  /**
   * What memory holds of a query for a report, copied on the owning thread, with a look at its
   * running state asked for (null when it does not run).
   */
  record Held(
      StandingQuery query,
      List<WindowUpdate> finals,
      List<WindowUpdate> late,
      List<WindowUpdate> open,
      CompletableFuture<OpenWindows> look) {}

  /** Copies what memory holds of {@code q} and asks for a look at it. Owning thread only. */
  Held hold(StandingQuery q) {
    List<WindowUpdate> f = new ArrayList<>();
    q.finals.forEach(i -> f.add(i.value()));
    List<WindowUpdate> l = new ArrayList<>();
    q.late.forEach(i -> l.add(i.value()));
    // the open windows as of every document read so far (after a flush of the workers)
    CompletableFuture<OpenWindows> look =
        q.running()
            ? runtime.inspect(q.id(), clock.getAsLong(), true)
            : CompletableFuture.completedFuture(null);
    return new Held(q, f, l, new ArrayList<>(q.open.values()), look);
  }

  /**
   * The windows of {@code held} over {@code [fromMs, toMs)}, oldest first: the database is read
   * after memory was copied, so a window written meanwhile is in both, and memory's copy (the same
   * or newer) wins; the newest look at the open windows wins over memory's.
   *
   * @param tenants the tenants whose rows to keep; null for every row
   * @throws StandingQueries.Refused 503 when the look does not come
   */
  List<StandingReport.Window> report(
      Held held, long fromMs, long toMs, String tenantField, Set<String> tenants) {
    List<WindowUpdate> open = new ArrayList<>(); // the newest look first: it wins
    String name = held.query().name();
    try {
      OpenWindows look = held.look().get(30, TimeUnit.SECONDS);
      if (look != null) {
        held.query().saw(look.eventTime());
        for (Result r : look.windows()) {
          WindowUpdate w = WindowUpdate.of(r);
          open.add(w.isFinal() ? w.open() : w);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StandingQueries.Refused(503, "Interrupted");
    } catch (ExecutionException | TimeoutException e) {
      throw new StandingQueries.Refused(
          503,
          "The open windows of standing query " + name + " could not be read",
          e instanceof ExecutionException ? e.getCause() : e);
    }
    open.addAll(held.open());
    return StandingReport.merge(
        store.windows(name, fromMs, toMs),
        held.finals(),
        held.late(),
        open,
        fromMs,
        toMs,
        tenantField,
        tenants);
  }

  /**
   * Looks at each running query's count of documents without a time, for the listing and the
   * metrics: after the next flush of the workers, not waited for.
   */
  void lookAtEventTimes(Collection<StandingQuery> queries) {
    for (StandingQuery q : queries) {
      if (q.running()) {
        runtime
            .inspect(q.id(), clock.getAsLong(), false)
            .thenAccept(
                look -> {
                  if (look != null) {
                    q.saw(look.eventTime());
                  }
                });
      }
    }
  }

  /**
   * Holds the open windows of a stopped query's saved state, as a look at them would have shown
   * them then: its report keeps them (not final, with its error). Owning thread only.
   */
  void openWindowsOf(StandingQuery q, byte[] state) {
    if (state == null) {
      return;
    }
    try {
      Query query = q.checked().toQuery(q.id(), q.stored.createdMs());
      QueryCombiner c = QueryCombiner.restore(query, q.limits, (x, r) -> {}, clock, state);
      q.open.clear();
      for (Result r : c.peek(clock.getAsLong())) {
        WindowUpdate w = WindowUpdate.of(r);
        q.open.put(w.start(), w.isFinal() ? w.open() : w);
      }
      q.saw(c.eventTime());
    } catch (RuntimeException e) {
      LOG.warn("standing query {}: its open windows cannot be read: {}", q.name(), e.toString());
    }
  }
}
