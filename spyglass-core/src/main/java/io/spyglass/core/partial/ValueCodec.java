package io.spyglass.core.partial;

import io.spyglass.core.record.MalformedRecordException;
import io.spyglass.core.record.RawJson;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Encodes the boxed values of records and group keys: {@code null}, {@link Boolean}, {@link
 * Integer}, {@link Long}, {@link Float}, {@link Double}, {@link String} (UTF-8), {@code
 * Map<String,Object>} (entry order kept, decoded as a {@link LinkedHashMap}) and {@code
 * List<Object>} (decoded as an {@link ArrayList}). One tag byte, then the value: zigzag varints for
 * integers, little-endian IEEE bits for floating point, a varint length for strings, a varint count
 * for maps and lists.
 *
 * <p>Where a record is expected ({@link #writeRecord}, {@link #readRecord}), one more form: a
 * record kept as its JSON ({@link RawJson}), tag 10, then its JSON (varint length + bytes) and the
 * fields set over it (varint count, then each name and value). Readers of the partial format 2 and
 * of the replies of version 3 read it.
 */
public final class ValueCodec {
  /** Nesting deeper than this is refused, so hostile bytes cannot overflow the stack. */
  public static final int MAX_DEPTH = 64;

  static final int NULL = 0;
  static final int FALSE = 1;
  static final int TRUE = 2;
  static final int INT = 3;
  static final int LONG = 4;
  static final int FLOAT = 5;
  static final int DOUBLE = 6;
  static final int STRING = 7;
  static final int MAP = 8;
  static final int LIST = 9;

  /** A record kept as its JSON: only where a record is expected. */
  static final int JSON = 10;

  private ValueCodec() {}

  /**
   * Writes one value.
   *
   * @throws IllegalArgumentException for any other type, a map key that is not a string, or nesting
   *     deeper than {@link #MAX_DEPTH}
   */
  public static void write(PartialWriter out, Object value) {
    write(out, value, 0);
  }

  /** Reads one value written by {@link #write}. */
  public static Object read(PartialReader in) {
    return read(in, 0);
  }

  /**
   * Writes one record: with {@code keepJson}, a record kept as its JSON ({@link RawJson#kept}) as
   * its bytes, which are not decoded, and the fields set over it; any other as a map ({@link
   * #write}).
   *
   * @return whether the record was written as its JSON
   */
  public static boolean writeRecord(
      PartialWriter out, Map<String, Object> record, boolean keepJson) {
    if (keepJson && record instanceof RawJson r) {
      RawJson.Kept k = r.kept();
      if (k != null) {
        byte[] json = k.json();
        out.writeByte(JSON).writeVarInt(json.length).writeRaw(json, 0, json.length);
        String[] names = k.names();
        out.writeVarInt(names.length);
        for (int i = 0; i < names.length; i++) {
          out.writeString(names[i]);
          write(out, k.values()[i], 1);
        }
        return true;
      }
    }
    write(out, record, 0);
    return false;
  }

  /**
   * Reads one record written by {@link #writeRecord} (or a map written by {@link #write}): a record
   * kept as its JSON comes back so, its JSON checked ({@link RawJson#of}) but not decoded.
   *
   * @throws PartialFormatException when it is neither, or its JSON is not one JSON object
   */
  @SuppressWarnings("unchecked")
  public static Map<String, Object> readRecord(PartialReader in) {
    int tag = in.readByte();
    if (tag == JSON) {
      byte[] json = in.readBytes();
      int n = in.readCount(2);
      String[] names = new String[n];
      Object[] values = new Object[n];
      for (int i = 0; i < n; i++) {
        names[i] = in.readString();
        values[i] = read(in, 1);
      }
      try {
        return RawJson.of(json, names, values);
      } catch (MalformedRecordException e) {
        throw new PartialFormatException(
            "a record kept as JSON is not one JSON object: " + e.getMessage(), e);
      }
    }
    if (tag != MAP) {
      throw new PartialFormatException(
          "a record is not a map: value tag " + tag + " at offset " + (in.position() - 1));
    }
    return (Map<String, Object>) value(in, tag, 0);
  }

  private static void write(PartialWriter out, Object value, int depth) {
    if (depth > MAX_DEPTH) {
      throw new IllegalArgumentException("value nested deeper than " + MAX_DEPTH);
    }
    if (value == null) {
      out.writeByte(NULL);
    } else if (value instanceof Boolean) {
      out.writeByte((Boolean) value ? TRUE : FALSE);
    } else if (value instanceof Integer) {
      out.writeByte(INT).writeSignedVarLong((Integer) value);
    } else if (value instanceof Long) {
      out.writeByte(LONG).writeSignedVarLong((Long) value);
    } else if (value instanceof Float) {
      out.writeByte(FLOAT).writeFloat((Float) value);
    } else if (value instanceof Double) {
      out.writeByte(DOUBLE).writeDouble((Double) value);
    } else if (value instanceof String) {
      out.writeByte(STRING).writeString((String) value);
    } else if (value instanceof Map) {
      Map<?, ?> map = (Map<?, ?>) value;
      out.writeByte(MAP).writeVarInt(map.size());
      for (Map.Entry<?, ?> e : map.entrySet()) {
        if (!(e.getKey() instanceof String)) {
          throw new IllegalArgumentException("map key is not a string: " + e.getKey());
        }
        out.writeString((String) e.getKey());
        write(out, e.getValue(), depth + 1);
      }
    } else if (value instanceof List) {
      List<?> list = (List<?>) value;
      out.writeByte(LIST).writeVarInt(list.size());
      for (Object o : list) {
        write(out, o, depth + 1);
      }
    } else {
      throw new IllegalArgumentException(
          "unsupported value type " + value.getClass().getName() + ": " + value);
    }
  }

  private static Object read(PartialReader in, int depth) {
    if (depth > MAX_DEPTH) {
      throw new PartialFormatException("value nested deeper than " + MAX_DEPTH);
    }
    return value(in, in.readByte(), depth);
  }

  /** The value of tag {@code tag}, read already. */
  private static Object value(PartialReader in, int tag, int depth) {
    switch (tag) {
      case NULL:
        return null;
      case FALSE:
        return Boolean.FALSE;
      case TRUE:
        return Boolean.TRUE;
      case INT:
        {
          long v = in.readSignedVarLong();
          if (v != (int) v) {
            throw new PartialFormatException("integer out of range: " + v);
          }
          return (int) v;
        }
      case LONG:
        return in.readSignedVarLong();
      case FLOAT:
        return in.readFloat();
      case DOUBLE:
        return in.readDouble();
      case STRING:
        return in.readString();
      case MAP:
        {
          // Each entry takes at least a key length byte and a value tag byte.
          int n = in.readCount(2);
          Map<String, Object> map = new LinkedHashMap<>(Math.max(4, n * 2));
          for (int i = 0; i < n; i++) {
            String key = in.readString();
            map.put(key, read(in, depth + 1));
          }
          return map;
        }
      case LIST:
        {
          int n = in.readCount(1);
          List<Object> list = new ArrayList<>(n);
          for (int i = 0; i < n; i++) {
            list.add(read(in, depth + 1));
          }
          return list;
        }
      default:
        throw new PartialFormatException(
            "unknown value tag " + tag + " at offset " + (in.position() - 1));
    }
  }
}
