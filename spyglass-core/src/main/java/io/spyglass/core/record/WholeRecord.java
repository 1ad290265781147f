package io.spyglass.core.record;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
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
 * <p>Written as JSON ({@link RawJson}), its bytes are copied when decoding them and writing the map
 * back would give the same text: a query that keeps whole records and a client that prints them
 * need not build the record at all.
 *
 * <p>Behaves as a {@code LinkedHashMap} of the JSON's fields in order with the set fields put over
 * them, and is mutable like one. Reading it from several threads is safe (it decodes once);
 * changing it is not.
 */
final class WholeRecord extends AbstractMap<String, Object> implements RawJson {
  private byte[] json;
  private String[] names;
  private Object[] values;
  private volatile Map<String, Object> decoded;

  /** Times the JSON was decoded: 1 at most (for tests; fits in the object's alignment padding). */
  private int decodes;

  /**
   * Takes ownership of the arrays: {@code names[i]} is set to {@code values[i]} over the JSON. The
   * JSON is only read, never changed: whole records of the same source may share it.
   */
  WholeRecord(byte[] json, String[] names, Object[] values) {
    this.json = json;
    this.names = names;
    this.values = values;
  }

  /**
   * Checks records that crossed a process before they are kept ({@link RawJson#of}): one JSON
   * object, UTF-8, nested as deep as records may be; no bound on sizes.
   */
  private static final ThreadLocal<RecordScanner> CHECKED =
      ThreadLocal.withInitial(
          () ->
              new RecordScanner(
                  new JsonRecordReader.Limits(
                      4 * JsonRecordReader.Limits.DEFAULT_MAX_DEPTH,
                      Integer.MAX_VALUE,
                      Integer.MAX_VALUE,
                      Integer.MAX_VALUE,
                      Integer.MAX_VALUE)));

  /** A record of these parts after a check of its JSON, as {@link RawJson#of} says. */
  static WholeRecord checked(byte[] json, String[] names, Object[] values)
      throws MalformedRecordException {
    if (names.length != values.length) {
      throw new IllegalArgumentException(names.length + " names, " + values.length + " values");
    }
    RecordScanner s = CHECKED.get();
    if (!s.scan(json, 0, json.length)) {
      throw s.failure();
    }
    return new WholeRecord(json, names, values);
  }

  @Override
  public Kept kept() {
    if (decoded != null) {
      return null;
    }
    synchronized (this) {
      return decoded != null ? null : new Kept(json, names, values);
    }
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
      // bytes the scan accepted when the record was read: decoded without another check
      @SuppressWarnings("unchecked")
      Map<String, Object> m =
          (Map<String, Object>) JsonDecoder.local().value(json, JsonDecoder.objectStart(json, 0));
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

  /** Checks and locates the JSON for {@link #writeRaw}, per thread. */
  private static final ThreadLocal<CanonicalJson> CHECKS =
      ThreadLocal.withInitial(CanonicalJson::new);

  @Override
  public boolean writeRaw(JsonGenerator g, ValueWriter writer) throws IOException {
    byte[] b;
    String[] setNames;
    Object[] setValues;
    synchronized (this) {
      if (decoded != null) {
        return false;
      }
      b = json;
      setNames = names;
      setValues = values;
    }
    if (g.getPrettyPrinter() != null
        || g.getCharacterEscapes() != null
        || g.getHighestEscapedChar() != 0) {
      return false;
    }
    CanonicalJson c = CHECKS.get();
    if (!c.check(b, b.length)) {
      return false;
    }
    byte[][] setBytes = new byte[setNames.length][];
    for (int i = 0; i < setNames.length; i++) {
      setBytes[i] = setNames[i].getBytes(StandardCharsets.UTF_8);
    }
    boolean[] written = new boolean[setNames.length];
    g.writeStartObject();
    boolean any = false;
    int run = -1; // first field of the run of fields copied as they are
    int n = c.fields();
    for (int f = 0; f < n; f++) {
      int set = -1;
      for (int i = 0; i < setBytes.length; i++) {
        if (c.named(f, setBytes[i])) {
          set = i;
          break;
        }
      }
      if (set < 0) {
        if (run < 0) {
          run = f;
        }
        continue;
      }
      any = copy(g, c, run, f, any);
      run = -1;
      g.writeFieldName(setNames[set]);
      writer.write(g, setValues[set]);
      written[set] = true;
      any = true;
    }
    copy(g, c, run, n, any);
    for (int i = 0; i < setNames.length; i++) {
      if (!written[i]) {
        g.writeFieldName(setNames[i]);
        writer.write(g, setValues[i]);
      }
    }
    g.writeEndObject();
    return true;
  }

  /**
   * Copies top-level fields {@code [from, to)} as they are; the first field of the object goes
   * through the generator, so that it knows the object has a field and puts a comma before the next
   * one it writes. Returns whether the object has a field now.
   */
  private static boolean copy(JsonGenerator g, CanonicalJson c, int from, int to, boolean any)
      throws IOException {
    if (from < 0 || from >= to) {
      return any;
    }
    int start;
    if (any) {
      start = c.nameStart(from) - 2; // the comma before the name's quote
    } else {
      g.writeFieldName(c.text(c.nameStart(from), c.nameEnd(from)));
      g.writeRawValue(c.text(c.valueStart(from), c.valueEnd(from)));
      start = c.valueEnd(from);
    }
    int end = c.valueEnd(to - 1);
    if (end > start) {
      g.writeRaw(c.text(start, end));
    }
    return true;
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
