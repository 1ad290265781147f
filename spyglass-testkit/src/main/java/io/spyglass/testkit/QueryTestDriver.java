package io.spyglass.testkit;

import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.query.Query;
import io.spyglass.core.query.QueryProcessor;
import io.spyglass.core.record.JsonRecordReader;
import io.spyglass.core.record.MalformedRecordException;
import io.spyglass.core.record.Record;
import io.spyglass.core.result.Result;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Drives queries the way a runtime does, on one thread with a {@link ManualClock}: submit queries,
 * pipe records (as JSON or built), advance time, and read the results each query emitted. No
 * threads, no sleeping.
 *
 * <pre>{@code
 * QueryTestDriver d = new QueryTestDriver();
 * d.submit("q", "SELECT COUNT(*) AS n FROM STREAM(1000, TIME)");
 * d.pipe("{\"a\": 1}");
 * d.advance(1000);
 * d.results("q");  // one result: [{"n": 1}]
 * }</pre>
 */
public final class QueryTestDriver {
  /** The clock starts here, so that times in results are easy to read. */
  public static final long START_MS = 1_000_000L;

  private final ManualClock clock;
  private final QueryProcessor processor;
  private final JsonRecordReader reader = new JsonRecordReader();
  private final Record scratch = new Record();
  private final Map<String, List<Result>> results = new LinkedHashMap<>();
  private long malformed;

  public QueryTestDriver() {
    this(QueryLimits.DEFAULTS);
  }

  public QueryTestDriver(QueryLimits limits) {
    this.clock = new ManualClock(START_MS);
    this.processor =
        new QueryProcessor(
            limits,
            clock,
            (query, result) ->
                results.computeIfAbsent(query.id(), k -> new ArrayList<>()).add(result));
  }

  public ManualClock clock() {
    return clock;
  }

  public QueryProcessor processor() {
    return processor;
  }

  /** Starts a query; see {@link QueryProcessor#submit}. */
  public Query submit(String id, String bql) {
    results.putIfAbsent(id, new ArrayList<>());
    return processor.submit(id, bql);
  }

  /** Feeds JSON records as one batch; malformed ones are counted and skipped. */
  public QueryTestDriver pipe(String... jsonRecords) {
    for (String json : jsonRecords) {
      try {
        reader.read(json, scratch);
        processor.process(scratch);
      } catch (MalformedRecordException e) {
        malformed++;
      }
    }
    processor.endOfBatch();
    return this;
  }

  /** Feeds built records as one batch. */
  public QueryTestDriver pipe(List<Record> records) {
    for (Record r : records) {
      processor.process(r);
    }
    processor.endOfBatch();
    return this;
  }

  /** Moves the clock forward and lets windows and durations run out. */
  public QueryTestDriver advance(long ms) {
    clock.advance(ms);
    processor.advance();
    return this;
  }

  /** The query's open windows as results, without closing them; see {@link QueryProcessor#peek}. */
  public List<Result> peek(String id) {
    return processor.peek(id);
  }

  /** Ends every query now, as a bounded source does at its end. */
  public QueryTestDriver finishAll() {
    processor.finishAll();
    return this;
  }

  /** What the query emitted so far, in order. */
  public List<Result> results(String id) {
    return results.getOrDefault(id, List.of());
  }

  /** The records of the query's last result. */
  public List<Map<String, Object>> lastRecords(String id) {
    List<Result> rs = results(id);
    if (rs.isEmpty()) {
      throw new AssertionError("query " + id + " emitted nothing");
    }
    return rs.get(rs.size() - 1).records();
  }

  public long malformed() {
    return malformed;
  }
}
