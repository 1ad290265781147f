package io.spyglass.bullet.runner;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.yahoo.bullet.record.BulletRecord;
import com.yahoo.bullet.record.BulletRecordProvider;
import com.yahoo.bullet.typesystem.Type;
import com.yahoo.bullet.typesystem.TypedObject;
import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Bullet records built from JSON bytes in one streaming pass, as a Bullet deployment's record
 * converter builds them: Jackson's streaming parser, each top-level value typed and set on the
 * record as it is read, maps and lists built once into the collections the record keeps. No map of
 * every field is built first and converted again ({@link Records#toBullet}'s way, from what data
 * binding gives).
 *
 * <p>The records are the same as {@code Records.toBullet(objectMapper.readValue(bytes))}'s (the
 * runner's tests compare them on generated and awkward records): JSON integers are LONGs (a record
 * with one beyond a long is refused, as data binding refuses it), decimals DOUBLEs, nulls absent; a
 * repeated name keeps its last value; a value Bullet has no type for (a map of mixed kinds, a list
 * of lists, deeper nesting) is left out.
 */
final class JsonRecords {
  private static final JsonFactory JSON = new JsonFactory();

  /** A container deeper than any Bullet type holds: skipped, and its field left out. */
  private static final Object UNTYPED = new Untyped();

  /** What {@link #scalarsKind} says of values of several kinds, or not all scalars. */
  private static final Object MIXED = new Object();

  private JsonRecords() {}

  /**
   * The Bullet record of one JSON object.
   *
   * @throws IOException if the bytes are not one well-formed JSON object (what follows it is not
   *     read, as data binding does not)
   */
  static BulletRecord<?> read(byte[] bytes, BulletRecordProvider provider) throws IOException {
    try (JsonParser p = JSON.createParser(bytes)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new IOException("not a JSON object");
      }
      BulletRecord<?> record = provider.getInstance();
      for (JsonToken t = p.nextToken(); t != JsonToken.END_OBJECT; t = p.nextToken()) {
        String name = p.currentName();
        TypedObject typed = typed(p, p.nextToken());
        if (typed != null) {
          record.typedSet(name, typed);
        } else if (record.hasField(name)) {
          record.remove(name); // a repeated name: its last value counts
        }
      }
      return record;
    }
  }

  /** The typed value at the parser's current token (consumed), or null when Bullet has none. */
  private static TypedObject typed(JsonParser p, JsonToken t) throws IOException {
    switch (t) {
      case START_OBJECT:
        {
          Map<String, Object> map = object(p, 1);
          Type type = mapType(map);
          return type == null ? null : new TypedObject(type, (Serializable) map);
        }
      case START_ARRAY:
        {
          List<Object> list = array(p, 1);
          Type type = listType(list);
          return type == null ? null : new TypedObject(type, (Serializable) list);
        }
      default:
        Object v = scalar(p, t);
        return v == null ? null : new TypedObject(kind(v).primitive, (Serializable) v);
    }
  }

  /** A scalar as Bullet types it: Long, Double, String, Boolean, or null. */
  private static Object scalar(JsonParser p, JsonToken t) throws IOException {
    switch (t) {
      case VALUE_STRING:
        return p.getText();
      case VALUE_NUMBER_INT:
        // beyond a long, data binding (longs for integers) refuses the record: so does this
        return p.getLongValue();
      case VALUE_NUMBER_FLOAT:
        return p.getDoubleValue();
      case VALUE_TRUE:
        return Boolean.TRUE;
      case VALUE_FALSE:
        return Boolean.FALSE;
      case VALUE_NULL:
        return null;
      default:
        throw new IOException("unexpected " + t);
    }
  }

  /**
   * An object's members (after its START_OBJECT), a repeated name keeping its last value. At depth
   * 1 (a top-level field's value) members may be maps; deeper containers are {@link #UNTYPED}.
   */
  private static Map<String, Object> object(JsonParser p, int depth) throws IOException {
    HashMap<String, Object> map = new HashMap<>();
    for (JsonToken t = p.nextToken(); t != JsonToken.END_OBJECT; t = p.nextToken()) {
      String key = p.currentName();
      map.put(key, member(p, p.nextToken(), depth));
    }
    return map;
  }

  private static List<Object> array(JsonParser p, int depth) throws IOException {
    ArrayList<Object> list = new ArrayList<>();
    for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) {
      list.add(member(p, t, depth));
    }
    return list;
  }

  /** A member of a map or list at {@code depth}: maps of scalars one level down, else scalars. */
  private static Object member(JsonParser p, JsonToken t, int depth) throws IOException {
    if (t == JsonToken.START_OBJECT && depth == 1) {
      return object(p, 2);
    }
    if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
      p.skipChildren();
      return UNTYPED;
    }
    return scalar(p, t);
  }

  /** The Bullet type of a map read by {@link #object} at depth 1, or null when it has none. */
  private static Type mapType(Map<String, Object> map) {
    Records.Kind inner = null;
    boolean nested = false;
    boolean scalars = false;
    for (Object item : map.values()) {
      if (item instanceof Map<?, ?> m) {
        Object mk = scalarsKind(m.values());
        if (mk == MIXED) {
          return null;
        }
        Records.Kind k = (Records.Kind) mk;
        if (inner != null && k != null && k != inner) {
          return null;
        }
        inner = k == null ? inner : k;
        nested = true;
      } else if (item != null) {
        Records.Kind k = kind(item);
        if (k == null || (inner != null && k != inner)) {
          return null;
        }
        inner = k;
        scalars = true;
      }
    }
    if (nested && scalars) {
      return null;
    }
    Records.Kind k = inner == null ? Records.Kind.STRING : inner;
    return nested ? k.mapOfMaps : k.map;
  }

  /** The Bullet type of a list read by {@link #array}, or null when it has none. */
  private static Type listType(List<Object> list) {
    Records.Kind inner = null;
    Boolean maps = null;
    for (Object item : list) {
      Records.Kind k;
      if (item instanceof Map<?, ?> m) {
        Object mk = scalarsKind(m.values());
        if (mk == MIXED || Boolean.FALSE.equals(maps)) {
          return null;
        }
        k = (Records.Kind) mk;
        maps = true;
      } else if (item != null) {
        k = kind(item);
        if (k == null || Boolean.TRUE.equals(maps)) {
          return null;
        }
        maps = false;
      } else {
        k = null;
      }
      if (k != null && inner != null && k != inner) {
        return null;
      }
      inner = k == null ? inner : k;
    }
    Records.Kind k = inner == null ? Records.Kind.STRING : inner;
    return Boolean.TRUE.equals(maps) ? k.listOfMaps : k.list;
  }

  /**
   * The one kind of a map's scalars: null when it holds none (empty or nulls only), {@link #MIXED}
   * when they are of several kinds or not all scalars.
   */
  private static Object scalarsKind(Iterable<?> values) {
    Records.Kind kind = null;
    for (Object v : values) {
      if (v != null) {
        Records.Kind k = kind(v);
        if (k == null || (kind != null && k != kind)) {
          return MIXED;
        }
        kind = k;
      }
    }
    return kind;
  }

  private static Records.Kind kind(Object v) {
    return v == UNTYPED ? null : Records.kindOf(v);
  }

  /** The mark of a skipped container. */
  private static final class Untyped {
    @Override
    public String toString() {
      return "(no Bullet type)";
    }
  }
}
