package io.spyglass.flink.client;

import io.spyglass.core.SpyglassClock;
import io.spyglass.core.query.Query;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Routes the replies of a result topic to the {@link RemoteQuery} of their query, and forgets a
 * query once it has ended and its results are read. Replies of queries it does not know (another
 * instance's, or from before a restart) are ignored.
 *
 * <p>Thread-safe: {@link #accept} is called by one reading thread; the rest by any.
 */
public final class Replies {
  private final Map<String, RemoteQuery> queries = new ConcurrentHashMap<>();
  private final int resultQueue;
  private final Consumer<String> killer;
  private final Consumer<String> finisher;
  private final SpyglassClock clock;

  /**
   * @param resultQueue results a reader may leave unread before it is cut off
   * @param killer asks the job to kill a query (a reader that fell behind, or {@link
   *     RemoteQuery#kill}), by its id in the job
   * @param finisher asks the job to end a query now with its final result ({@link
   *     RemoteQuery#finish}), by its id in the job
   * @param clock the queries' waits are timed by its monotonic clock
   */
  public Replies(
      int resultQueue, Consumer<String> killer, Consumer<String> finisher, SpyglassClock clock) {
    this.resultQueue = resultQueue;
    this.killer = killer;
    this.finisher = finisher;
    this.clock = clock;
  }

  /** As {@link #Replies(int, Consumer, Consumer, SpyglassClock)}, on the machine's clocks. */
  public Replies(int resultQueue, Consumer<String> killer, Consumer<String> finisher) {
    this(resultQueue, killer, finisher, SpyglassClock.system());
  }

  /**
   * Replies whose queries cannot be finished one by one ({@link RemoteQuery#finish} does nothing):
   * where every query ends with the job.
   */
  public Replies(int resultQueue, Consumer<String> killer) {
    this(resultQueue, killer, id -> {});
  }

  /**
   * Registers a query before it is submitted, so no reply to it is missed.
   *
   * @param jobId the query's id in the job, which its replies carry; results are handed on with the
   *     query's own id
   */
  public RemoteQuery register(Query query, String jobId) {
    RemoteQuery q = new RemoteQuery(query, jobId, resultQueue, killer, finisher, clock);
    if (queries.putIfAbsent(jobId, q) != null) {
      throw new IllegalArgumentException("A query with id " + query.id() + " is already running");
    }
    return q;
  }

  public void accept(Reply reply) {
    RemoteQuery q = queries.get(reply.queryId());
    if (q != null) {
      q.accept(reply);
      if (q.isDone()) {
        queries.remove(reply.queryId(), q);
      }
    }
  }

  /** Ends one query here with an error (e.g. it could not be sent), by its id in the job. */
  public void fail(String id, String error) {
    RemoteQuery q = queries.remove(id);
    if (q != null) {
      q.end(error);
    }
  }

  /** Ends every query here, e.g. when the job stopped. */
  public void endAll(String error) {
    for (RemoteQuery q : List.copyOf(queries.values())) {
      q.end(error);
    }
    queries.clear();
  }

  /** Queries submitted here that have not ended. */
  public Collection<RemoteQuery> running() {
    return List.copyOf(queries.values());
  }
}
