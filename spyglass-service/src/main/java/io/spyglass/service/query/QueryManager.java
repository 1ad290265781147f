package io.spyglass.service.query;

import io.spyglass.core.SpyglassClock;
import io.spyglass.core.plan.Aggregation;
import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.plan.QueryPlan;
import io.spyglass.core.query.QueryStats;
import io.spyglass.core.result.Meta;
import io.spyglass.core.result.Result;
import io.spyglass.core.result.ResultJson;
import io.spyglass.core.run.CheckedQuery;
import io.spyglass.core.syntax.BqlException;
import io.spyglass.service.auth.User;
import io.spyglass.service.runtime.QueryRuntime;
import io.spyglass.service.runtime.ResultListener;
import io.spyglass.sinks.QuerySinks;
import io.spyglass.sinks.SinkSpec;
import io.spyglass.sinks.Sinks;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The service's queries: admits them within the limits, starts them on the {@link QueryRuntime},
 * keeps their results in a {@link ResultLog} while they run and for a while after, ends those whose
 * clients all left, and tells {@link QueryObserver}s.
 *
 * <p>Thread-safe.
 */
public final class QueryManager {
  private static final Logger LOG = LoggerFactory.getLogger(QueryManager.class);
  private static final char[] ID_CHARS = "abcdefghijkmnpqrstuvwxyz23456789".toCharArray();

  /** What the manager enforces; each as the {@code ServiceConfig} setting of the same name. */
  public record Limits(
      int maxQueries,
      int maxQueriesPerUser,
      long graceMs,
      long keepMs,
      int keepResults,
      long keepBytes,
      QueryLimits queryLimits,
      ResultLimits results,
      long maxForeverMs) {}

  private final QueryRuntime runtime;
  private final Limits limits;
  private final LongSupplier clock;
  private final SpyglassClock time;
  private final List<QueryObserver> observers = new CopyOnWriteArrayList<>();
  private final Map<String, ServiceQuery> queries = new ConcurrentHashMap<>();
  private final Map<String, Integer> runningByUser = new HashMap<>();
  private final SecureRandom random = new SecureRandom();
  private final ResultMemory memory;
  private final Sinks sinks;
  private int running;
  private volatile boolean accepting = true;

  /** A manager whose queries have no sinks. */
  public QueryManager(QueryRuntime runtime, Limits limits, LongSupplier clock) {
    this(runtime, limits, clock, null);
  }

  /**
   * @param sinks where queries' results go besides their streams, when a query names sinks; null
   *     for none (a query that names some is refused)
   */
  public QueryManager(QueryRuntime runtime, Limits limits, LongSupplier clock, Sinks sinks) {
    this(runtime, limits, SpyglassClock.ofWall(clock), sinks);
  }

  /**
   * @param clock the service's clock: its wall clock stamps the queries (started, ended, left by
   *     their last client), its monotonic one times the waits
   * @param sinks where queries' results go besides their streams, when a query names sinks; null
   *     for none (a query that names some is refused)
   */
  public QueryManager(QueryRuntime runtime, Limits limits, SpyglassClock clock, Sinks sinks) {
    this.runtime = runtime;
    this.limits = limits;
    this.clock = clock;
    this.time = clock;
    this.sinks = sinks;
    this.memory = new ResultMemory(limits.results(), queries.values(), this::forget);
  }

  /** The sinks of this service's queries; null when it delivers to none. */
  public Sinks sinks() {
    return sinks;
  }

  /** The memory of the results kept, within {@link Limits#results()}. */
  public ResultMemory memory() {
    return memory;
  }

  public void observe(QueryObserver o) {
    observers.add(o);
  }

  public Limits limits() {
    return limits;
  }

  /**
   * Checks, admits and starts a query.
   *
   * @throws BqlException when the text is not a valid query
   * @throws AdmissionException when a limit is reached
   * @throws IllegalStateException when the service is shutting down or the runtime refuses
   */
  public ServiceQuery submit(User user, String text, boolean detached) {
    return submit(user, text, detached, List.of());
  }

  /**
   * Checks, admits and starts a query whose every result also goes to {@code sinkSpecs} (checked
   * already with {@link Sinks#check}).
   *
   * @throws BqlException when the text is not a valid query
   * @throws AdmissionException when a limit is reached
   * @throws IllegalArgumentException when it names sinks and the service delivers to none
   * @throws IllegalStateException when the service is shutting down or the runtime refuses
   */
  public ServiceQuery submit(User user, String text, boolean detached, List<SinkSpec> sinkSpecs) {
    if (!sinkSpecs.isEmpty() && sinks == null) {
      throw new IllegalArgumentException("this service delivers results to no sink");
    }
    CheckedQuery checked; // compiled here once: the runtime runs this plan, under these limits
    try {
      checked = CheckedQuery.check(text, limits.queryLimits());
    } catch (BqlException e) {
      observers.forEach(o -> o.rejected("invalid"));
      throw e;
    }
    long now = clock.getAsLong();
    String id = newId();
    ServiceQuery q =
        new ServiceQuery(
            id,
            user.name(),
            text,
            detached,
            now,
            checked.durationMs(),
            new ResultLog(limits.keepResults(), limits.keepBytes(), memory.account(user.name())),
            this);
    long hold = hold(checked.plan());
    admit(user, now, hold);
    queries.put(id, q);
    q.hold(hold);
    try {
      List<SinkSpec> own = List.of();
      if (!sinkSpecs.isEmpty()) {
        List<SinkSpec> resolved = new ArrayList<>();
        for (int i = 0; i < sinkSpecs.size(); i++) {
          resolved.add(sinks.check(sinkSpecs.get(i), "sinks[" + i + "]"));
        }
        own = runtime.ownSinks(resolved); // the Flink job writes Kafka sinks on its cluster
        q.sinks(sinks.forQuery(id, sinkSpecs, own));
      }
      runtime.submit(id, checked, q, own);
    } catch (RuntimeException e) {
      queries.remove(id);
      release(user.name());
      memory.release(q.owner(), q.releaseHold());
      if (q.sinks() != null) {
        q.sinks().release();
      }
      throw e;
    }
    observers.forEach(o -> o.started(q));
    return q;
  }

  /**
   * About the bytes of records a query holds in this process while it runs: a raw query's {@code
   * LIMIT} records (each window's) until it emits them, taken at the stream's mean record size
   * (projected records are smaller: an upper bound); 0 for aggregations, whose sketches are small.
   */
  private long hold(QueryPlan plan) {
    return plan.aggregation() instanceof Aggregation.Raw raw
        ? raw.limit() * runtime.recordBytesHeld()
        : 0;
  }

  private synchronized void admit(User user, long now, long hold) {
    if (!accepting) {
      throw new IllegalStateException("The service is shutting down");
    }
    int mine = runningByUser.getOrDefault(user.name(), 0);
    if (running >= limits.maxQueries()) {
      observers.forEach(o -> o.rejected("max-queries"));
      throw new AdmissionException(
          "max-queries",
          "Too many queries: " + running + " of " + limits.maxQueries() + " are running",
          "Retry after the time in Retry-After, when running queries end; the operator can raise"
              + " --max-queries",
          retryAfter(null, now));
    }
    if (mine >= limits.maxQueriesPerUser()) {
      observers.forEach(o -> o.rejected("max-queries-per-user"));
      throw new AdmissionException(
          "max-queries-per-user",
          "Too many queries for "
              + user.name()
              + ": "
              + mine
              + " of "
              + limits.maxQueriesPerUser()
              + " allowed per user are running",
          "Stop one of your queries (DELETE /api/queries/{id}) or retry after the time in"
              + " Retry-After; the operator can raise --max-queries-per-user",
          retryAfter(user.name(), now));
    }
    String full = memory.admit(user.name(), hold);
    if (full != null) {
      observers.forEach(o -> o.rejected(full));
      throw memoryFull(full, user.name(), hold, now);
    }
    running++;
    runningByUser.merge(user.name(), 1, Integer::sum);
  }

  private AdmissionException memoryFull(String limit, String user, long hold, long now) {
    ResultLimits r = limits.results();
    boolean mine = limit.equals("max-result-memory-per-user");
    if (mine && hold > r.maxBytesPerUser()) {
      return new AdmissionException(
          limit,
          "This query may hold about "
              + ResultLimits.size(hold)
              + " of raw records (its LIMIT times the stream's mean record size) while it runs,"
              + " more than a user's share of the service's result memory ("
              + ResultLimits.size(r.maxBytesPerUser())
              + ")",
          "Ask for fewer records (a lower LIMIT); the operator can raise"
              + " --max-result-memory-per-user",
          retryAfter(user, now));
    }
    return new AdmissionException(
        limit,
        mine
            ? "The results kept and the records held for "
                + user
                + "'s running queries fill their share of the service's memory ("
                + ResultLimits.size(r.maxBytesPerUser())
                + ")"
            : "The results kept and the records held for running queries fill the service's"
                + " result memory ("
                + ResultLimits.size(r.maxBytes())
                + ")",
        mine
            ? "Stop queries you no longer read (DELETE /api/queries/{id}), or retry after the time"
                + " in Retry-After; queries with smaller results (aggregations, a lower LIMIT) keep"
                + " less; the operator can raise --max-result-memory-per-user"
            : "Retry after the time in Retry-After, when running queries end; the operator can"
                + " raise --max-result-memory",
        retryAfter(mine ? user : null, now));
  }

  private synchronized void release(String owner) {
    running--;
    runningByUser.computeIfPresent(owner, (k, n) -> n <= 1 ? null : n - 1);
  }

  /** Seconds until the first of the relevant running queries ends by its duration, 1 to 60. */
  private long retryAfter(String owner, long now) {
    long soonest = Long.MAX_VALUE;
    for (ServiceQuery q : queries.values()) {
      if (q.isRunning() && (owner == null || owner.equals(q.owner()))) {
        long end = q.submittedMs() + q.durationMs();
        soonest = Math.min(soonest, end < q.submittedMs() ? Long.MAX_VALUE : end - now);
      }
    }
    return soonest == Long.MAX_VALUE ? 60 : Math.max(1, Math.min(60, (soonest + 999) / 1000));
  }

  private String newId() {
    char[] c = new char[12];
    while (true) {
      for (int i = 0; i < c.length; i++) {
        c[i] = ID_CHARS[random.nextInt(ID_CHARS.length)];
      }
      String id = new String(c);
      if (!queries.containsKey(id)) {
        return id;
      }
    }
  }

  /** The query if {@code user} may see it; empty when there is none or it is someone else's. */
  public Optional<ServiceQuery> find(User user, String id) {
    ServiceQuery q = queries.get(id);
    return q != null && user.canSee(q.owner()) ? Optional.of(q) : Optional.empty();
  }

  /** The queries {@code user} may see, running or recently ended, newest first. */
  public List<ServiceQuery> list(User user) {
    List<ServiceQuery> out = new ArrayList<>();
    for (ServiceQuery q : queries.values()) {
      if (user.canSee(q.owner())) {
        out.add(q);
      }
    }
    out.sort(Comparator.comparingLong(ServiceQuery::submittedMs).reversed());
    return out;
  }

  /** Ends a query now at {@code user}'s request; its final result follows. */
  public void kill(ServiceQuery q, User user) {
    kill(q, ServiceQuery.Stop.requested(user.name()));
  }

  /** Ends a query now, for {@code why}; its final result follows. */
  public void kill(ServiceQuery q, ServiceQuery.Stop why) {
    if (q.isRunning()) {
      q.markKilled(why);
      runtime.kill(q.id());
    }
  }

  /** Queries running now, over all users. */
  public synchronized int running() {
    return running;
  }

  /** Queries running now for one user. */
  public synchronized int running(String user) {
    return runningByUser.getOrDefault(user, 0);
  }

  public void clientJoined(ServiceQuery q) {
    q.clientJoined();
  }

  public void clientLeft(ServiceQuery q) {
    q.clientLeft(clock.getAsLong());
  }

  /**
   * Counters of every running query, by id, as the runtime has them now; each query keeps them so
   * that its last counters stay readable after it ends.
   */
  public Map<String, QueryStats> progress() {
    Map<String, QueryStats> live = runtime.progress();
    live.forEach(
        (id, p) -> {
          ServiceQuery q = queries.get(id);
          if (q != null) {
            q.progress(p);
          }
        });
    return live;
  }

  /**
   * One query's counters as {@link #progress()} has them, asked of the runtime for that query alone
   * (with ten thousand running, every query's made a map of ten thousand): by its id, empty when it
   * does not run or the runtime has not counted it yet.
   */
  public Map<String, QueryStats> liveProgress(ServiceQuery q) {
    if (!q.isRunning()) {
      return Map.of();
    }
    Optional<QueryStats> p = runtime.progress(q.id());
    p.ifPresent(q::progress);
    return p.isPresent() ? Map.of(q.id(), p.get()) : Map.of();
  }

  /** A query's counters: live ones if it runs and {@code live} has them, else its last. */
  public static QueryStats progress(ServiceQuery q, Map<String, QueryStats> live) {
    QueryStats p = q.isRunning() ? live.get(q.id()) : null;
    return p != null ? p : q.lastProgress();
  }

  /**
   * Ends queries that have had no client for the grace period (unless detached) and {@code
   * STREAM(FOREVER)} queries that ran {@code maxForeverMs}, and forgets those that ended longer ago
   * than they are kept. Call it every few hundred milliseconds.
   */
  public void sweep() {
    long now = clock.getAsLong();
    if (now - lastProgressMs >= PROGRESS_EVERY_MS) {
      // not at every sweep: each takes every query's counters (with ten thousand queries, four
      // sweeps a second made megabytes of them a second); a query gets its last ones as it ends
      lastProgressMs = now;
      progress();
    }
    for (ServiceQuery q : queries.values()) {
      if (q.isRunning()) {
        if (q.killed()) {
          continue;
        }
        if (!q.detached() && q.clients() == 0 && now - q.lastClientLeftMs() > limits.graceMs()) {
          kill(q, ServiceQuery.Stop.byService(NO_CLIENT));
        } else if (q.runsForever()
            && limits.maxForeverMs() > 0
            && now - q.submittedMs() >= limits.maxForeverMs()) {
          kill(q, ServiceQuery.Stop.byService(MAX_QUERY_DURATION));
        }
      } else if (now - q.endedMs() > limits.keepMs()) {
        forget(q);
      }
    }
  }

  /** How often a sweep takes every running query's counters for it to keep. */
  static final long PROGRESS_EVERY_MS = 5_000;

  private volatile long lastProgressMs = Long.MIN_VALUE / 2;

  /** The reason of a query ended for having had no client for the grace period. */
  public static final String NO_CLIENT = "no-client";

  /** The reason of a {@code STREAM(FOREVER)} query ended after {@code --max-query-duration}. */
  public static final String MAX_QUERY_DURATION = "max-query-duration";

  /**
   * When the service will end {@code q} unless something else ends it first (epoch ms): after the
   * grace period for an orphan that is not detached, after {@code maxForeverMs} for a {@code
   * STREAM(FOREVER)} query; 0 when neither applies.
   */
  public long endsAtMs(ServiceQuery q) {
    if (!q.isRunning() || q.killed()) {
      return 0;
    }
    long at = Long.MAX_VALUE;
    long orphan = q.orphanedSinceMs();
    if (orphan > 0 && !q.detached()) {
      at = orphan + limits.graceMs();
    }
    if (q.runsForever() && limits.maxForeverMs() > 0) {
      at = Math.min(at, q.submittedMs() + limits.maxForeverMs());
    }
    return at == Long.MAX_VALUE ? 0 : at;
  }

  /** Forgets an ended query: its results are dropped and its id answers 404. */
  private void forget(ServiceQuery q) {
    queries.remove(q.id(), q);
    q.log().release();
    if (q.sinks() != null) {
      q.sinks().release(); // what they hold is still delivered, within their bounds
    }
  }

  /** Refuses new queries from now on and ends every running one; each emits its final result. */
  public void stopAll() {
    synchronized (this) {
      accepting = false;
    }
    markInterrupted();
    runtime.killAll();
  }

  /**
   * Marks every running query as ended by the service's stop: its final result (if it comes) says
   * so, and its history says {@code interrupted}.
   */
  public void markInterrupted() {
    for (ServiceQuery q : queries.values()) {
      if (q.isRunning()) {
        q.markInterrupted();
      }
    }
  }

  /** Waits until no query runs; true if none does within the timeout. */
  public boolean awaitAllEnded(long timeoutMs) throws InterruptedException {
    long deadline = time.deadlineIn(timeoutMs);
    while (running() > 0) {
      if (time.nanos() > deadline) {
        return false;
      }
      Thread.sleep(10);
    }
    return true;
  }

  /** Moves a query's results from the runtime into its log. */
  // what the runtime tells of a query: each ServiceQuery is its own query's listener and hands it
  // here (no listener object for each of ten thousand queries)
  /** A result of {@code q} from the runtime ({@link ServiceQuery#onResult}). */
  void onResult(ServiceQuery q, Result result) {
    if (q.failure() != null) {
      return; // it failed: what comes after its error result is dropped
    }
    try {
      keep(q, result);
    } catch (Throwable t) { // this query fails; the others go on
      fail(q, result.meta(), t);
    }
  }

  private void keep(ServiceQuery q, Result result) {
    Meta m = result.meta();
    if (m.isFinal()) {
      memory.release(q.owner(), q.releaseHold()); // the records are in the result now
    }
    if (m.isFinal() && q.interrupted()) {
      result = new Result(result.records(), m.withError(SERVICE_STOPPED));
      m = result.meta();
    } else if (m.isFinal() && q.stop() != null && MAX_QUERY_DURATION.equals(q.stop().reason())) {
      result = new Result(result.records(), m.withError(ranItsLongest(limits.maxForeverMs())));
      m = result.meta();
    }
    QuerySinks out = q.sinks();
    List<String> failing = out == null ? List.of() : out.failures();
    if (!failing.isEmpty()) {
      for (String f : failing) {
        m = m.withError(sinkFailing(f, q.id()));
      }
      result = new Result(result.records(), m);
    }
    Meta meta = m;
    long emitMs =
        meta.window()
            .map(Meta.WindowMeta::emitTimeMs)
            .orElseGet(() -> meta.finishTimeMs().orElse(clock.getAsLong()));
    ResultLimits r = limits.results();
    byte[] json = ResultEncoder.encode(result, r.maxResultBytes(), memory.tooLarge());
    long cost = ResultLog.cost(json.length);
    long room = memory.makeRoom(q.owner(), cost, q);
    if (room < cost) {
      json =
          ResultEncoder.encode(
              result, Math.max(0, room - ResultLog.cost(0)), memory.full(q.owner()));
    }
    if (m.isFinal()) {
      // ended before anyone sees its final result: a client that got it and asks for the
      // query's state finds it finished, not running until the runtime reports the end, and
      // with the counters of that result, not those of the last sweep
      runtime.progress(q.id()).ifPresent(q::progress);
      q.ended(clock.getAsLong());
    }
    ResultLog.Event e = q.log().append(json, m.isFinal(), emitMs);
    if (out != null) {
      out.offer(m, json); // buffered: the sinks deliver on their own threads
    }
    for (QueryObserver o : observers) {
      o.result(q, e);
    }
  }

  /** Ends the query with a final result that carries the error, and stops it in the runtime. */
  private void fail(ServiceQuery q, Meta m, Throwable t) {
    String error = ResultListener.failure(t);
    LOG.error("the results of query {} could not be kept; it is stopped", q.id(), t);
    q.failed(error);
    q.markKilled(ServiceQuery.Stop.byService("failed"));
    try {
      if (!q.log().isEnded() && (q.log().last() == null || !q.log().last().isFinal())) {
        long now = clock.getAsLong();
        Meta last =
            new Meta(
                m.queryId(),
                m.queryText(),
                m.receiveTimeMs(),
                Optional.of(now),
                Optional.empty(),
                Map.of(),
                List.of(
                    new Meta.QueryError(
                        error,
                        "Submit it again; if it happens again, see the service's log",
                        true)),
                true);
        q.ended(now);
        q.log().append(ResultJson.write(new Result(List.of(), last)), true, now);
      }
      runtime.kill(q.id());
    } catch (Throwable again) {
      LOG.error("query {} could not be ended with its error", q.id(), again);
    }
  }

  /** {@code q} ended in the runtime ({@link ServiceQuery#onEnd}). */
  void onEnd(ServiceQuery q, String error, QueryStats last) {
    q.progress(last); // a query that ended between two sweeps has no counters from them
    q.ended(clock.getAsLong());
    release(q.owner());
    memory.release(q.owner(), q.releaseHold());
    q.log().end(error != null ? error : q.failure());
    for (QueryObserver o : observers) {
      o.ended(q);
    }
  }

  /** The error in the final result of a {@code STREAM(FOREVER)} query ended for its duration. */
  static Meta.QueryError ranItsLongest(long maxForeverMs) {
    return new Meta.QueryError(
        "The query ran the longest the service runs a STREAM(FOREVER) query ("
            + duration(maxForeverMs)
            + ", --max-query-duration) and was ended with the records it had",
        "Submit it again to go on, or ask the operator for a standing query (docs/metering.md)",
        false);
  }

  /** A duration as people write it: {@code 24h}, {@code 90m}, {@code 45s}, {@code 1500ms}. */
  static String duration(long ms) {
    if (ms % 3_600_000 == 0) {
      return ms / 3_600_000 + "h";
    }
    if (ms % 60_000 == 0) {
      return ms / 60_000 + "m";
    }
    return ms % 1_000 == 0 ? ms / 1_000 + "s" : ms + "ms";
  }

  /** The non-fatal error a result carries while one of its query's sinks fails. */
  static Meta.QueryError sinkFailing(String failure, String id) {
    return new Meta.QueryError(
        failure,
        "The query goes on; its sink retries each result within its bounds and drops what it"
            + " cannot deliver (counted). See GET /api/queries/"
            + id
            + " (sinks) and docs/sinks.md",
        false);
  }

  /** The error in the final result of a query that the service's stop ended. */
  static final Meta.QueryError SERVICE_STOPPED =
      new Meta.QueryError(
          "The service stopped: the query ended early, with the records it had",
          "Submit it again once the service is back",
          true);
}
