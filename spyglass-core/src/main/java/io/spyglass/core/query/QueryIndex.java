package io.spyglass.core.query;

import io.spyglass.core.plan.Call;
import io.spyglass.core.plan.Expr;
import io.spyglass.core.plan.FieldRef;
import io.spyglass.core.plan.Literal;
import io.spyglass.core.plan.Op;
import io.spyglass.core.plan.QueryPlan;
import io.spyglass.core.record.Record;
import io.spyglass.core.record.RecordScanner;
import io.spyglass.core.record.Surrogates;
import io.spyglass.core.record.Utf8Bytes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Finds, for a record, the queries that can match it without evaluating the others. Derived from
 * the queries' own predicates, with no configuration: a query whose filter is, or has as a
 * conjunct, {@code field = constant} or {@code field IN (constants)} on a top-level field, or on a
 * member of a top-level map ({@code demographics.country}, {@code demographics['country']}), is
 * filed under those constants; any other query is always a candidate. Candidates still evaluate
 * their whole filter, so results are the same with and without the index: the keys of numbers are
 * their exact values ({@link #normalise}), as the evaluator compares them.
 *
 * <p>Not thread-safe: each filter set has its own.
 */
final class QueryIndex {
  /**
   * How a query is filed: the top-level field, the member of its map or null for the field itself,
   * and the normalised constants.
   */
  record Key(String field, String member, Set<Object> values) {
    Path path() {
      return new Path(field, member);
    }

    /** As BQL writes it. */
    String describe() {
      return member == null ? field : field + "." + member;
    }
  }

  /**
   * What an index is on: a top-level field, or a member of the map in one. The field's name is
   * interned, as records' names are, so that finding it in a record mostly compares references.
   */
  record Path(String field, String member) {
    Path {
      field = field.intern();
    }
  }

  private final Map<Path, FieldIndex> fields = new HashMap<>();
  private Path[] fieldNames = new Path[0];
  private FieldIndex[] fieldIndexes = new FieldIndex[0];
  private final Bucket unindexed = new Bucket();
  private final Map<String, RangeIndex> ranges = new HashMap<>();
  private String[] rangeNames = new String[0];
  private RangeIndex[] rangeIndexes = new RangeIndex[0];

  /** The key a plan is filed under, or empty when it cannot be indexed. */
  static Optional<Key> keyOf(QueryPlan plan) {
    if (!plan.lateralViews().isEmpty() || plan.where().isEmpty()) {
      return Optional.empty();
    }
    List<Key> candidates = new ArrayList<>();
    collect(plan.where().get(), candidates);
    Key best = null;
    for (Key k : candidates) {
      if (best == null || k.values().size() < best.values().size()) {
        best = k;
      }
    }
    return Optional.ofNullable(best);
  }

  private static void collect(Expr e, List<Key> out) {
    if (!(e instanceof Call)) {
      return;
    }
    Call c = (Call) e;
    if (c.op() == Op.AND) {
      for (Expr conjunct : c.args()) {
        collect(conjunct, out);
      }
    } else if (c.op() == Op.EQ) {
      Key k = equality(c.arg(0), c.arg(1));
      if (k == null) {
        k = equality(c.arg(1), c.arg(0));
      }
      if (k != null) {
        out.add(k);
      }
    } else if (c.op() == Op.IN) {
      List<?> constants = Literal.listValues(c.arg(1));
      Path f = pathOf(c.arg(0));
      if (constants != null && f != null) {
        Set<Object> values = new LinkedHashSet<>();
        for (Object v : constants) {
          Object n = normalise(v);
          if (n != null) {
            values.add(n);
          }
        }
        if (!values.isEmpty()) {
          out.add(new Key(f.field(), f.member(), values));
        }
      }
    }
  }

  private static Key equality(Expr field, Expr constant) {
    Path p = pathOf(field);
    if (p != null && constant instanceof Literal) {
      Object n = normalise(((Literal) constant).value());
      return n == null ? null : new Key(p.field(), p.member(), Set.of(n));
    }
    return null;
  }

  /**
   * The path {@code e} reads: a top-level field without a type hint, or a member of one by a
   * constant string ({@code m.k}, {@code m['k']}, no type given), whose value is the map's value
   * when the field holds a map and NULL otherwise; null for any other expression.
   */
  private static Path pathOf(Expr e) {
    if (e instanceof FieldRef && !((FieldRef) e).hinted()) {
      return new Path(((FieldRef) e).name(), null);
    }
    if (e instanceof Call c
        && c.op() == Op.INDEX
        && c.type().isUnknown()
        && c.arg(0) instanceof FieldRef base
        && !base.hinted()
        && c.arg(1) instanceof Literal key
        && key.value() instanceof String member) {
      return new Path(base.name(), member);
    }
    return null;
  }

  /**
   * The index key of a constant: strings as they are, integral numbers (and doubles with an
   * integral value in the range of a long, -0.0 included) as Long, other doubles as Double,
   * booleans as Boolean; null for NULL, which never equals anything. Numbers equal by value (as the
   * evaluator compares them, exactly) have equal keys, and numbers of different values have
   * different keys.
   */
  static Object normalise(Object v) {
    if (v instanceof String || v instanceof Boolean) {
      return v;
    }
    if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
      return ((Number) v).longValue();
    }
    if (v instanceof Double || v instanceof Float) {
      double d = ((Number) v).doubleValue();
      long asLong = (long) d;
      return asLong == d && d < 0x1p63 ? (Object) asLong : (Object) d;
    }
    return null;
  }

  void add(QueryFilter filter) {
    Optional<Key> key = keyOf(filter.query.plan());
    if (key.isEmpty()) {
      Optional<RangeIndex.Range> range = RangeIndex.rangeOf(filter.query.plan());
      if (range.isPresent()) {
        RangeIndex r = ranges.get(range.get().field());
        if (r == null) {
          r = new RangeIndex();
          ranges.put(range.get().field().intern(), r);
          refreshRanges();
        }
        r.add(filter, range.get());
        return;
      }
      unindexed.add(filter);
      return;
    }
    Path path = key.get().path();
    FieldIndex index = fields.get(path);
    if (index == null) {
      index = new FieldIndex();
      fields.put(path, index);
      refreshFields();
    }
    for (Object v : key.get().values()) {
      index.add(v, filter);
    }
  }

  void remove(QueryFilter filter) {
    Optional<Key> key = keyOf(filter.query.plan());
    if (key.isEmpty()) {
      Optional<RangeIndex.Range> range = RangeIndex.rangeOf(filter.query.plan());
      if (range.isPresent()) {
        RangeIndex r = ranges.get(range.get().field());
        if (r != null) {
          r.remove(filter);
          if (r.isEmpty()) {
            ranges.remove(range.get().field());
            refreshRanges();
          }
        }
        return;
      }
      unindexed.remove(filter);
      return;
    }
    Path path = key.get().path();
    FieldIndex index = fields.get(path);
    if (index == null) {
      return;
    }
    for (Object v : key.get().values()) {
      index.remove(v, filter);
    }
    if (index.isEmpty()) {
      fields.remove(path);
      refreshFields();
    }
  }

  private void refreshFields() {
    fieldNames = fields.keySet().toArray(new Path[0]);
    fieldIndexes = new FieldIndex[fieldNames.length];
    for (int i = 0; i < fieldNames.length; i++) {
      fieldIndexes[i] = fields.get(fieldNames[i]);
    }
  }

  private void refreshRanges() {
    rangeNames = ranges.keySet().toArray(new String[0]);
    rangeIndexes = new RangeIndex[rangeNames.length];
    for (int i = 0; i < rangeNames.length; i++) {
      rangeIndexes[i] = ranges.get(rangeNames[i]);
    }
  }

  int rangeFieldCount() {
    return rangeNames.length;
  }

  /**
   * Offers to {@code sink} the range-filed queries of field {@code i} whose interval can hold the
   * record's value; a record whose field is missing or not a number can match none of them.
   */
  void rangeCandidates(int i, Record r, RangeIndex.Sink sink) {
    int slot = r.indexOf(rangeNames[i]);
    if (slot < 0) {
      return;
    }
    byte k = r.kindAt(slot);
    if (k >= Record.INTEGER && k <= Record.DOUBLE) {
      rangeIndexes[i].candidates(r.doubleAt(slot), sink);
    }
  }

  /** Queries that are always candidates. The bucket must not be modified. */
  Bucket unindexed() {
    return unindexed;
  }

  int indexedFieldCount() {
    return fieldNames.length;
  }

  /**
   * The queries filed under the value of indexed field {@code i} in {@code r}, or null: a {@link
   * QueryFilter} when one query is filed there, else a {@link Bucket}. The bucket must not be
   * modified.
   */
  Object candidates(int i, Record r) {
    Path path = fieldNames[i];
    int slot = r.indexOf(path.field());
    if (slot < 0) {
      return null;
    }
    FieldIndex index = fieldIndexes[i];
    if (path.member() != null) {
      return r.kindAt(slot) == Record.MAP
          ? index.get(normalise(((Map<?, ?>) r.refAt(slot)).get(path.member())))
          : null;
    }
    switch (r.kindAt(slot)) {
      case Record.STRING:
        return index.strings.get((String) r.refAt(slot));
      case Record.INTEGER:
      case Record.LONG:
        return index.others.get(r.longAt(slot));
      case Record.FLOAT:
      case Record.DOUBLE:
        return index.others.get(normalise(r.doubleAt(slot)));
      case Record.BOOLEAN:
        return index.others.get(r.booleanAt(slot));
      default:
        return null;
    }
  }

  /** The top-level field of indexed path {@code i}: the field, or the map holding the member. */
  String indexedField(int i) {
    return fieldNames[i].field();
  }

  /**
   * What the index of top-level field {@code field} keeps for string {@code value} to find it by
   * its UTF-8 bytes (the string itself, or its bytes), or null: for tests.
   */
  Object storedKey(String field, String value) {
    FieldIndex index = fields.get(new Path(field, null));
    return index == null ? null : index.strings.stored(value);
  }

  /** The name of range-indexed field {@code i}. */
  String rangeField(int i) {
    return rangeNames[i];
  }

  /**
   * The queries filed under the raw value of indexed field {@code i} that {@code s} found in slot
   * {@code slot}, or null: {@link #candidates} for the record the scanned bytes would make, found
   * from the bytes (a string is looked up by its UTF-8 bytes, undecoded).
   */
  Object candidates(int i, RecordScanner s, int slot) {
    FieldIndex index = fieldIndexes[i];
    String member = fieldNames[i].member();
    if (member != null) {
      return index.get(normalise(s.member(slot, member)));
    }
    switch (s.kind(slot)) {
      case RecordScanner.STRING:
        return index.strings.get(s.bytes(), s.start(slot), s.end(slot));
      case RecordScanner.INTEGER:
        return index.others.get(s.longValue(slot));
      case RecordScanner.ESCAPED_STRING:
      case RecordScanner.BIG_INTEGER:
      case RecordScanner.DECIMAL:
      case RecordScanner.TRUE:
      case RecordScanner.FALSE:
        return index.get(normalise(s.value(slot)));
      default:
        return null;
    }
  }

  /**
   * Whether a range-filed query of field {@code i} can hold the raw value {@code s} found in slot
   * {@code slot}: {@link #rangeCandidates} would offer one for the record the bytes would make.
   */
  boolean rangeMayHold(int i, RecordScanner s, int slot) {
    switch (s.kind(slot)) {
      case RecordScanner.INTEGER:
        return rangeIndexes[i].mayHold(s.longValue(slot));
      case RecordScanner.BIG_INTEGER:
      case RecordScanner.DECIMAL:
        return rangeIndexes[i].mayHold(((Number) s.value(slot)).doubleValue());
      default:
        return false;
    }
  }

  /**
   * The queries filed under the values of one path: under each value, the one {@link QueryFilter}
   * filed there (most values name one query: no bucket for each of ten thousand needle queries in
   * each worker), or a {@link Bucket} of two or more.
   */
  private static final class FieldIndex {
    /** Under string keys, by the keys' UTF-8 bytes (found from a record's bytes, undecoded). */
    final Utf8Keys strings = new Utf8Keys();

    /** Under the other keys: numbers ({@link #normalise}d) and booleans. */
    final Map<Object, Object> others = new HashMap<>();

    /** What is filed under normalised key {@code key}, or null. */
    Object get(Object key) {
      if (key instanceof String) {
        return strings.get((String) key);
      }
      return key == null ? null : others.get(key);
    }

    void add(Object key, QueryFilter f) {
      Object at = get(key);
      Object now;
      if (at == null) {
        now = f;
      } else if (at instanceof Bucket b) {
        b.add(f);
        return;
      } else {
        Bucket b = new Bucket();
        b.add((QueryFilter) at);
        b.add(f);
        now = b;
      }
      if (key instanceof String) {
        strings.put((String) key, now);
      } else {
        others.put(key, now);
      }
    }

    void remove(Object key, QueryFilter f) {
      Object at = get(key);
      Object now;
      if (at == f) {
        now = null;
      } else if (at instanceof Bucket b && b.remove(f)) {
        if (b.size > 1) {
          return;
        }
        now = b.size == 1 ? b.items[0] : null; // back to the one query left, unwrapped
      } else {
        return;
      }
      if (key instanceof String) {
        if (now == null) {
          strings.remove((String) key);
        } else {
          strings.put((String) key, now);
        }
      } else if (now == null) {
        others.remove(key);
      } else {
        others.put(key, now);
      }
    }

    boolean isEmpty() {
      return strings.size == 0 && others.isEmpty();
    }
  }

  /**
   * Buckets by the UTF-8 bytes of their keys, looked up by bytes where they lie in a record: open
   * addressing with linear probing and deletion by backward shift.
   *
   * <p>A key of ASCII characters only (ids, names: nearly all) is kept as the string itself, whose
   * characters are its UTF-8 bytes: the query's own constant, which every worker's index shares,
   * rather than a copy of its bytes in each. Any other key is kept as its bytes.
   */
  static final class Utf8Keys {
    /** Each key: a {@link String} of ASCII characters, or the UTF-8 bytes of any other. */
    private Object[] keys = new Object[8];

    private int[] hashes = new int[8];
    private Object[] values = new Object[8];
    private int size;

    /**
     * The keys that are not ASCII, by their strings: their bytes hash unlike their strings, so a
     * decoded string is looked up here. Null until there is one (nearly always).
     */
    private Map<String, Object> nonAscii;

    /** What is kept under the string whose UTF-8 bytes are {@code b[from, to)}, or null. */
    Object get(byte[] b, int from, int to) {
      if (size == 0) {
        return null;
      }
      int h = Utf8Bytes.hash(b, from, to);
      int mask = keys.length - 1;
      for (int i = home(h, mask); ; i = (i + 1) & mask) {
        Object k = keys[i];
        if (k == null) {
          return null;
        }
        if (hashes[i] == h && matches(k, b, from, to)) {
          return values[i];
        }
      }
    }

    /**
     * What is kept under {@code key}, or null. An ASCII key is found by its string's own hash (its
     * bytes hash the same), any other in {@link #nonAscii}.
     */
    Object get(String key) {
      if (size == 0) {
        return null;
      }
      int h = key.hashCode();
      int mask = keys.length - 1;
      for (int i = home(h, mask); ; i = (i + 1) & mask) {
        Object k = keys[i];
        if (k == null) {
          return nonAscii == null ? null : nonAscii.get(key);
        }
        if (hashes[i] == h && key.equals(k)) {
          return values[i];
        }
      }
    }

    void put(String key, Object value) {
      if ((size + 1) * 2 > keys.length) {
        grow();
      }
      byte[] bytes = Surrogates.encode(key);
      int h = Utf8Bytes.hash(bytes, 0, bytes.length);
      int mask = keys.length - 1;
      int i = home(h, mask);
      while (keys[i] != null) {
        if (hashes[i] == h && matches(keys[i], bytes, 0, bytes.length)) {
          values[i] = value;
          if (nonAscii != null && nonAscii.containsKey(key)) {
            nonAscii.put(key, value);
          }
          return;
        }
        i = (i + 1) & mask;
      }
      // as many bytes as characters: ASCII only, each character its byte
      boolean ascii = bytes.length == key.length();
      keys[i] = ascii ? key : bytes;
      if (!ascii) {
        if (nonAscii == null) {
          nonAscii = new HashMap<>();
        }
        nonAscii.put(key, value);
      }
      hashes[i] = h;
      values[i] = value;
      size++;
    }

    void remove(String key) {
      byte[] bytes = Surrogates.encode(key);
      int h = Utf8Bytes.hash(bytes, 0, bytes.length);
      int mask = keys.length - 1;
      int i = home(h, mask);
      while (keys[i] != null && !(hashes[i] == h && matches(keys[i], bytes, 0, bytes.length))) {
        i = (i + 1) & mask;
      }
      if (keys[i] == null) {
        return;
      }
      if (nonAscii != null && nonAscii.remove(key) != null && nonAscii.isEmpty()) {
        nonAscii = null;
      }
      size--;
      // backward shift: move later entries of the run into the hole when their home allows it
      int hole = i;
      for (int j = (i + 1) & mask; keys[j] != null; j = (j + 1) & mask) {
        int home = home(hashes[j], mask);
        if (((j - home) & mask) >= ((j - hole) & mask)) {
          keys[hole] = keys[j];
          hashes[hole] = hashes[j];
          values[hole] = values[j];
          hole = j;
        }
      }
      keys[hole] = null;
      values[hole] = null;
    }

    /** The key kept for {@code key}, or null: for tests that look at what is kept. */
    Object stored(String key) {
      byte[] bytes = Surrogates.encode(key);
      int h = Utf8Bytes.hash(bytes, 0, bytes.length);
      int mask = keys.length - 1;
      for (int i = home(h, mask); keys[i] != null; i = (i + 1) & mask) {
        if (hashes[i] == h && matches(keys[i], bytes, 0, bytes.length)) {
          return keys[i];
        }
      }
      return null;
    }

    /** Whether key {@code k} (an ASCII string, or bytes) is {@code b[from, to)}. */
    private static boolean matches(Object k, byte[] b, int from, int to) {
      int len = to - from;
      if (k instanceof String ascii) {
        if (ascii.length() != len) {
          return false;
        }
        for (int i = 0; i < len; i++) {
          if (ascii.charAt(i) != b[from + i]) { // a byte of 0x80 or more is negative: no match
            return false;
          }
        }
        return true;
      }
      byte[] bytes = (byte[]) k;
      return bytes.length == len && Arrays.equals(bytes, 0, len, b, from, to);
    }

    /** Where a key of hash {@code h} is first looked for: its hash mixed (close hashes spread). */
    private static int home(int h, int mask) {
      int x = h * 0x9E3779B9;
      return (x ^ (x >>> 16)) & mask;
    }

    private void grow() {
      Object[] oldKeys = keys;
      int[] oldHashes = hashes;
      Object[] oldValues = values;
      keys = new Object[oldKeys.length * 2];
      hashes = new int[keys.length];
      values = new Object[keys.length];
      int mask = keys.length - 1;
      for (int j = 0; j < oldKeys.length; j++) {
        if (oldKeys[j] != null) {
          int i = home(oldHashes[j], mask);
          while (keys[i] != null) {
            i = (i + 1) & mask;
          }
          keys[i] = oldKeys[j];
          hashes[i] = oldHashes[j];
          values[i] = oldValues[j];
        }
      }
    }
  }

  /**
   * Queries filed together, in the order they were added: {@link #one} while there is only one (the
   * queries always offered a record: no array while there is one), else {@code items[0, size)}. The
   * array grows by doubling, so adding thousands of queries under one key stays linear.
   */
  static final class Bucket {
    /** The only query, while the bucket never held more; null otherwise. */
    QueryFilter one;

    /** All of them, from the second on; null until then. */
    QueryFilter[] items;

    int size;

    void add(QueryFilter f) {
      if (items == null) {
        if (size == 0) {
          one = f;
          size = 1;
          return;
        }
        items = new QueryFilter[2];
        items[0] = one;
        one = null;
      } else if (size == items.length) {
        items = Arrays.copyOf(items, size * 2);
      }
      items[size++] = f;
    }

    /** Removes {@code f}; returns whether it was here. */
    boolean remove(QueryFilter f) {
      if (items == null) {
        if (size == 1 && one == f) {
          one = null;
          size = 0;
          return true;
        }
        return false;
      }
      for (int i = 0; i < size; i++) {
        if (items[i] == f) {
          System.arraycopy(items, i + 1, items, i, size - i - 1);
          items[--size] = null;
          return true;
        }
      }
      return false;
    }
  }
}
