package io.spyglass.core.record;

import java.nio.charset.StandardCharsets;
import java.util.AbstractMap;
import java.util.Map;
import java.util.Set;

/**
 * A JSON object kept as a copy of its bytes: {@link #get} and {@link #containsKey} find one member
 * without decoding the others (a query that reads {@code demographics.country} decodes one string,
 * not the whole map), and anything else decodes the whole object once, into the map {@link
 * JsonRecordReader} would have made. Equal to, and hashing as, that map.
 *
 * <p>The last few members looked up are remembered: many queries read the same member of a record.
 *
 * <p>Only for bytes a {@link JsonScanner} has checked. Reading from several threads is safe (the
 * bytes never change and the whole object is decoded once); changing it is not.
 */
final class JsonObjectMap extends AbstractMap<String, Object> {
  /** The object, from its '{' to its '}'. */
  private final byte[] json;

  private volatile Map<String, Object> decoded;

  /** Takes ownership of {@code json}: one checked JSON object, nothing before or after it. */
  JsonObjectMap(byte[] json) {
    this.json = json;
  }

  private Map<String, Object> map() {
    Map<String, Object> m = decoded;
    return m != null ? m : decode();
  }

  @SuppressWarnings("unchecked")
  private synchronized Map<String, Object> decode() {
    if (decoded == null) {
      decoded = (Map<String, Object>) JsonDecoder.local().value(json, 0);
    }
    return decoded;
  }

  /**
   * The last members looked up, most recent first, at most {@value #REMEMBERED}: every query that
   * reads {@code demographics.country} asks the same record's map for the same member, and only the
   * first looks for it in the bytes. Entries are immutable (final fields), so a thread that reads
   * the field without a lock sees a whole entry; it needs no volatile write on every look-up.
   */
  private Member looked;

  private static final int REMEMBERED = 4;

  private record Member(String key, boolean present, Object value, Member next) {}

  @Override
  public Object get(Object key) {
    Map<String, Object> m = decoded;
    if (m != null) {
      return m.get(key);
    }
    Member found = member(key);
    return found == null ? null : found.value;
  }

  @Override
  public boolean containsKey(Object key) {
    Map<String, Object> m = decoded;
    if (m != null) {
      return m.containsKey(key);
    }
    Member found = member(key);
    return found != null && found.present;
  }

  /** The member named {@code key}, remembered or looked up now; null when key is not a String. */
  private Member member(Object key) {
    if (!(key instanceof String)) {
      return null;
    }
    Member first = looked;
    for (Member l = first; l != null; l = l.next) {
      if (l.key.equals(key)) {
        return l;
      }
    }
    int at = find(json, 0, (String) key);
    Member found =
        new Member(
            (String) key, at >= 0, at < 0 ? null : JsonDecoder.member(json, at), keep(first));
    looked = found;
    return found;
  }

  /** The remembered members, less the oldest when there are {@value #REMEMBERED} already. */
  private static Member keep(Member first) {
    int n = 0;
    for (Member l = first; l != null; l = l.next) {
      n++;
    }
    if (n < REMEMBERED) {
      return first;
    }
    return copyWithoutLast(first);
  }

  private static Member copyWithoutLast(Member l) {
    return l.next == null ? null : new Member(l.key, l.present, l.value, copyWithoutLast(l.next));
  }

  /**
   * The value of the last member named {@code name} of the checked JSON object whose '{' is at
   * {@code b[start]}, decoded alone as {@link #get} decodes it; null when there is none. Neither
   * copies the object nor remembers anything: for a look before the record is decoded.
   */
  static Object member(byte[] b, int start, String name) {
    int at = find(b, start, name);
    return at < 0 ? null : JsonDecoder.member(b, at);
  }

  /**
   * Where the value of the last member named {@code name} starts, or -1, in the object whose '{' is
   * at {@code b[start]}.
   */
  private static int find(byte[] b, int start, String name) {
    int found = -1;
    int p = JsonDecoder.ws(b, start + 1);
    if (b[p] == '}') {
      return -1;
    }
    byte[] utf8 = null;
    boolean ascii = isPlainAscii(name);
    while (true) {
      int nameEnd = JsonDecoder.stringEnd(b, p + 1);
      boolean match;
      if (ascii) {
        match = sameAscii(b, p + 1, nameEnd, name);
      } else {
        if (utf8 == null) {
          utf8 = name.getBytes(StandardCharsets.UTF_8);
        }
        match = java.util.Arrays.equals(b, p + 1, nameEnd, utf8, 0, utf8.length);
      }
      if (!match && JsonDecoder.hasEscape(b, p + 1, nameEnd)) {
        match = new JsonDecoder().escapedString(b, p + 1, nameEnd).equals(name);
      }
      p = JsonDecoder.ws(b, nameEnd + 1); // at ':'
      p = JsonDecoder.ws(b, p + 1);
      if (match) {
        found = p;
      }
      p = JsonDecoder.ws(b, JsonDecoder.skip(b, p));
      if (b[p] == '}') {
        return found;
      }
      p = JsonDecoder.ws(b, p + 1);
    }
  }

  private static boolean isPlainAscii(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c >= 0x80 || c == '"' || c == '\\' || c < 0x20) {
        return false;
      }
    }
    return true;
  }

  /** Whether the bytes are exactly the characters of {@code s}, which are plain ASCII. */
  private static boolean sameAscii(byte[] b, int from, int to, String s) {
    if (to - from != s.length()) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      if (b[from + i] != s.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  @Override
  public Set<Entry<String, Object>> entrySet() {
    return map().entrySet();
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
