package io.spyglass.bullet.runner;

import com.yahoo.bullet.bql.BQLResult;
import com.yahoo.bullet.bql.BulletQueryBuilder;
import com.yahoo.bullet.common.BulletConfig;
import com.yahoo.bullet.common.BulletError;
import com.yahoo.bullet.pubsub.Metadata;
import com.yahoo.bullet.querying.Querier;
import com.yahoo.bullet.querying.QueryManager;
import com.yahoo.bullet.querying.RunningQuery;
import com.yahoo.bullet.record.BulletRecord;
import com.yahoo.bullet.record.BulletRecordProvider;
import com.yahoo.bullet.result.Clip;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Bullet's engine behind a request/response interface of JDK types only, so that a caller in
 * another class loader can use it without sharing a class with Bullet. A request is a map with an
 * {@code "op"} and its arguments; the response is a map. Not thread-safe.
 *
 * <ul>
 *   <li>{@code run}: {@code bql}, {@code records} (a list of maps) &rarr; {@code errors} (Bullet's
 *       rejection, each {@code {error, resolutions}}) or {@code windows} (each {@code {records,
 *       meta}}, in the order Bullet emitted them, the last one from {@code finish()}).
 *   <li>{@code open}: {@code queries} (id &rarr; BQL) &rarr; {@code handle} and {@code rejected}
 *       (id &rarr; errors): the queries of one {@link QueryManager}, fed with {@code consume}.
 *   <li>{@code consume}: {@code handle}, and {@code json} (a list of byte arrays, one JSON object
 *       each, built into Bullet records in one streaming pass: {@link JsonRecords}) or {@code
 *       records} (a list of maps) &rarr; {@code records}, {@code malformed}, {@code emitted}: each
 *       record goes to the queries the manager's partitioner picks for it; a window that closes is
 *       read and reset.
 *   <li>{@code finish}: {@code handle} &rarr; {@code results} (id &rarr; windows emitted since
 *       open, the final one included); the handle is closed.
 *   <li>{@code pool}: {@code records} (a list of maps), and a {@code pool} handle to append to one
 *       &rarr; {@code pool} (the handle) and {@code records} (its size): Bullet records built once,
 *       to be fed many times by {@code consume} with {@code pool}, {@code from} and {@code count}
 *       (cycling): for benchmarks of records already built.
 *   <li>{@code drop}: {@code pool} &rarr; nothing: the pool is freed.
 * </ul>
 */
public final class BulletRunner implements Function<Map<String, Object>, Map<String, Object>> {
  /** Settings that make Bullet deterministic enough to referee: no rate limit, simple records. */
  private static final Map<String, Object> DEFAULTS =
      Map.of(
          "bullet.query.rate.limit.enable",
          false,
          "bullet.record.provider.class.name",
          "com.yahoo.bullet.record.simple.TypedSimpleBulletRecordProvider");

  private final BulletConfig config;
  private final BulletQueryBuilder builder;
  private final BulletRecordProvider provider;
  private final Map<Integer, Session> sessions = new HashMap<>();
  private final Map<Integer, BulletRecord<?>[]> pools = new HashMap<>();
  private int nextHandle;

  /**
   * @param settings Bullet settings ({@code bullet.query.*}, ...) over Bullet's defaults and {@link
   *     #DEFAULTS}
   */
  public BulletRunner(Map<String, Object> settings) {
    BulletConfig c = new BulletConfig();
    DEFAULTS.forEach(c::set);
    settings.forEach(c::set);
    this.config = c.validate();
    this.builder = new BulletQueryBuilder(config);
    this.provider = config.getBulletRecordProvider();
  }

  @Override
  public Map<String, Object> apply(Map<String, Object> request) {
    String op = (String) request.get("op");
    switch (op) {
      case "run":
        return run((String) request.get("bql"), maps(request.get("records")));
      case "open":
        return open(strings(request.get("queries")));
      case "consume":
        return consume(request);
      case "finish":
        return finish((Integer) request.get("handle"));
      case "pool":
        return pool((Integer) request.get("pool"), maps(request.get("records")));
      case "drop":
        pools.remove((Integer) request.get("pool"));
        return Map.of();
      default:
        throw new IllegalArgumentException("Unknown op " + op);
    }
  }

  private Map<String, Object> run(String bql, List<Map<String, Object>> records) {
    Object built = build("q", bql);
    if (built instanceof List) {
      return Map.of("errors", built);
    }
    Querier querier = (Querier) built;
    List<Object> windows = new ArrayList<>();
    boolean done = false;
    for (Map<String, Object> r : records) {
      querier.consume(Records.toBullet(r, provider));
      if (querier.isDone()) {
        done = true;
        break;
      }
      if (querier.isClosed()) {
        windows.add(clip(querier.getResult()));
        querier.reset();
      }
    }
    windows.add(clip(querier.finish()));
    return Map.of("windows", windows, "done", done);
  }

  /** A started Querier, or the list of Bullet's errors for the query. */
  private Object build(String id, String bql) {
    BQLResult result;
    try {
      result = builder.buildQuery(bql);
    } catch (RuntimeException e) {
      return List.of(error("Bullet threw " + e, List.of()));
    }
    if (result.hasErrors()) {
      List<Object> errors = new ArrayList<>();
      for (BulletError e : result.getErrors()) {
        errors.add(error(e.getError(), e.getResolutions()));
      }
      return errors;
    }
    try {
      RunningQuery running = new RunningQuery(id, result.getQuery(), new Metadata(null, bql));
      return new Querier(running, config);
    } catch (RuntimeException e) {
      return List.of(error("Bullet threw " + e, List.of()));
    }
  }

  private static Map<String, Object> error(String message, List<String> resolutions) {
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("error", message);
    e.put("resolutions", resolutions == null ? List.of() : List.copyOf(resolutions));
    return e;
  }

  private static Map<String, Object> clip(Clip clip) {
    List<Object> records = new ArrayList<>();
    for (BulletRecord<?> r : clip.getRecords()) {
      records.add(Records.plain(r.toUnmodifiableDataMap()));
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("records", records);
    out.put("meta", Records.plain(clip.getMeta().asMap()));
    return out;
  }

  /** The queries of one {@link QueryManager} and what they emitted. */
  private static final class Session {
    final QueryManager manager;
    final Map<String, List<Object>> windows = new LinkedHashMap<>();

    Session(QueryManager manager) {
      this.manager = manager;
    }
  }

  private Map<String, Object> open(Map<String, String> queries) {
    Session session = new Session(new QueryManager(config));
    Map<String, Object> rejected = new LinkedHashMap<>();
    queries.forEach(
        (id, bql) -> {
          Object built = build(id, bql);
          if (built instanceof Querier querier) {
            session.manager.addQuery(id, querier);
            session.windows.put(id, new ArrayList<>());
          } else {
            rejected.put(id, built);
          }
        });
    int handle = nextHandle++;
    sessions.put(handle, session);
    return Map.of("handle", handle, "rejected", rejected);
  }

  /** A new pool of these records, or, given a handle, that pool with them appended. */
  private Map<String, Object> pool(Integer append, List<Map<String, Object>> records) {
    BulletRecord<?>[] before = append == null ? new BulletRecord<?>[0] : pools.get(append);
    if (before == null) {
      throw new IllegalArgumentException("No pool " + append);
    }
    BulletRecord<?>[] pool = java.util.Arrays.copyOf(before, before.length + records.size());
    for (int i = 0; i < records.size(); i++) {
      pool[before.length + i] = Records.toBullet(records.get(i), provider);
    }
    int handle = append == null ? nextHandle++ : append;
    pools.put(handle, pool);
    return Map.of("pool", handle, "records", pool.length);
  }

  private Map<String, Object> consume(Map<String, Object> request) {
    Session session = session((Integer) request.get("handle"));
    if (request.containsKey("pool")) {
      BulletRecord<?>[] pool = pools.get((Integer) request.get("pool"));
      if (pool == null) {
        throw new IllegalArgumentException("No pool " + request.get("pool"));
      }
      int from = (Integer) request.get("from");
      int count = (Integer) request.get("count");
      long emitted = 0;
      for (int i = 0, at = from % pool.length; i < count; i++) {
        emitted += offer(session, pool[at]);
        at = at + 1 == pool.length ? 0 : at + 1;
      }
      return Map.of("records", (long) count, "malformed", 0L, "emitted", emitted);
    }
    long records = 0;
    long malformed = 0;
    long emitted = 0;
    List<?> lines = (List<?>) request.get("json");
    List<?> maps = lines != null ? lines : (List<?>) request.get("records");
    for (Object each : maps) {
      BulletRecord<?> r;
      try {
        // JSON in one streaming pass, as a Bullet deployment's converter reads it
        r =
            each instanceof byte[] bytes
                ? JsonRecords.read(bytes, provider)
                : Records.toBullet(cast(each), provider);
      } catch (IOException | RuntimeException e) {
        malformed++;
        continue;
      }
      records++;
      emitted += offer(session, r);
    }
    return Map.of("records", records, "malformed", malformed, "emitted", emitted);
  }

  /**
   * Hands a record to the queries the manager's partitioner picks for it, as Bullet's filter stage
   * does; reads and resets windows that close. Returns how many did.
   */
  private int offer(Session session, BulletRecord<?> record) {
    int emitted = 0;
    for (Map.Entry<String, Querier> e : session.manager.partition(record).entrySet()) {
      Querier querier = e.getValue();
      querier.consume(record);
      if (querier.isClosed() && !querier.isDone()) {
        session.windows.get(e.getKey()).add(clip(querier.getResult()));
        querier.reset();
        emitted++;
      }
    }
    return emitted;
  }

  private Map<String, Object> finish(int handle) {
    Session session = session(handle);
    sessions.remove(handle);
    Map<String, Object> results = new LinkedHashMap<>();
    for (Map.Entry<String, List<Object>> e : session.windows.entrySet()) {
      Querier querier = session.manager.removeAndGetQuery(e.getKey());
      e.getValue().add(clip(querier.finish()));
      results.put(e.getKey(), e.getValue());
    }
    return Map.of("results", results);
  }

  private Session session(int handle) {
    Session s = sessions.get(handle);
    if (s == null) {
      throw new IllegalArgumentException("No open queries with handle " + handle);
    }
    return s;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> cast(Object o) {
    return (Map<String, Object>) o;
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> maps(Object o) {
    return (List<Map<String, Object>>) o;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, String> strings(Object o) {
    return (Map<String, String>) o;
  }
}
