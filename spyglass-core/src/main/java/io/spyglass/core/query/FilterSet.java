package io.spyglass.core.query;

import io.spyglass.core.plan.Aggregation;
import io.spyglass.core.plan.Call;
import io.spyglass.core.plan.Expr;
import io.spyglass.core.plan.FieldRef;
import io.spyglass.core.plan.NamedExpr;
import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.plan.QueryPlan;
import io.spyglass.core.plan.Window;
import io.spyglass.core.record.BadRecord;
import io.spyglass.core.record.JsonRecordReader;
import io.spyglass.core.record.MalformedRecordException;
import io.spyglass.core.record.Record;
import io.spyglass.core.record.RecordScanner;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * The filter side of every query running over one partition of the stream: a runtime has one per
 * worker thread. It routes each record, through a {@link QueryIndex}, to the queries that can match
 * it, and flushes their partial results to a {@link PartialSink}.
 *
 * <p>A runtime calls {@link #process} for each record of a batch, then {@link #endOfBatch()}; and
 * {@link #flush()} when its combiners need every partial (on a tick, before windows close).
 *
 * <p>A query whose evaluation, aggregation or flush throws is dropped from the set and reported to
 * {@link PartialSink#failed}; the other queries go on.
 *
 * <p>Not thread-safe: confined to the thread that processes the partition.
 */
public final class FilterSet {
  private final QueryLimits limits;
  private final LongSupplier clock;

  /** What its filters share: the default limits and the clock. */
  private final QueryFilter.Env env;

  private final PartialSink sink;
  private final QueryIndex index = new QueryIndex();

  /** The record being processed, for {@link #offerCurrent}. */
  private Record current;

  private final RangeIndex.Sink offerCurrent = f -> offer(f, current);
  private final FilterTable filters = new FilterTable();

  /**
   * Queries that share another query's filter ({@link #shareIdentical}), by id: to that filter,
   * whose own query is another.
   */
  private final Map<String, QueryFilter> sharing = new HashMap<>();

  /** Whether identical queries added with no record between them share one filter. */
  private boolean shareIdentical;

  /**
   * The last filter added for each plan and limits, while sharing: a query identical to it that
   * comes before the next record joins it.
   */
  private final Map<ShareKey, QueryFilter> lastByPlan = new HashMap<>();

  /** What makes two queries' filters the same: plan and limits (text and id aside). */
  private record ShareKey(QueryPlan plan, QueryLimits limits) {}

  /** Raw queries that matched records in this batch: flushed at its end. */
  private final List<QueryFilter> dirtyRaw = new ArrayList<>();

  /**
   * Queries offered a record since the last {@link #flush()}: only their partials can have changed,
   * so a tick with thousands of queries walks these, not every query.
   */
  private final List<QueryFilter> offeredSinceFlush = new ArrayList<>();

  /** Queries offered a record since the last {@link #stats()}: only their counters changed. */
  private final List<QueryFilter> offeredSinceStats = new ArrayList<>();

  private long processed;

  /** Record-query pairs whose filter was evaluated. */
  private long evaluations;

  /** Queries that threw, dropped and reported once the loop that found them is over. */
  private final List<Failed> failed = new ArrayList<>();

  private record Failed(QueryFilter filter, Throwable error) {}

  /** How many queries read each top-level field. */
  private final Map<String, Integer> fieldUses = new HashMap<>();

  private Set<String> referencedFields = Set.of();

  private final JsonRecordReader.Limits recordLimits;

  /** Reads JSON records for {@link #read}; made on first use. */
  private RecordScanner scanner;

  /** Fields the runtime sets on records after {@link #read}: the raw probe cannot see them. */
  private Set<String> virtualFields = Set.of();

  /** Changes whenever a query comes or goes, so the probe's slots are recomputed. */
  private long version;

  private long probeVersion = -1;
  private Set<String> probeSelection;

  /** Per indexed field: its slot in the scanner, or -1 when the probe cannot see it. */
  private int[] equalitySlots = new int[0];

  private int[] rangeSlots = new int[0];

  /**
   * @param clock the engine clock, read by {@code NOW()}
   * @param sink where flushed partials go
   */
  public FilterSet(QueryLimits limits, LongSupplier clock, PartialSink sink) {
    this(limits, JsonRecordReader.Limits.DEFAULTS, clock, sink);
  }

  /**
   * @param recordLimits bounds on the JSON records {@link #read} reads
   * @param clock the engine clock, read by {@code NOW()}
   * @param sink where flushed partials go
   */
  public FilterSet(
      QueryLimits limits,
      JsonRecordReader.Limits recordLimits,
      LongSupplier clock,
      PartialSink sink) {
    this.limits = limits;
    this.recordLimits = recordLimits;
    this.clock = clock;
    this.sink = sink;
    this.env = new QueryFilter.Env(limits, clock);
  }

  /**
   * Makes identical queries share their work: a query whose plan and limits are those of one added
   * before it, with no record processed between the two, joins that query's filter, so that each
   * record is evaluated once for both and their partials are flushed once, to {@link
   * PartialSink#accept(Query, List, Partial)}. Such queries have seen the same records and so have
   * the same partials; one that leaves (removed, or its runtime stops it) leaves the others their
   * filter. Off by default; set it before adding queries.
   */
  public void shareIdentical(boolean share) {
    this.shareIdentical = share;
  }

  /** Starts filtering for {@code query}. A query already present is left as it is. */
  public void add(Query query) {
    if (contains(query.id())) {
      return;
    }
    ShareKey key = null;
    if (shareIdentical) {
      key = new ShareKey(query.plan(), query.limitsOr(limits));
      QueryFilter same = lastByPlan.get(key);
      if (same != null
          && same.seenBase == processed
          && !same.failed
          && filters.get(same.query.id()) == same) {
        // the same records from here on, the same evaluation: one filter for both
        same.share(query);
        sharing.put(query.id(), same);
        queriesChanged();
        return;
      }
    }
    QueryFilter f = new QueryFilter(query);
    f.seenBase = processed;
    filters.put(f);
    index.add(f);
    countFields(query, 1);
    if (key != null) {
      lastByPlan.put(key, f);
    }
    queriesChanged();
  }

  /**
   * Stops filtering for the query and drops its state, without flushing it. A query that shares its
   * filter leaves it to the others, state and all.
   */
  public void remove(String queryId) {
    QueryFilter shared = sharing.remove(queryId);
    if (shared != null) {
      shared.sharers.removeIf(q -> q.id().equals(queryId));
      queriesChanged();
      return;
    }
    QueryFilter f = filters.remove(queryId);
    if (f == null) {
      return;
    }
    if (!f.sharers.isEmpty()) {
      // the next query that shares it takes its place: same plan, same records seen
      Query next = f.sharers.remove(0);
      sharing.remove(next.id());
      f.query = next;
      filters.put(f);
      queriesChanged();
      return;
    }
    index.remove(f);
    countFields(f.query, -1);
    if (shareIdentical) {
      lastByPlan.remove(new ShareKey(f.query.plan(), f.query.limitsOr(limits)), f);
    }
    queriesChanged();
  }

  /**
   * A query came or went: the probe's slots and the statistics' snapshot are made afresh, so the
   * queries offered records since the last snapshot need not be remembered (nor kept alive when
   * statistics are never asked for).
   */
  private void queriesChanged() {
    version++;
    for (int i = 0; i < offeredSinceStats.size(); i++) {
      offeredSinceStats.get(i).offeredSinceStats = false;
    }
    offeredSinceStats.clear();
  }

  /** Its query index: for tests that look at what it holds. */
  QueryIndex index() {
    return index;
  }

  /** The filter of a query here, or null: for tests that look at what it holds. */
  QueryFilter filter(String queryId) {
    QueryFilter f = filters.get(queryId);
    return f != null ? f : sharing.get(queryId);
  }

  public boolean contains(String queryId) {
    return filters.get(queryId) != null || sharing.containsKey(queryId);
  }

  /** The queries here, those that share a filter included. */
  public int size() {
    return filters.size() + sharing.size();
  }

  /** Records processed since this filter set was made. */
  public long processed() {
    return processed;
  }

  /**
   * Record-query pairs whose filter was evaluated since this filter set was made: the work the
   * indexes left, as opposed to records times queries.
   */
  public long evaluations() {
    return evaluations;
  }

  /**
   * Names the fields the runtime sets on each record between {@link #read} and {@link #process}
   * (such as when it was read): {@link #read} cannot see them in the bytes, so it never rules a
   * record out on them.
   */
  public void virtualFields(Set<String> names) {
    virtualFields = Set.copyOf(names);
    version++;
  }

  /**
   * Reads one JSON record, only the fields the queries here read, when some query can match it:
   * filter before parse. The bytes are scanned (and checked whole, whatever the queries read)
   * without being decoded; the values of the fields that equality and range indexes file queries
   * under are looked up raw, and when no query can match, nothing is decoded and false is returned
   * (the record counts as processed). Otherwise {@code into} is filled ({@link Record#partOf
   * partial}, the bytes must stay unchanged while it is in use) and true is returned: hand it to
   * {@link #process}, after setting any {@linkplain #virtualFields virtual fields}.
   *
   * @throws MalformedRecordException when the bytes are not one JSON object within the limits, with
   *     the one reason {@link RecordScanner#failure} gives; also, should reading a record the scan
   *     accepted ever fail, for that record alone, so that one record never ends the others
   */
  public boolean read(byte[] bytes, int offset, int length, Record into)
      throws MalformedRecordException {
    RecordScanner s = scanner;
    if (s == null) {
      s = scanner = new RecordScanner(recordLimits);
    }
    if (s.selection() != referencedFields) {
      s.select(referencedFields);
    }
    if (!s.scan(bytes, offset, length)) {
      throw refused(s, into);
    }
    try {
      if (mayMatch(s)) {
        s.decode(into);
        return true;
      }
    } catch (RuntimeException e) {
      throw unreadable(e, into);
    }
    processed++;
    return false;
  }

  private static MalformedRecordException refused(RecordScanner s, Record into) {
    into.clear();
    return s.failure();
  }

  private static MalformedRecordException unreadable(RuntimeException e, Record into) {
    into.clear();
    return new MalformedRecordException(
        BadRecord.MALFORMED_JSON, "The record could not be read: " + e, e);
  }

  /** Whether some query can match the record {@code s} scanned, judged from its raw values. */
  private boolean mayMatch(RecordScanner s) {
    if (index.unindexed().size > 0) {
      return true;
    }
    if (probeVersion != version || probeSelection != s.selection()) {
      probeSlots(s);
    }
    int[] slots = equalitySlots;
    for (int i = 0; i < slots.length; i++) {
      int slot = slots[i];
      if (slot < 0) {
        return true;
      }
      if (s.kind(slot) != RecordScanner.ABSENT && index.candidates(i, s, slot) != null) {
        return true;
      }
    }
    slots = rangeSlots;
    for (int i = 0; i < slots.length; i++) {
      int slot = slots[i];
      if (slot < 0) {
        return true;
      }
      if (s.kind(slot) != RecordScanner.ABSENT && index.rangeMayHold(i, s, slot)) {
        return true;
      }
    }
    return false;
  }

  private void probeSlots(RecordScanner s) {
    equalitySlots = new int[index.indexedFieldCount()];
    for (int i = 0; i < equalitySlots.length; i++) {
      String name = index.indexedField(i);
      equalitySlots[i] = virtualFields.contains(name) ? -1 : s.slot(name);
    }
    rangeSlots = new int[index.rangeFieldCount()];
    for (int i = 0; i < rangeSlots.length; i++) {
      String name = index.rangeField(i);
      rangeSlots[i] = virtualFields.contains(name) ? -1 : s.slot(name);
    }
    probeVersion = version;
    probeSelection = s.selection();
  }

  /**
   * Offers one record to the queries that can match it. A raw query whose partial fills is flushed
   * at once. {@code record} is valid only during this call; it is not modified.
   */
  public void process(Record record) {
    processed++;
    offerAll(index.unindexed(), record);
    for (int i = 0, n = index.indexedFieldCount(); i < n; i++) {
      Object candidates = index.candidates(i, record);
      if (candidates instanceof QueryFilter f) {
        offer(f, record);
      } else if (candidates != null) {
        offerAll((QueryIndex.Bucket) candidates, record);
      }
    }
    int ranges = index.rangeFieldCount();
    if (ranges > 0) {
      current = record;
      for (int i = 0; i < ranges; i++) {
        index.rangeCandidates(i, record, offerCurrent);
      }
      current = null;
    }
    if (!failed.isEmpty()) {
      dropFailed();
    }
  }

  private void offerAll(QueryIndex.Bucket bucket, Record record) {
    QueryFilter[] items = bucket.items;
    int n = bucket.size;
    if (items == null) {
      if (n == 1) {
        offer(bucket.one, record);
      }
      return;
    }
    for (int i = 0; i < n; i++) {
      offer(items[i], record);
    }
  }

  private void offer(QueryFilter f, Record record) {
    evaluations++;
    if (!f.offeredSinceFlush) {
      f.offeredSinceFlush = true;
      offeredSinceFlush.add(f);
    }
    if (!f.offeredSinceStats) {
      f.offeredSinceStats = true;
      offeredSinceStats.add(f);
    }
    int outcome;
    try {
      outcome = f.consume(record, env);
    } catch (RuntimeException | StackOverflowError | LinkageError e) {
      failed(f, e);
      return;
    }
    if (outcome == QueryEvaluation.SKIPPED) {
      return;
    }
    if (outcome == QueryEvaluation.FULL) {
      flush(f);
    } else if (f.isRaw() && !f.dirty) {
      f.dirty = true;
      dirtyRaw.add(f);
    }
  }

  /** Ends a batch: flushes raw queries that matched records, so they reach results at once. */
  public void endOfBatch() {
    for (int i = 0; i < dirtyRaw.size(); i++) {
      QueryFilter f = dirtyRaw.get(i);
      f.dirty = false;
      if (filters.get(f.query.id()) == f && f.hasState()) {
        flush(f);
      }
    }
    dirtyRaw.clear();
    if (!failed.isEmpty()) {
      dropFailed();
    }
  }

  /**
   * Flushes every query with a non-empty partial. A partial changes only when its query is offered
   * a record, so only the queries offered one since the last call are looked at.
   */
  public void flush() {
    List<QueryFilter> offered = offeredSinceFlush;
    for (int i = 0; i < offered.size(); i++) {
      QueryFilter f = offered.get(i);
      f.offeredSinceFlush = false;
      if (filters.get(f.query.id()) == f && f.hasState()) {
        flush(f);
      }
    }
    offered.clear();
    if (!failed.isEmpty()) {
      dropFailed();
    }
  }

  /** Flushes one query's partial, if it has one (and so of those that share its filter). */
  public void flush(String queryId) {
    QueryFilter f = filter(queryId);
    if (f != null && f.hasState()) {
      flush(f);
      if (!failed.isEmpty()) {
        dropFailed();
      }
    }
  }

  private void flush(QueryFilter f) {
    try {
      if (f.sharers.isEmpty()) {
        sink.accept(f.query, f.partial());
      } else {
        sink.accept(f.query, f.sharers, f.partial());
      }
      f.partial().reset();
    } catch (RuntimeException | StackOverflowError | LinkageError e) {
      failed(f, e);
    }
  }

  private void failed(QueryFilter f, Throwable error) {
    if (!f.failed) {
      f.failed = true;
      failed.add(new Failed(f, error));
    }
  }

  /** Drops the queries that threw and reports them; called outside the loops over queries. */
  private void dropFailed() {
    List<Failed> drop = new ArrayList<>(failed);
    failed.clear();
    for (Failed d : drop) {
      // every query that shares the filter fails with it
      List<Query> all = new ArrayList<>(d.filter().sharers);
      all.add(0, d.filter().query);
      for (int i = all.size() - 1; i >= 0; i--) {
        remove(all.get(i).id());
      }
      for (Query q : all) {
        sink.failed(q, d.error());
      }
    }
  }

  /** Statistics of one query in this partition, or null when it is not here. */
  public QueryStats stats(String queryId) {
    QueryFilter f = filter(queryId);
    return f == null ? null : stats(f);
  }

  private QueryStats stats(QueryFilter f) {
    return new QueryStats(processed - f.seenBase, f.matched(), f.errors());
  }

  /**
   * Statistics of every query here, by query id: an unmodifiable snapshot, safe to read from other
   * threads. Taken on every tick with thousands of queries: when no query came or went, it copies
   * the last snapshot's counters and updates those of the queries offered records since, and it
   * builds each query's {@link QueryStats} only when read.
   */
  public Map<String, QueryStats> stats() {
    List<QueryFilter> offered = offeredSinceStats;
    if (statsVersion != version) {
      int n = size();
      statIds = new String[n];
      statBases = new long[n];
      statMatched = new long[n];
      statErrors = new long[n];
      int i = 0;
      for (QueryFilter f : filters) {
        // the queries that share a filter take the slots after its own
        f.statsSlot = i;
        for (int k = -1; k < f.sharers.size(); k++) {
          statIds[i] = (k < 0 ? f.query : f.sharers.get(k)).id();
          statBases[i] = f.seenBase;
          statMatched[i] = f.matched();
          statErrors[i++] = f.errors();
        }
      }
      for (int j = 0; j < offered.size(); j++) {
        offered.get(j).offeredSinceStats = false;
      }
      statsVersion = version;
    } else if (!offered.isEmpty()) {
      // a snapshot handed out is never changed: update copies
      long[] matched = statMatched.clone();
      long[] errors = statErrors.clone();
      for (int j = 0; j < offered.size(); j++) {
        QueryFilter f = offered.get(j);
        f.offeredSinceStats = false;
        if (filters.get(f.query.id()) == f) {
          for (int k = 0; k <= f.sharers.size(); k++) {
            matched[f.statsSlot + k] = f.matched();
            errors[f.statsSlot + k] = f.errors();
          }
        }
      }
      statMatched = matched;
      statErrors = errors;
    }
    offered.clear();
    return new StatsSnapshot(statIds, statBases, processed, statMatched, statErrors);
  }

  /**
   * Query ids in the order of {@link #filters}, when each started and its counters, as of the last
   * {@link #stats()}; their slots are {@link QueryFilter#statsSlot} as of {@link #version}.
   */
  private String[] statIds = new String[0];

  private long[] statBases = new long[0];
  private long[] statMatched = new long[0];
  private long[] statErrors = new long[0];
  private long statsVersion = -1;

  /**
   * The top-level fields the queries here filter, group or compute on, so a reader can skip the
   * others. Queries that keep whole records ({@code SELECT *}) get them from {@link
   * Record#toFullMap()} for the records they match, so a reader that keeps only these fields must
   * mark its records {@link Record#partOf partial}. Changes when queries come and go.
   */
  public Set<String> referencedFields() {
    return referencedFields;
  }

  private void countFields(Query query, int delta) {
    Set<String> names = new HashSet<>();
    collectFields(query.plan(), names);
    boolean changed = false;
    for (String name : names) {
      int uses = fieldUses.getOrDefault(name, 0) + delta;
      if (uses <= 0) {
        fieldUses.remove(name);
        changed = true;
      } else {
        changed |= fieldUses.put(name, uses) == null;
      }
    }
    if (changed) {
      referencedFields = Set.copyOf(fieldUses.keySet());
    }
  }

  /** Adds the top-level fields a plan reads; returns true when it reads whole records. */
  static boolean collectFields(QueryPlan plan, Set<String> out) {
    List<Expr> exprs = new ArrayList<>();
    plan.where().ifPresent(exprs::add);
    if (plan.window() instanceof Window.EventTime eventTime) {
      exprs.add(eventTime.time());
    }
    plan.lateralViews().forEach(v -> exprs.add(v.source()));
    boolean all = false;
    Aggregation agg = plan.aggregation();
    if (agg instanceof Aggregation.Raw) {
      Aggregation.Raw raw = (Aggregation.Raw) agg;
      all = raw.projection().isEmpty();
      raw.projection().ifPresent(p -> addNamed(p, exprs));
    } else if (agg instanceof Aggregation.Group) {
      Aggregation.Group g = (Aggregation.Group) agg;
      addNamed(g.keys(), exprs);
      g.metrics().forEach(m -> exprs.addAll(m.arguments()));
    } else if (agg instanceof Aggregation.CountDistinct) {
      exprs.addAll(((Aggregation.CountDistinct) agg).fields());
    } else if (agg instanceof Aggregation.Distribution) {
      exprs.add(((Aggregation.Distribution) agg).value());
    } else if (agg instanceof Aggregation.TopK) {
      addNamed(((Aggregation.TopK) agg).fields(), exprs);
    }
    for (Expr e : exprs) {
      addFieldNames(e, out);
    }
    return all;
  }

  private static void addNamed(Collection<NamedExpr> named, List<Expr> out) {
    named.forEach(n -> out.add(n.expr()));
  }

  private static void addFieldNames(Expr e, Set<String> out) {
    if (e instanceof FieldRef) {
      out.add(((FieldRef) e).name());
    } else if (e instanceof Call) {
      for (Expr a : ((Call) e).args()) {
        addFieldNames(a, out);
      }
    }
  }
}
