package io.spyglass.core.record;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One event of a stream: named top-level fields with typed values. Numbers and booleans at the top
 * level are held unboxed; strings, maps and lists as objects. Maps are {@code Map<String, Object>}
 * and lists {@code List<Object>}, holding boxed values ({@link Boolean}, {@link Integer}, {@link
 * Long}, {@link Float}, {@link Double}, {@link String}, maps, lists or {@code null}) to any depth.
 *
 * <p>Lookup by name is a hash probe with an identity fast path: names read from JSON are interned,
 * and compiled queries intern the names they read.
 *
 * <p>Not thread-safe. A reader may reuse one instance for every record it reads ({@link #clear()});
 * a consumer that keeps a record beyond the call it was handed in must {@link #copy()} it.
 */
public final class Record {
  /** Kind codes of {@link #kindAt}: the ordinals of {@link Type.Kind}. */
  public static final byte NULL = 0,
      BOOLEAN = 1,
      INTEGER = 2,
      LONG = 3,
      FLOAT = 4,
      DOUBLE = 5,
      STRING = 6,
      MAP = 7,
      LIST = 8;

  private static final Type.Kind[] KINDS = Type.Kind.values();

  private String[] names;
  private byte[] kinds;
  private long[] bits;
  private Object[] refs;
  private int size;

  /** Open-addressing table of field index + 1; 0 is empty. Length is a power of two. */
  private int[] table;

  /** The JSON this record was read from, when a reader kept only some of its fields. */
  private byte[] sourceBytes;

  private int sourceOffset;
  private int sourceLength;

  /**
   * The copy of the source's bytes that {@link #toFullMap()} made, shared by every whole record it
   * makes of this source (each query that keeps the record): nothing changes those bytes.
   */
  private byte[] sourceCopy;

  public Record() {
    this(16);
  }

  public Record(int expectedFields) {
    int capacity = Math.max(4, expectedFields);
    names = new String[capacity];
    kinds = new byte[capacity];
    bits = new long[capacity];
    refs = new Object[capacity];
    table = new int[tableSizeFor(capacity)];
  }

  private static int tableSizeFor(int capacity) {
    return Integer.highestOneBit(Math.max(8, capacity * 2 - 1)) << 1;
  }

  /** A record of the entries of a map of boxed values, in the map's order. */
  public static Record fromMap(Map<String, ?> map) {
    Record r = new Record(map.size());
    for (Map.Entry<String, ?> e : map.entrySet()) {
      r.put(e.getKey(), e.getValue());
    }
    return r;
  }

  /** Removes every field, keeping the allocated capacity. */
  public void clear() {
    sourceBytes = null;
    sourceCopy = null;
    if (size == 0) {
      return;
    }
    Arrays.fill(refs, 0, size, null);
    Arrays.fill(names, 0, size, null);
    Arrays.fill(table, 0);
    size = 0;
  }

  public int size() {
    return size;
  }

  /** The index of the named field, or -1 when the record has none. */
  public int indexOf(String name) {
    int[] t = table;
    int mask = t.length - 1;
    int h = spread(name.hashCode()) & mask;
    while (true) {
      int slot = t[h];
      if (slot == 0) {
        return -1;
      }
      String n = names[slot - 1];
      if (n == name || n.equals(name)) {
        return slot - 1;
      }
      h = (h + 1) & mask;
    }
  }

  private static int spread(int h) {
    return h ^ (h >>> 16);
  }

  public String nameAt(int index) {
    return names[index];
  }

  /** The kind code of the value at {@code index}: one of {@link #NULL} ... {@link #LIST}. */
  public byte kindAt(int index) {
    return kinds[index];
  }

  public Type.Kind typeAt(int index) {
    return KINDS[kinds[index]];
  }

  /** The value of a BOOLEAN, INTEGER or LONG field; a FLOAT or DOUBLE truncated. */
  public long longAt(int index) {
    byte k = kinds[index];
    return k == FLOAT || k == DOUBLE ? (long) Double.longBitsToDouble(bits[index]) : bits[index];
  }

  /** The value of a numeric field as a double. */
  public double doubleAt(int index) {
    byte k = kinds[index];
    return k == FLOAT || k == DOUBLE ? Double.longBitsToDouble(bits[index]) : bits[index];
  }

  public boolean booleanAt(int index) {
    return bits[index] != 0;
  }

  /** The STRING, MAP or LIST value at {@code index}, or {@code null} for other kinds. */
  public Object refAt(int index) {
    return refs[index];
  }

  /** The value at {@code index}, boxed. */
  public Object valueAt(int index) {
    switch (kinds[index]) {
      case NULL:
        return null;
      case BOOLEAN:
        return bits[index] != 0;
      case INTEGER:
        return (int) bits[index];
      case LONG:
        return bits[index];
      case FLOAT:
        return (float) Double.longBitsToDouble(bits[index]);
      case DOUBLE:
        return Double.longBitsToDouble(bits[index]);
      default:
        return refs[index];
    }
  }

  /** The named value, boxed, or {@code null} when absent or null. */
  public Object get(String name) {
    int i = indexOf(name);
    return i < 0 ? null : valueAt(i);
  }

  public boolean has(String name) {
    return indexOf(name) >= 0;
  }

  private int slotFor(String name) {
    int i = indexOf(name);
    if (i >= 0) {
      return i;
    }
    if (size == names.length) {
      grow();
    }
    i = size++;
    names[i] = name;
    int mask = table.length - 1;
    int h = spread(name.hashCode()) & mask;
    while (table[h] != 0) {
      h = (h + 1) & mask;
    }
    table[h] = i + 1;
    return i;
  }

  private void grow() {
    int capacity = names.length * 2;
    names = Arrays.copyOf(names, capacity);
    kinds = Arrays.copyOf(kinds, capacity);
    bits = Arrays.copyOf(bits, capacity);
    refs = Arrays.copyOf(refs, capacity);
    table = new int[tableSizeFor(capacity)];
    int mask = table.length - 1;
    for (int i = 0; i < size; i++) {
      int h = spread(names[i].hashCode()) & mask;
      while (table[h] != 0) {
        h = (h + 1) & mask;
      }
      table[h] = i + 1;
    }
  }

  public Record putNull(String name) {
    int i = slotFor(name);
    kinds[i] = NULL;
    refs[i] = null;
    return this;
  }

  public Record putBoolean(String name, boolean v) {
    int i = slotFor(name);
    kinds[i] = BOOLEAN;
    bits[i] = v ? 1 : 0;
    refs[i] = null;
    return this;
  }

  public Record putInt(String name, int v) {
    int i = slotFor(name);
    kinds[i] = INTEGER;
    bits[i] = v;
    refs[i] = null;
    return this;
  }

  public Record putLong(String name, long v) {
    int i = slotFor(name);
    kinds[i] = LONG;
    bits[i] = v;
    refs[i] = null;
    return this;
  }

  public Record putFloat(String name, float v) {
    int i = slotFor(name);
    kinds[i] = FLOAT;
    bits[i] = Double.doubleToRawLongBits(v);
    refs[i] = null;
    return this;
  }

  public Record putDouble(String name, double v) {
    int i = slotFor(name);
    kinds[i] = DOUBLE;
    bits[i] = Double.doubleToRawLongBits(v);
    refs[i] = null;
    return this;
  }

  public Record putString(String name, String v) {
    if (v == null) {
      return putNull(name);
    }
    int i = slotFor(name);
    kinds[i] = STRING;
    refs[i] = v;
    return this;
  }

  public Record putMap(String name, Map<String, Object> v) {
    if (v == null) {
      return putNull(name);
    }
    int i = slotFor(name);
    kinds[i] = MAP;
    refs[i] = v;
    return this;
  }

  public Record putList(String name, List<Object> v) {
    if (v == null) {
      return putNull(name);
    }
    int i = slotFor(name);
    kinds[i] = LIST;
    refs[i] = v;
    return this;
  }

  /**
   * Puts a boxed value of any supported type.
   *
   * @throws IllegalArgumentException for a value of another class
   */
  @SuppressWarnings("unchecked")
  public Record put(String name, Object v) {
    if (v == null) {
      return putNull(name);
    } else if (v instanceof String) {
      return putString(name, (String) v);
    } else if (v instanceof Long) {
      return putLong(name, (Long) v);
    } else if (v instanceof Integer) {
      return putInt(name, (Integer) v);
    } else if (v instanceof Double) {
      return putDouble(name, (Double) v);
    } else if (v instanceof Float) {
      return putFloat(name, (Float) v);
    } else if (v instanceof Boolean) {
      return putBoolean(name, (Boolean) v);
    } else if (v instanceof Map) {
      return putMap(name, (Map<String, Object>) v);
    } else if (v instanceof List) {
      return putList(name, (List<Object>) v);
    } else if (v instanceof Short || v instanceof Byte) {
      return putInt(name, ((Number) v).intValue());
    }
    throw new IllegalArgumentException(
        "Unsupported value of class " + v.getClass().getName() + " for field " + name);
  }

  /** Copies the field at {@code index} of {@code from} into this record under {@code name}. */
  public Record putFrom(String name, Record from, int index) {
    int i = slotFor(name);
    kinds[i] = from.kinds[index];
    bits[i] = from.bits[index];
    refs[i] = from.refs[index];
    return this;
  }

  /** Removes the named field if present. */
  public Record remove(String name) {
    int i = indexOf(name);
    if (i < 0) {
      return this;
    }
    int last = size - 1;
    String[] oldNames = Arrays.copyOf(names, size);
    byte[] oldKinds = Arrays.copyOf(kinds, size);
    long[] oldBits = Arrays.copyOf(bits, size);
    Object[] oldRefs = Arrays.copyOf(refs, size);
    clear();
    for (int j = 0; j <= last; j++) {
      if (j != i) {
        int s = slotFor(oldNames[j]);
        kinds[s] = oldKinds[j];
        bits[s] = oldBits[j];
        refs[s] = oldRefs[j];
      }
    }
    return this;
  }

  /**
   * A copy that shares the nested maps and lists (they are never mutated once read) and owns its
   * top-level fields.
   */
  public Record copy() {
    Record r = new Record(size);
    for (int i = 0; i < size; i++) {
      r.putFrom(names[i], this, i);
    }
    return r;
  }

  /**
   * Marks this record as read from these JSON bytes with only some of its fields kept: {@link
   * #toFullMap()} then reads the others from the bytes. The bytes must stay unchanged while the
   * record is in use.
   */
  public void partOf(byte[] bytes, int offset, int length) {
    sourceBytes = bytes;
    sourceOffset = offset;
    sourceLength = length;
    sourceCopy = null;
  }

  /** True when the record holds only some of the fields of the JSON it was read from. */
  public boolean isPartial() {
    return sourceBytes != null;
  }

  /** Makes this record hold the same source as {@code other} (see {@link #partOf}). */
  public void sameSourceAs(Record other) {
    sourceBytes = other.sourceBytes;
    sourceOffset = other.sourceOffset;
    sourceLength = other.sourceLength;
    sourceCopy = other.sourceCopy;
  }

  /**
   * Every field, boxed: the fields this record holds and, for a {@linkplain #isPartial partial}
   * record, the others read now from its JSON. Fields set on the record (such as virtual fields)
   * win over those of the JSON. For {@code SELECT *}: a reader builds only the fields that queries
   * filter on, and the whole record is built only for the records that match. Those are kept as a
   * copy of their JSON, decoded when first read; the queries that keep the same record share one
   * copy.
   */
  public Map<String, Object> toFullMap() {
    if (sourceBytes == null) {
      return toMap();
    }
    Object[] values = new Object[size];
    for (int i = 0; i < size; i++) {
      values[i] = valueAt(i);
    }
    if (sourceCopy == null) {
      sourceCopy = Arrays.copyOfRange(sourceBytes, sourceOffset, sourceOffset + sourceLength);
    }
    return new WholeRecord(sourceCopy, Arrays.copyOf(names, size), values);
  }

  /** The fields as a map of boxed values, in field order. */
  public Map<String, Object> toMap() {
    Map<String, Object> m = new LinkedHashMap<>(Math.max(4, size * 2));
    for (int i = 0; i < size; i++) {
      m.put(names[i], valueAt(i));
    }
    return m;
  }

  /** The field names in order, as an unmodifiable view valid until the record changes. */
  public List<String> names() {
    return Collections.unmodifiableList(Arrays.asList(names).subList(0, size));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Record && toMap().equals(((Record) o).toMap());
  }

  @Override
  public int hashCode() {
    return toMap().hashCode();
  }

  @Override
  public String toString() {
    return toMap().toString();
  }
}
