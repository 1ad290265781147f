package io.spyglass.core.query;

import io.spyglass.core.partial.Partial;
import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.record.Record;
import io.spyglass.core.result.Result;
import io.spyglass.core.syntax.BqlException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Every query over one partition, filter and combiner in one place: the whole engine for a single
 * thread. A runtime (or a test) submits queries, hands it records, ends batches and tells the time;
 * results arrive at the {@link ResultSink}.
 *
 * <pre>{@code
 * QueryProcessor p = new QueryProcessor(QueryLimits.DEFAULTS, clock, (query, result) -> ...);
 * p.submit("q1", "SELECT COUNT(*) FROM STREAM(10000, TIME)");
 * for (Record r : batch) p.process(r);
 * p.endOfBatch();
 * p.advance();   // on every tick; reads the clock
 * }</pre>
 *
 * <p>Not thread-safe: confined to one thread.
 */
public final class QueryProcessor {
  private final QueryLimits limits;
  private final LongSupplier clock;
  private final FilterSet filters;
  private final Map<String, QueryCombiner> combiners = new LinkedHashMap<>();
  private final List<String> finished = new ArrayList<>();

  /**
   * @param clock the engine clock in epoch milliseconds; the only source of time
   */
  public QueryProcessor(QueryLimits limits, LongSupplier clock, ResultSink sink) {
    this.limits = limits;
    this.clock = clock;
    this.filters =
        new FilterSet(
            limits,
            clock,
            new PartialSink() {
              @Override
              public void accept(Query query, Partial partial) {
                onPartial(query, partial);
              }

              @Override
              public void failed(Query query, Throwable error) {
                onFailure(query, error);
              }
            });
    this.sinkRef = sink;
  }

  private final ResultSink sinkRef;

  /**
   * Parses and starts a query; it sees records processed from now on.
   *
   * @throws BqlException when the text is not a valid query
   * @throws IllegalArgumentException when the id is already running
   */
  public Query submit(String id, String text) {
    if (combiners.containsKey(id)) {
      throw new IllegalArgumentException("A query with id " + id + " is already running");
    }
    Query query = Query.parse(id, text, limits, clock.getAsLong());
    start(query);
    return query;
  }

  /** Starts an already parsed query. */
  public void start(Query query) {
    combiners.put(query.id(), new QueryCombiner(query, limits, sinkRef, clock));
    filters.add(query);
  }

  /** Stops a query at once, without a result, and frees its state. */
  public boolean kill(String id) {
    filters.remove(id);
    return combiners.remove(id) != null;
  }

  /** Ends a query now and emits its final result, as when its duration ends. */
  public void finish(String id) {
    QueryCombiner c = combiners.get(id);
    if (c != null) {
      filters.flush(id);
      c.finish(clock.getAsLong());
      removeFinished();
    }
  }

  /** Ends every query now, each with its final result: for a source that has ended. */
  public void finishAll() {
    filters.flush();
    long now = clock.getAsLong();
    for (QueryCombiner c : combiners.values()) {
      c.finish(now);
    }
    removeFinished();
  }

  /**
   * The query's open window(s) as results, without closing them: what it has so far, with every
   * record processed until now ({@link QueryCombiner#peek}). Empty for a query not running.
   */
  public List<Result> peek(String id) {
    QueryCombiner c = combiners.get(id);
    if (c == null) {
      return List.of();
    }
    filters.flush(id);
    List<Result> out = c.peek(clock.getAsLong());
    removeFinished();
    return out;
  }

  /** Offers one record to every query; {@code record} is valid only during this call. */
  public void process(Record record) {
    filters.process(record);
  }

  /** Ends a batch: raw queries pass on what they matched and may finish. */
  public void endOfBatch() {
    filters.endOfBatch();
    removeFinished();
  }

  /** Reads the clock, closes windows that are due and ends queries whose duration is over. */
  public void advance() {
    long now = clock.getAsLong();
    filters.flush();
    for (QueryCombiner c : combiners.values()) {
      c.advance(now);
    }
    removeFinished();
  }

  /** The earliest time at which {@link #advance} has something to do. */
  public long nextDeadlineMs() {
    long next = Long.MAX_VALUE;
    for (QueryCombiner c : combiners.values()) {
      next = Math.min(next, c.nextDeadlineMs());
    }
    return next;
  }

  public Collection<Query> running() {
    List<Query> out = new ArrayList<>(combiners.size());
    combiners.values().forEach(c -> out.add(c.query()));
    return out;
  }

  public int size() {
    return combiners.size();
  }

  /** The filter side, to read the fields the queries need and per-query statistics. */
  public FilterSet filters() {
    return filters;
  }

  private void onPartial(Query query, Partial partial) {
    QueryCombiner c = combiners.get(query.id());
    if (c != null) {
      c.accept(partial, clock.getAsLong());
      if (c.isDone()) {
        finished.add(query.id());
      }
    }
  }

  private void onFailure(Query query, Throwable error) {
    QueryCombiner c = combiners.get(query.id());
    if (c != null) {
      c.fail(error, clock.getAsLong());
      finished.add(query.id());
    }
  }

  private void removeFinished() {
    for (QueryCombiner c : combiners.values()) {
      if (c.isDone()) {
        finished.add(c.query().id());
      }
    }
    for (String id : finished) {
      kill(id);
    }
    finished.clear();
  }
}
