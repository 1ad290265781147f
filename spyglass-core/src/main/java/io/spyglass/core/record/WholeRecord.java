package io.spyglass.core.record;

import java.util.AbstractMap;
import java.util.Map;
import java.util.Set;

/**
 * A whole record kept as a copy of its JSON bytes plus the fields set on it, decoded into a map the
 * first time it is read. A query that keeps the records it matches ({@code SELECT *}) holds one
 * array per record rather than a tree of boxed values: cheaper to keep, to pass between threads,
 * and for the garbage collector, which copies one array instead of hundreds of small objects for
 * every record still held. Records nobody reads are never decoded.
 *
 * <p>Behaves as a {@code LinkedHashMap} of the JSON's fields in order with the set fields put over
 * them, and is mutable like one. Reading it from several threads is safe (it decodes once);
 * changing it is not.
 */
final class WholeRecord extends AbstractMap<String, Object> {
  private byte[] json;
  private String[] names;
  private Object[] values;
  private volatile Map<String, Object> decoded;

  /** Times the JSON was decoded: 1 at most (for tests; fits in the object's alignment padding). */
  private int decodes;

  /** Takes ownership of the arrays: {@code names[i]} is set to {@code values[i]} over the JSON. */
  WholeRecord(byte[] json, String[] names, Object[] values) {
    this.json = json;
    this.names = names;
    this.values = values;
  }

  private Map<String, Object> map() {
    Map<String, Object> m = decoded;
    return m != null ? m : decode();
  }

  /**
   * Decodes once, even when two threads read at the same time: a window that keeps its records
   * hands the same record to one result's reader while the combiner still holds it.
   */
  private synchronized Map<String, Object> decode() {
    if (decoded == null) {
      decodes++;
      Map<String, Object> m = JsonRecordReader.readWhole(json, 0, json.length);
      for (int i = 0; i < names.length; i++) {
        m.put(names[i], values[i]);
      }
      decoded = m;
      json = null;
      names = null;
      values = null;
    }
    return decoded;
  }

  /** Whether the JSON has been decoded (for tests). */
  boolean isDecoded() {
    return decoded != null;
  }

  /** How many times the JSON was decoded (for tests). */
  synchronized int decodes() {
    return decodes;
  }

  @Override
  public Set<Entry<String, Object>> entrySet() {
    return map().entrySet();
  }

  @Override
  public Object get(Object key) {
    return map().get(key);
  }

  @Override
  public boolean containsKey(Object key) {
    return map().containsKey(key);
  }

  @Override
  public int size() {
    return map().size();
  }

  @Override
  public Object put(String key, Object value) {
    return map().put(key, value);
  }

  @Override
  public Object remove(Object key) {
    return map().remove(key);
  }
}
