package io.spyglass.bullet.runner;

import com.yahoo.bullet.common.BulletError;
import com.yahoo.bullet.record.BulletRecord;
import com.yahoo.bullet.record.BulletRecordProvider;
import com.yahoo.bullet.typesystem.Type;
import com.yahoo.bullet.typesystem.TypedObject;
import java.io.Serializable;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Between plain values (JSON-like maps, lists, strings, numbers, booleans) and Bullet's typed
 * records. Bullet's records hold primitives, maps and lists of primitives of one type, maps of such
 * maps and lists of such maps: a value of another shape (a list of lists, a map of mixed types,
 * deeper nesting) has no Bullet type and is left out of the record.
 */
final class Records {
  private Records() {}

  /** The kinds of primitive Bullet has a map and list type for. */
  enum Kind {
    STRING(
        Type.STRING, Type.STRING_MAP, Type.STRING_MAP_MAP, Type.STRING_LIST, Type.STRING_MAP_LIST),
    BOOLEAN(
        Type.BOOLEAN,
        Type.BOOLEAN_MAP,
        Type.BOOLEAN_MAP_MAP,
        Type.BOOLEAN_LIST,
        Type.BOOLEAN_MAP_LIST),
    LONG(Type.LONG, Type.LONG_MAP, Type.LONG_MAP_MAP, Type.LONG_LIST, Type.LONG_MAP_LIST),
    DOUBLE(
        Type.DOUBLE, Type.DOUBLE_MAP, Type.DOUBLE_MAP_MAP, Type.DOUBLE_LIST, Type.DOUBLE_MAP_LIST);

    final Type primitive;
    final Type map;
    final Type mapOfMaps;
    final Type list;
    final Type listOfMaps;

    Kind(Type primitive, Type map, Type mapOfMaps, Type list, Type listOfMaps) {
      this.primitive = primitive;
      this.map = map;
      this.mapOfMaps = mapOfMaps;
      this.list = list;
      this.listOfMaps = listOfMaps;
    }
  }

  /** A Bullet record of the representable fields of {@code fields}; NULL fields are absent. */
  static BulletRecord<?> toBullet(Map<String, Object> fields, BulletRecordProvider provider) {
    BulletRecord<?> record = provider.getInstance();
    for (Map.Entry<String, Object> e : fields.entrySet()) {
      TypedObject typed = typed(e.getValue());
      if (typed != null) {
        record.typedSet(e.getKey(), typed);
      }
    }
    return record;
  }

  private static TypedObject typed(Object value) {
    Object v = primitive(value);
    if (v == null) {
      return null;
    }
    Kind kind = kindOf(v);
    if (kind != null) {
      return new TypedObject(kind.primitive, (Serializable) v);
    }
    if (v instanceof Map<?, ?> map) {
      HashMap<String, Object> copy = new HashMap<>();
      Kind inner = null;
      boolean nested = false;
      for (Map.Entry<?, ?> e : map.entrySet()) {
        Object item = primitive(e.getValue());
        if (item instanceof Map<?, ?> m) {
          Object[] typedMap = primitiveMap(m);
          if (typedMap == null || (inner != null && typedMap[0] != null && typedMap[0] != inner)) {
            return null;
          }
          inner = typedMap[0] == null ? inner : (Kind) typedMap[0];
          nested = true;
          item = typedMap[1];
        } else if (item != null) {
          Kind k = kindOf(item);
          if (k == null || nested || (inner != null && k != inner)) {
            return null;
          }
          inner = k;
        }
        copy.put(String.valueOf(e.getKey()), item);
      }
      if (nested && copy.values().stream().anyMatch(x -> x != null && !(x instanceof Map))) {
        return null;
      }
      Kind k = inner == null ? Kind.STRING : inner;
      return new TypedObject(nested ? k.mapOfMaps : k.map, copy);
    }
    if (v instanceof List<?> list) {
      ArrayList<Object> copy = new ArrayList<>();
      Kind inner = null;
      Boolean maps = null;
      for (Object each : list) {
        Object item = primitive(each);
        Kind k;
        if (item instanceof Map<?, ?> m) {
          Object[] typedMap = primitiveMap(m);
          if (typedMap == null || Boolean.FALSE.equals(maps)) {
            return null;
          }
          maps = true;
          k = (Kind) typedMap[0];
          item = typedMap[1];
        } else if (item != null) {
          k = kindOf(item);
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
        copy.add(item);
      }
      Kind k = inner == null ? Kind.STRING : inner;
      return new TypedObject(Boolean.TRUE.equals(maps) ? k.listOfMaps : k.list, copy);
    }
    return null;
  }

  /** {kind or null when empty, copy} of a map of primitives of one kind, or null. */
  private static Object[] primitiveMap(Map<?, ?> map) {
    HashMap<String, Object> copy = new HashMap<>();
    Kind kind = null;
    for (Map.Entry<?, ?> e : map.entrySet()) {
      Object item = primitive(e.getValue());
      if (item != null) {
        Kind k = kindOf(item);
        if (k == null || (kind != null && k != kind)) {
          return null;
        }
        kind = k;
      }
      copy.put(String.valueOf(e.getKey()), item);
    }
    return new Object[] {kind, copy};
  }

  /** JSON numbers as Bullet's LONG and DOUBLE. */
  private static Object primitive(Object v) {
    if (v instanceof Integer || v instanceof Short || v instanceof Byte) {
      return ((Number) v).longValue();
    }
    if (v instanceof Float || v instanceof BigDecimal || v instanceof BigInteger) {
      return ((Number) v).doubleValue();
    }
    return v;
  }

  static Kind kindOf(Object v) {
    if (v instanceof String) {
      return Kind.STRING;
    } else if (v instanceof Boolean) {
      return Kind.BOOLEAN;
    } else if (v instanceof Long) {
      return Kind.LONG;
    } else if (v instanceof Double) {
      return Kind.DOUBLE;
    }
    return null;
  }

  /** A deep copy of a value out of Bullet in plain JDK types. */
  static Object plain(Object v) {
    if (v == null || v instanceof String || v instanceof Number || v instanceof Boolean) {
      return v;
    }
    if (v instanceof TypedObject typed) {
      return plain(typed.getValue());
    }
    if (v instanceof BulletError e) {
      Map<String, Object> error = new LinkedHashMap<>();
      error.put("error", e.getError());
      error.put("resolutions", e.getResolutions() == null ? List.of() : plain(e.getResolutions()));
      return error;
    }
    if (v instanceof Map<?, ?> map) {
      Map<String, Object> out = new LinkedHashMap<>();
      map.forEach((k, x) -> out.put(String.valueOf(k), plain(x)));
      return out;
    }
    if (v instanceof Iterable<?> list) {
      List<Object> out = new ArrayList<>();
      list.forEach(x -> out.add(plain(x)));
      return out;
    }
    return v.toString();
  }
}
