package io.spyglass.core.partial;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ValueCodecTest {
  private static Object roundTrip(Object v) {
    PartialWriter out = new PartialWriter(4);
    ValueCodec.write(out, v);
    PartialReader in = new PartialReader(out.toByteArray());
    Object back = ValueCodec.read(in);
    in.requireEnd();
    return back;
  }

  @Test
  void stringsWithUnpairedSurrogatesComeBackAsTheyWere() {
    // a record can hold them from escapes; UTF-8 has no bytes for them (Java writes '?')
    for (String s :
        List.of("\ud800", "a\udfffb", "\ude00\ud83d", "\ud83dA", "😀\ud800😀", "?", "x\ud800?")) {
      assertThat(roundTrip(s)).isEqualTo(s);
      assertThat(roundTrip(Map.of(s, List.of(s)))).isEqualTo(Map.of(s, List.of(s)));
    }
    // every other string is written in UTF-8, as before
    PartialWriter out = new PartialWriter(4);
    out.writeString("héllo 😀");
    assertThat(out.toByteArray())
        .isEqualTo(
            new PartialWriter(4)
                .writeBytes("héllo 😀".getBytes(java.nio.charset.StandardCharsets.UTF_8))
                .toByteArray());
  }

  @Test
  void primitivesKeepTheirTypes() {
    for (Object v :
        new Object[] {
          null,
          true,
          false,
          0,
          -1,
          Integer.MIN_VALUE,
          Integer.MAX_VALUE,
          0L,
          Long.MIN_VALUE,
          Long.MAX_VALUE,
          1.5f,
          Float.NaN,
          -0.0,
          Double.NEGATIVE_INFINITY,
          Double.MIN_VALUE,
          "",
          "héllo ∞ 😀"
        }) {
      Object back = roundTrip(v);
      assertThat(back).isEqualTo(v);
      if (v != null) {
        assertThat(back).isInstanceOf(v.getClass());
      }
    }
  }

  @Test
  void mapsKeepOrderAndNest() {
    Map<String, Object> inner = new LinkedHashMap<>();
    inner.put("z", 1L);
    inner.put("a", List.of(1, "x", Arrays.asList(null, 2.0)));
    Map<String, Object> outer = new LinkedHashMap<>();
    outer.put("second", inner);
    outer.put("first", null);
    Object back = roundTrip(outer);
    assertThat(back).isInstanceOf(LinkedHashMap.class).isEqualTo(outer);
    assertThat(List.copyOf(((Map<?, ?>) back).keySet())).isEqualTo(List.of("second", "first"));
    assertThat(List.copyOf(((Map<?, ?>) ((Map<?, ?>) back).get("second")).keySet()))
        .isEqualTo(List.of("z", "a"));
  }

  @Test
  void refusesOtherTypesAndNonStringKeys() {
    assertThatThrownBy(() -> roundTrip(BigDecimal.ONE))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("BigDecimal");
    assertThatThrownBy(() -> roundTrip(Map.of(1, 2)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a string");
  }

  @Test
  void refusesDeepNesting() {
    List<Object> deep = new ArrayList<>();
    List<Object> cur = deep;
    for (int i = 0; i < ValueCodec.MAX_DEPTH + 2; i++) {
      List<Object> next = new ArrayList<>();
      cur.add(next);
      cur = next;
    }
    assertThatThrownBy(() -> roundTrip(deep)).isInstanceOf(IllegalArgumentException.class);
    // Hostile bytes: a list of a list of ... without end.
    byte[] bytes = new byte[10_000];
    for (int i = 0; i < bytes.length; i += 2) {
      bytes[i] = ValueCodec.LIST;
      bytes[i + 1] = 1;
    }
    assertThatThrownBy(() -> ValueCodec.read(new PartialReader(bytes)))
        .isInstanceOf(PartialFormatException.class)
        .hasMessageContaining("nested");
  }

  @Test
  void hugeDeclaredCountsFailBeforeAllocating() {
    PartialWriter out = new PartialWriter();
    out.writeByte(ValueCodec.LIST).writeVarInt(Integer.MAX_VALUE);
    assertThatThrownBy(() -> ValueCodec.read(new PartialReader(out.toByteArray())))
        .isInstanceOf(PartialFormatException.class)
        .hasMessageContaining("does not fit");
    PartialWriter str = new PartialWriter();
    str.writeByte(ValueCodec.STRING).writeVarInt(Integer.MAX_VALUE - 1);
    assertThatThrownBy(() -> ValueCodec.read(new PartialReader(str.toByteArray())))
        .isInstanceOf(PartialFormatException.class)
        .hasMessageContaining("truncated");
  }

  @Test
  void varintsRoundTrip() {
    PartialWriter out = new PartialWriter(1);
    long[] values = {0, 1, 127, 128, -1, Long.MIN_VALUE, Long.MAX_VALUE, 1L << 35};
    for (long v : values) {
      out.writeVarLong(v).writeSignedVarLong(v).writeLong(v);
    }
    PartialReader in = new PartialReader(out.toByteArray());
    for (long v : values) {
      assertThat(in.readVarLong()).isEqualTo(v);
      assertThat(in.readSignedVarLong()).isEqualTo(v);
      assertThat(in.readLong()).isEqualTo(v);
    }
    in.requireEnd();
  }

  @Test
  void hashIsConsistentWithEquals() {
    Map<String, Object> a = new LinkedHashMap<>();
    a.put("x", 1);
    a.put("y", "z");
    Map<String, Object> b = new LinkedHashMap<>();
    b.put("y", "z");
    b.put("x", 1);
    assertThat(Hashing.hash(new Object[] {a})).isEqualTo(Hashing.hash(new Object[] {b}));
    assertThat(Hashing.hash(new Object[] {1})).isNotEqualTo(Hashing.hash(new Object[] {1L}));
    assertThat(Hashing.hash(new Object[] {"ab", "c"}))
        .isNotEqualTo(Hashing.hash(new Object[] {"a", "bc"}));
    // Group sampling needs every process and version to agree: the value is pinned.
    assertThat(Hashing.hash(new Object[] {"spyglass", 42L, null, true}))
        .isEqualTo(7303415002004069680L);
  }
}
