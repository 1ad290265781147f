package io.spyglass.service.metering;

import io.spyglass.engine.ingest.Ingestor;
import io.spyglass.service.runtime.CheckpointCut;
import io.spyglass.service.runtime.CheckpointMarker;
import io.spyglass.service.runtime.QueryRuntime;
import io.spyglass.service.runtime.ResultListener;
import io.spyglass.service.runtime.StandingOptions;
import io.spyglass.service.runtime.StandingStart;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledFuture;
import java.util.function.Function;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The standing queries' checkpoint protocol: the runtime cuts the stream and takes each running
 * query's state ({@link QueryRuntime#checkpoint}); each query's marker then comes in its result
 * stream, after exactly the results its state has seen; once every query's marker is in, one
 * transaction writes each query's state, the final windows and late counts taken before its marker,
 * and the ingest log position they cover. A query may start at the cut (it sees the documents after
 * it) or be forgotten with the checkpoint. Nothing waits or polls: each step runs when what it
 * needs arrives.
 *
 * <p>Confined to the thread that owns the standing queries ({@link StandingActor}): checkpoints are
 * taken one at a time, in the order asked.
 */
final class Checkpointer {
  private static final Logger LOG = LoggerFactory.getLogger(Checkpointer.class);

  /** How long a query's marker (its results before the cut) is waited for once the cut is taken. */
  static final long RESULTS_WAIT_MS = 30_000;

  /**
   * Test hook: the names of queries whose results before the cut are taken not to have come in time
   * (as when their delivery is stuck); null normally.
   */
  volatile Predicate<String> resultsLate;

  /**
   * A checkpoint not written because running queries could not be saved: the log position stays
   * where every query's saved state is.
   */
  static final class NotSaved extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    NotSaved(List<String> behind) {
      super(
          "the checkpoint was not written: the results of standing "
              + (behind.size() == 1 ? "query " : "queries ")
              + String.join(", ", behind)
              + " before the cut did not come within "
              + RESULTS_WAIT_MS / 1000
              + " s, and the log position may not pass what a running query has saved;"
              + " the next checkpoint tries again");
    }
  }

  private final QueryRuntime runtime;
  private final StandingStore store;
  private final Ingestor ingestor;
  private final StandingActor actor;

  /** The listener a query started at a cut gets. */
  private final Function<StandingQuery, ResultListener> listen;

  /** Checkpoints asked for, not started. */
  private final ArrayDeque<Taking> waiting = new ArrayDeque<>();

  /** The checkpoint being taken; null when none. */
  private Taking current;

  /** A query's marker as it came: its state, the results taken before it, whether it is late. */
  private record Marked(CheckpointMarker marker, long index, boolean late) {}

  /** One checkpoint: asked for, cut, then written once every marker is in. */
  private static final class Taking {
    final Map<String, StandingQuery> queries;
    final StandingQuery added;
    final String removed;
    final CompletableFuture<Map<String, byte[]>> done = new CompletableFuture<>();

    /** The queries whose state it takes, by id. */
    final Map<String, StandingQuery> byId = new LinkedHashMap<>();

    /** The cut, once taken; markers may come before it is known here. */
    CheckpointCut cut;

    /** The markers come, by query id (the newest, if an older checkpoint's came late). */
    final Map<String, Marked> marked = new HashMap<>();

    /** Queries that ended before their marker came: their last saved state stays. */
    final Set<String> gone = new HashSet<>();

    ScheduledFuture<?> timeout;

    Taking(Map<String, StandingQuery> queries, StandingQuery added, String removed) {
      this.queries = queries;
      this.added = added;
      this.removed = removed;
    }
  }

  Checkpointer(
      QueryRuntime runtime,
      StandingStore store,
      Ingestor ingestor,
      StandingActor actor,
      Function<StandingQuery, ResultListener> listen) {
    this.runtime = runtime;
    this.store = store;
    this.ingestor = ingestor;
    this.actor = actor;
    this.listen = listen;
  }

  /** Whether a checkpoint is being taken or waits to be. */
  boolean busy() {
    return current != null || !waiting.isEmpty();
  }

  /**
   * Takes a checkpoint of {@code queries} and writes it: with {@code added} started at its cut (and
   * put in {@code queries} there), and {@code removed} forgotten.
   *
   * @return completes, on the owning thread, with each query's state written by name; fails with a
   *     {@link StandingQueries.Refused} when the cut could not be taken ({@code added} could not
   *     start), or with {@link NotSaved} when a running query could not be saved: then nothing is
   *     written (but {@code removed}'s rows are deleted) and {@code added} is not kept
   */
  CompletableFuture<Map<String, byte[]>> take(
      Map<String, StandingQuery> queries, StandingQuery added, String removed) {
    Taking t = new Taking(queries, added, removed);
    waiting.add(t);
    next();
    return t.done;
  }

  private void next() {
    while (current == null && !waiting.isEmpty()) {
      start(waiting.poll());
    }
  }

  private void start(Taking t) {
    current = t;
    for (StandingQuery q : t.queries.values()) {
      if (q.running()) {
        t.byId.put(q.id(), q);
      }
    }
    List<String> save = new ArrayList<>(t.byId.keySet());
    List<StandingStart> starts = List.of();
    if (t.added != null) {
      StandingQuery a = t.added;
      t.byId.put(a.id(), a);
      starts =
          List.of(
              new StandingStart(
                  a.id(),
                  a.checked(),
                  new StandingOptions(a.stored.createdMs(), null),
                  listen.apply(a)));
    }
    CompletableFuture<CheckpointCut> f;
    try {
      f = runtime.checkpoint(save, starts);
    } catch (RuntimeException e) {
      f = CompletableFuture.failedFuture(e);
    }
    f.whenComplete((cut, error) -> actor.execute(() -> cut(t, cut, error)));
  }

  private void cut(Taking t, CheckpointCut cut, Throwable error) {
    if (t != current) {
      return;
    }
    if (error != null) {
      Throwable cause = unwrap(error);
      if (t.removed != null) {
        store.remove(t.removed); // forgotten all the same
      }
      end(
          t,
          new StandingQueries.Refused(
              cause instanceof IllegalStateException ? 503 : 500,
              t.added != null
                  ? "Standing query " + t.added.name() + " could not start"
                  : "The standing queries' checkpoint could not be taken",
              cause));
      return;
    }
    t.cut = cut;
    if (t.added != null) {
      t.added.started = true;
      t.queries.put(t.added.name(), t.added);
    }
    t.marked.values().removeIf(m -> m.marker().checkpoint() != cut.checkpoint());
    t.timeout = actor.schedule(() -> timedOut(t), RESULTS_WAIT_MS);
    tryWrite(t);
  }

  /** What failed a stage that depends on another: the other's failure. */
  static Throwable unwrap(Throwable error) {
    return error instanceof CompletionException && error.getCause() != null
        ? error.getCause()
        : error;
  }

  /** A query's marker came, after every result before its cut. */
  void marked(StandingQuery q, CheckpointMarker marker) {
    Taking t = current;
    if (t == null || t.cut != null && marker.checkpoint() != t.cut.checkpoint()) {
      return; // an older checkpoint's, given up already
    }
    Predicate<String> late = resultsLate;
    t.marked.put(q.id(), new Marked(marker, q.consumed, late != null && late.test(q.name())));
    tryWrite(t);
  }

  /** A query ended, after its last result and marker. */
  void ended(StandingQuery q) {
    Taking t = current;
    if (t != null) {
      t.gone.add(q.id());
      tryWrite(t);
    }
  }

  private void tryWrite(Taking t) {
    if (t.cut == null) {
      return;
    }
    for (String id : t.cut.saved()) {
      if (!t.marked.containsKey(id) && !t.gone.contains(id)) {
        return; // its marker is still to come
      }
    }
    write(t);
  }

  private void timedOut(Taking t) {
    if (t == current) {
      write(t); // those whose marker has not come are behind
    }
  }

  /** Writes the checkpoint, or gives it up when a running query's state is not in. */
  private void write(Taking t) {
    Map<String, byte[]> states = new LinkedHashMap<>();
    Map<String, List<StandingStore.Window>> finals = new LinkedHashMap<>();
    List<StandingStore.Late> late = new ArrayList<>();
    List<String> behind = new ArrayList<>();
    for (String id : t.cut.saved()) {
      StandingQuery q = t.byId.get(id);
      Marked m = t.marked.get(id);
      if (q == null || q.deleted || m == null && t.gone.contains(id)) {
        continue; // ended or deleted: its last saved state stays, or goes with it
      }
      if (m == null || m.late()) {
        LOG.warn("standing query {}: results before the cut did not come; not saved", id);
        behind.add(q.name());
        continue;
      }
      states.put(q.name(), m.marker().state());
      finals.put(q.name(), q.finalsUpTo(m.index()));
      late.addAll(q.lateUpTo(m.index()));
    }
    if (!behind.isEmpty()) {
      // a restart would restore such a query's older state and replay from the new position,
      // never counting the documents between: the position stays where every query was saved
      if (t.removed != null) {
        store.remove(t.removed);
      }
      end(t, new NotSaved(behind));
      return;
    }
    StandingStore.Stored addedRow = null;
    if (t.added != null) {
      StandingStore.Stored s = t.added.stored;
      addedRow =
          new StandingStore.Stored(
              s.name(),
              s.query(),
              s.owner(),
              s.createdMs(),
              states.get(s.name()),
              null,
              s.maxGroups(),
              s.sinks());
    }
    long position = t.cut.position();
    try {
      store.commit(new StandingStore.Commit(position, states, finals, late), addedRow, t.removed);
    } catch (RuntimeException e) {
      end(t, e);
      return;
    }
    for (String id : t.cut.saved()) {
      StandingQuery q = t.byId.get(id);
      Marked m = t.marked.get(id);
      if (q != null && m != null && states.containsKey(q.name())) {
        q.written(m.index());
      }
    }
    if (position >= 0) {
      ingestor.replayFrom(position);
    }
    finish(t);
    t.done.complete(states);
    next();
  }

  /** Gives the checkpoint up with {@code error}: a query it started does not stay. */
  private void end(Taking t, RuntimeException error) {
    if (t.added != null && t.added.started) {
      t.queries.remove(t.added.name(), t.added);
      t.added.deleted = true;
      runtime.cancel(t.added.id());
    }
    finish(t);
    t.done.completeExceptionally(error);
    next();
  }

  private void finish(Taking t) {
    if (t.timeout != null) {
      t.timeout.cancel(false);
    }
    current = null;
  }
}
