package io.spyglass.core.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.record.Utf8Bytes;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class Utf8KeysTest {
  private static final String[] PIECES = {"a", "Z", "0", "-", "\u00e4", "\u20ac", "\ud83d\ude00"};

  @Test
  void theBytesOfAnAsciiStringHashAsTheStringDoes() {
    Random random = new Random(7);
    for (int n = 0; n < 2_000; n++) {
      char[] chars = new char[random.nextInt(41)];
      for (int i = 0; i < chars.length; i++) {
        chars[i] = (char) random.nextInt(0x80);
      }
      String s = new String(chars);
      byte[] framed = ("[" + s + "]").getBytes(StandardCharsets.US_ASCII);
      assertThat(Utf8Bytes.hash(framed, 1, 1 + s.length())).as(s).isEqualTo(s.hashCode());
    }
  }

  @Test
  void aKeyIsFoundByItsStringAndByItsBytesUntilRemoved() {
    Random random = new Random(11);
    QueryIndex.Utf8Keys keys = new QueryIndex.Utf8Keys();
    Map<String, Object> model = new HashMap<>();
    List<String> all = new ArrayList<>();
    for (int n = 0; n < 3_000; n++) {
      StringBuilder b = new StringBuilder();
      for (int i = random.nextInt(12); i > 0; i--) {
        // mostly ASCII, as ids are, some not
        b.append(PIECES[random.nextInt(10) < 8 ? random.nextInt(4) : 4 + random.nextInt(3)]);
      }
      all.add(b.toString());
    }
    for (int round = 0; round < 4; round++) {
      for (String k : all) {
        if (random.nextBoolean()) {
          Object v = new Object();
          keys.put(k, v);
          model.put(k, v);
        } else if (random.nextInt(3) == 0) {
          keys.remove(k);
          model.remove(k);
        }
      }
      for (String k : all) {
        byte[] framed = ("\"" + k + "\"").getBytes(StandardCharsets.UTF_8);
        Object expected = model.get(k);
        assertThat(keys.get(k)).as("by string: %s", k).isSameAs(expected);
        assertThat(keys.get(framed, 1, framed.length - 1)).as("by bytes: %s", k).isSameAs(expected);
      }
    }
  }
}
