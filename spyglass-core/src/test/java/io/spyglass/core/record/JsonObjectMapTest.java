package io.spyglass.core.record;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class JsonObjectMapTest {
  /** The map the scanner makes of the object field {@code m}, and the one Jackson makes. */
  private static Map<?, ?>[] both(String object) throws Exception {
    byte[] json = ("{\"m\":" + object + ",\"x\":1}").getBytes(StandardCharsets.UTF_8);
    RecordScanner scanner = new RecordScanner();
    scanner.select(Set.of("m"));
    Record lazy = new Record();
    assertThat(scanner.scan(json, 0, json.length)).isTrue();
    scanner.decode(lazy);
    JsonRecordReader jackson = new JsonRecordReader();
    Record eager = new Record();
    jackson.read(json, 0, json.length, eager);
    return new Map<?, ?>[] {(Map<?, ?>) lazy.get("m"), (Map<?, ?>) eager.get("m")};
  }

  @Test
  void membersLookedUpAgainAreTheSameWhicheverOrder() throws Exception {
    Map<?, ?>[] m = both("{\"a\":1,\"b\":\"x\",\"c\":null,\"d\":[2],\"e\":{\"f\":3},\"a\":4}");
    Map<?, ?> lazy = m[0];
    String[] keys = {"a", "b", "c", "d", "e", "missing", "a", "e", "b", "missing", "c", "d", "a"};
    for (int round = 0; round < 3; round++) {
      for (String k : keys) {
        assertThat(lazy.get(k)).as(k).isEqualTo(m[1].get(k));
        assertThat(lazy.containsKey(k)).as(k).isEqualTo(m[1].containsKey(k));
      }
    }
    assertThat(lazy.get("a")).isEqualTo(4L); // the last of a repeated name, as Jackson
    @SuppressWarnings("unchecked")
    Map<String, Object> writable = (Map<String, Object>) lazy;
    writable.put("a", "changed");
    assertThat(lazy.get("a")).isEqualTo("changed");
  }

  @Test
  void findsOneMemberWithoutDecodingTheOthers() throws Exception {
    Map<?, ?>[] m =
        both("{\"country\":\"US\",\"age\":41,\"deep\":{\"k\":[1,{\"z\":null}]},\"n\":null}");
    assertThat(m[0]).isInstanceOf(JsonObjectMap.class);
    assertThat(m[0].get("country")).isEqualTo("US");
    assertThat(m[0].get("age")).isEqualTo(41L);
    assertThat(m[0].get("missing")).isNull();
    assertThat(m[0].get(7)).isNull();
    assertThat(m[0].containsKey("n")).isTrue();
    assertThat(m[0].containsKey("missing")).isFalse();
    assertThat(((Map<?, ?>) m[0].get("deep")).get("k"))
        .isEqualTo(m[1].get("deep") == null ? null : ((Map<?, ?>) m[1].get("deep")).get("k"));
    assertThat(m[0]).isEqualTo(m[1]).hasSameHashCodeAs(m[1]);
    assertThat(m[0].toString()).isEqualTo(m[1].toString());
  }

  @Test
  void readsNamesAsJacksonDoes() throws Exception {
    Map<?, ?>[] m =
        both(
            "{\"a\":1,\"a\":2,\"c\\u006Funtry\":\"x\",\"é\":\"y\",\"\\\"q\":3,\"\":4 ,\"s\":\"a\\\"b\"}");
    for (Object key : List.of("a", "country", "é", "\"q", "", "s")) {
      assertThat(m[0].get(key)).as(String.valueOf(key)).isEqualTo(m[1].get(key));
      assertThat(m[0].containsKey(key)).isTrue();
    }
    assertThat(m[0].get("a")).isEqualTo(2L);
    assertThat(List.copyOf(m[0].keySet())).isEqualTo(List.copyOf(m[1].keySet()));
    assertThat(m[0]).isEqualTo(m[1]);
  }

  @Test
  void emptyObjectsAndChangesAfterReading() throws Exception {
    Map<?, ?>[] empty = both("{ }");
    assertThat(empty[0]).isEqualTo(empty[1]);
    assertThat(empty[0].isEmpty()).isTrue();
    assertThat(empty[0].get("a")).isNull();
    @SuppressWarnings("unchecked")
    Map<String, Object> m = (Map<String, Object>) both("{\"a\":1}")[0];
    m.put("b", 2L);
    assertThat(m).isEqualTo(new LinkedHashMap<>(Map.of("a", 1L, "b", 2L)));
    assertThat(m.remove("a")).isEqualTo(1L);
    assertThat(m).containsOnlyKeys("b");
  }
}
