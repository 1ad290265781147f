package io.spyglass.engine;

import io.spyglass.core.query.Query;
import io.spyglass.core.query.QueryStats;
import java.util.AbstractMap;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The engine's running queries: their handles by id, how many count against {@link
 * EngineConfig#maxQueries()}, and their counters as the workers publish them (at each tick, and as
 * they hand on a partial of a query).
 *
 * <p>A query counts from its submission until every worker dropped it, which is later than its
 * handle leaving the map (when it ended). Thread-safe.
 */
final class RunningQueries {
  private final int workers;
  private final int maxQueries;

  /**
   * The running queries; each handle keeps, by worker, the query's counters when the worker last
   * handed on a partial of it, fresher than the last tick's for a query that ends between two ticks
   * (a LIMIT reached).
   */
  private final Map<String, QueryHandle> handles = new ConcurrentHashMap<>();

  /** Each worker's counters of every query it runs, as of its last tick. */
  private final Map<Integer, Map<String, QueryStats>> published = new ConcurrentHashMap<>();

  /** Queries counted against maxQueries: from submission until every worker dropped them. */
  private final AtomicInteger running = new AtomicInteger();

  RunningQueries(int workers, int maxQueries) {
    this.workers = workers;
    this.maxQueries = maxQueries;
  }

  /**
   * Counts a query in and keeps its handle.
   *
   * @throws IllegalStateException when {@code maxQueries} queries are running
   * @throws IllegalArgumentException when a query with its id is running
   */
  void admit(QueryHandle h) {
    if (running.incrementAndGet() > maxQueries) {
      running.decrementAndGet();
      throw new IllegalStateException(
          "Too many queries: "
              + maxQueries
              + " are running; wait for some to finish, or raise the limit"
              + " (EngineConfig.withMaxQueries; spyglass query --max-queries)");
    }
    if (handles.putIfAbsent(h.id(), h) != null) {
      running.decrementAndGet();
      throw new IllegalArgumentException("A query with id " + h.id() + " is already running");
    }
  }

  /** A query ended: its handle leaves (it counts until every worker dropped it). */
  void ended(String id) {
    handles.remove(id);
  }

  /** Every worker dropped a query that ended: it no longer counts against maxQueries. */
  void released() {
    running.decrementAndGet();
  }

  /** Queries counted against maxQueries now. */
  int count() {
    return running.get();
  }

  Collection<QueryHandle> handles() {
    return handles.values();
  }

  /** See {@link Engine#running()}. */
  List<Query> queries() {
    return handles.values().stream().map(QueryHandle::query).toList();
  }

  /** A worker's counters of every query it runs, at a tick. */
  void publishStats(int worker, Map<String, QueryStats> s) {
    published.put(worker, s);
  }

  /**
   * A worker's counters of a query as it hands on a partial of it: call before the partial goes to
   * the combiner, so that the combiner's thread sees them when the query ends.
   */
  void partialStats(int worker, String id, QueryStats s) {
    QueryHandle h = handles.get(id);
    if (h != null && s != null) {
      h.partialStats(worker, workers, s);
    }
  }

  /**
   * A query's counters summed over the workers, each as of its last tick or its last partial of the
   * query, whichever saw more; null when no worker has counted it.
   */
  QueryStats stats(String id) {
    QueryHandle h = handles.get(id);
    QueryStats sum = null;
    for (int w = 0; w < workers; w++) {
      Map<String, QueryStats> atTick = published.get(w);
      QueryStats st = atTick == null ? null : atTick.get(id);
      QueryStats p = h == null ? null : h.partialStats(w);
      if (st == null || (p != null && p.seen() > st.seen())) {
        st = p;
      }
      if (st != null) {
        sum = sum == null ? st : sum.plus(st);
      }
    }
    return sum;
  }

  /** {@link EngineMetrics#queries}: each running query's counters, summed when first read. */
  Map<String, QueryStats> summed() {
    return new Summed();
  }

  /**
   * Each running query's counters summed over the workers, summed at its first read. The health
   * check and the gauges read a snapshot's other counters only: with ten thousand queries, a sum
   * made for each of them was a map of ten thousand entries each time.
   */
  private final class Summed extends AbstractMap<String, QueryStats> {
    private Map<String, QueryStats> sum;

    private synchronized Map<String, QueryStats> sum() {
      if (sum == null) {
        Map<String, QueryStats> perQuery = new HashMap<>();
        for (Map<String, QueryStats> s : published.values()) {
          s.forEach((id, st) -> perQuery.merge(id, st, QueryStats::plus));
        }
        perQuery.keySet().retainAll(handles.keySet());
        sum = Collections.unmodifiableMap(perQuery);
      }
      return sum;
    }

    @Override
    public Set<Map.Entry<String, QueryStats>> entrySet() {
      return sum().entrySet();
    }

    @Override
    public QueryStats get(Object id) {
      return sum().get(id);
    }

    @Override
    public boolean containsKey(Object id) {
      return sum().containsKey(id);
    }

    @Override
    public int size() {
      return sum().size();
    }
  }
}
