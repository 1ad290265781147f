package io.spyglass.core.record;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RecordTest {
  @Test
  void putsGetsAndGrows() {
    Record r = new Record(2);
    for (int i = 0; i < 100; i++) {
      r.putLong("f" + i, i);
    }
    for (int i = 0; i < 100; i++) {
      assertThat(r.get("f" + i)).isEqualTo((long) i);
    }
    assertThat(r.indexOf("nope")).isEqualTo(-1);
    r.putString("f5", "x");
    assertThat(r.get("f5")).isEqualTo("x");
    assertThat(r.size()).isEqualTo(100);
  }

  @Test
  void clearKeepsNothing() {
    Record r = new Record();
    r.putLong("a", 1).putString("b", "x");
    r.clear();
    assertThat(r.size()).isZero();
    assertThat(r.has("a")).isFalse();
    r.putLong("b", 2);
    assertThat(r.toMap()).isEqualTo(Map.of("b", 2L));
  }

  @Test
  void removeAndCopy() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("a", 1L);
    m.put("b", "x");
    m.put("c", 2.5);
    Record r = Record.fromMap(m);
    Record copy = r.copy();
    r.remove("b");
    assertThat(r.names()).containsExactly("a", "c");
    assertThat(copy.toMap()).isEqualTo(m);
  }
}
