package io.spyglass.service.metering;

import io.spyglass.engine.Engine;
import io.spyglass.engine.ingest.Ingestor;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes the standing queries' checkpoints: an engine checkpoint, then, in one transaction, each
 * query's state, the final windows and late counts its state covers, and the ingest log position
 * they cover. A query may start at the cut (it sees the documents after it) or end with it.
 *
 * <p>Confined to the thread that owns the standing queries.
 */
final class Checkpointer {
  private static final Logger LOG = LoggerFactory.getLogger(Checkpointer.class);

  private final Engine engine;
  private final StandingStore store;
  private final Ingestor ingestor;

  /** How long a query's results before the cut are waited for. */
  static final long RESULTS_WAIT_MS = 30_000;

  /**
   * Test hook: the names of queries whose results before the cut are taken not to have come in time
   * (as when their delivery is stuck); null normally.
   */
  volatile java.util.function.Predicate<String> resultsLate;

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

  Checkpointer(Engine engine, StandingStore store, Ingestor ingestor) {
    this.engine = engine;
    this.store = store;
    this.ingestor = ingestor;
  }

  /**
   * Takes a checkpoint of {@code queries} and writes it: with {@code added} started at its cut (and
   * put in {@code queries}, after {@code started} is told), and {@code removed} forgotten.
   *
   * @param drainAll takes every query's ready results; called while the checkpoint is waited for (a
   *     query whose results wait unread may hold up the workers)
   * @return each query's state written, by name; null when interrupted before it was written
   * @throws StandingQueries.Refused when {@code added} could not start
   * @throws NotSaved when a running query could not be saved: nothing is written (but {@code
   *     removed}'s rows are deleted) and {@code added} is not started
   */
  Map<String, byte[]> take(
      Map<String, StandingQuery> queries,
      StandingQuery added,
      String removed,
      Runnable drainAll,
      Consumer<StandingQuery> started) {
    CompletableFuture<Engine.Checkpoint> f =
        engine.checkpoint(
            position -> {
              if (added != null) {
                added.handle =
                    engine.submit(
                        added.id(),
                        added.checked(),
                        new Engine.SubmitOptions(added.stored.createdMs(), null, true));
              }
              Collection<String> ids = new ArrayList<>();
              for (StandingQuery q : queries.values()) {
                ids.add(q.id());
              }
              if (added != null) {
                ids.add(added.id());
              }
              return ids;
            });
    Engine.Checkpoint cp;
    try {
      while (true) {
        drainAll.run();
        try {
          cp = f.get(20, TimeUnit.MILLISECONDS);
          break;
        } catch (TimeoutException e) {
          // again
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (ExecutionException e) {
      throw new StandingQueries.Refused(
          e.getCause() instanceof IllegalStateException ? 503 : 500,
          added != null
              ? "Standing query " + added.name() + " could not start"
              : "The standing queries' checkpoint could not be taken",
          e.getCause());
    }
    if (added != null) {
      started.accept(added);
      queries.put(added.name(), added);
    }
    Map<String, byte[]> states = new LinkedHashMap<>();
    Map<String, List<StandingStore.Window>> finals = new LinkedHashMap<>();
    List<StandingStore.Late> late = new ArrayList<>();
    List<String> behind = new ArrayList<>();
    java.util.function.Predicate<String> late0 = resultsLate;
    for (StandingQuery q : queries.values()) {
      Engine.QueryState st = cp.queries().get(q.id());
      if (st == null) {
        continue; // ended: its last saved state stays
      }
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RESULTS_WAIT_MS);
      try {
        if (late0 != null && late0.test(q.name()) || !q.takeUpTo(st.emitted(), deadline)) {
          LOG.warn("standing query {}: results before the cut did not come; not saved", q.id());
          behind.add(q.name());
          continue;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return null;
      }
      states.put(q.name(), st.snapshot());
      finals.put(q.name(), q.finalsUpTo(st.emitted()));
      late.addAll(q.lateUpTo(st.emitted()));
    }
    if (!behind.isEmpty()) {
      // a restart would restore such a query's older state and replay from the new position,
      // never counting the documents between: the position stays where every query was saved
      if (added != null) {
        queries.remove(added.name());
        added.handle.kill();
      }
      if (removed != null) {
        store.remove(removed);
      }
      throw new NotSaved(behind);
    }
    StandingStore.Stored addedRow = null;
    if (added != null) {
      StandingStore.Stored s = added.stored;
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
    store.commit(new StandingStore.Commit(cp.position(), states, finals, late), addedRow, removed);
    for (StandingQuery q : queries.values()) {
      Engine.QueryState st = cp.queries().get(q.id());
      if (st != null && states.containsKey(q.name())) {
        q.written(st.emitted());
      }
    }
    if (cp.position() >= 0) {
      ingestor.replayFrom(cp.position());
    }
    return states;
  }
}
