package io.spyglass.bullet.runner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.yahoo.bullet.record.BulletRecord;
import com.yahoo.bullet.record.BulletRecordProvider;
import com.yahoo.bullet.record.simple.TypedSimpleBulletRecordProvider;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Bullet's records built from JSON in one streaming pass are the records data binding and a second
 * conversion build ({@code Records.toBullet} of what an {@code ObjectMapper} reads): on every shape
 * Bullet types and every shape it leaves out, repeated names, large numbers, and random records.
 */
class JsonRecordsTest {
  private static final BulletRecordProvider PROVIDER = new TypedSimpleBulletRecordProvider();
  private static final ObjectMapper MAPPER =
      new ObjectMapper().enable(DeserializationFeature.USE_LONG_FOR_INTS);

  private static BulletRecord<?> twoPasses(String json) throws IOException {
    @SuppressWarnings("unchecked")
    Map<String, Object> map = MAPPER.readValue(json, Map.class);
    return Records.toBullet(map, PROVIDER);
  }

  private static BulletRecord<?> onePass(String json) throws IOException {
    return JsonRecords.read(json.getBytes(StandardCharsets.UTF_8), PROVIDER);
  }

  private static void same(String json) throws IOException {
    BulletRecord<?> expected = twoPasses(json);
    BulletRecord<?> actual = onePass(json);
    assertThat(actual).as(json).hasToString(expected.toString()).isEqualTo(expected);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{}",
        "{\"s\":\"x\",\"l\":1,\"d\":1.5,\"b\":true,\"f\":false,\"n\":null}",
        "{\"neg\":-0,\"e\":1E2,\"max\":9223372036854775807,\"min\":-9223372036854775808}",
        "{\"m\":{\"a\":\"x\",\"b\":\"y\"},\"lm\":{\"a\":1,\"b\":null},\"e\":{},\"nulls\":{\"a\":null}}",
        "{\"mixed\":{\"a\":\"x\",\"b\":1},\"mm\":{\"a\":{\"x\":1},\"b\":{\"y\":2},\"c\":null}}",
        "{\"mmMixed\":{\"a\":{\"x\":1},\"b\":{\"y\":\"s\"}},\"mapThenScalar\":{\"a\":{\"x\":1},\"b\":2}}",
        "{\"scalarThenMap\":{\"b\":2,\"a\":{\"x\":1}},\"mmEmpty\":{\"a\":{},\"b\":{\"y\":true}}}",
        "{\"deep\":{\"a\":{\"b\":{\"c\":1}}},\"listInMap\":{\"a\":[1]},\"mapInMapList\":{\"a\":{\"b\":[]}}}",
        "{\"l\":[1,2,null],\"s\":[\"a\"],\"e\":[],\"mixed\":[1,\"a\"],\"ll\":[[1]],\"n\":[null]}",
        "{\"lm\":[{\"a\":1},{\"b\":2},null],\"lmMixed\":[{\"a\":1},{\"b\":\"x\"}],\"lme\":[{}]}",
        "{\"mapsThenScalar\":[{\"a\":1},2],\"scalarThenMap\":[2,{\"a\":1}],\"deep\":[{\"a\":{}}]}",
        "{\"d\":[1.5,2],\"dd\":[1.5,2.5],\"b\":[true,false],\"bm\":{\"a\":true}}",
        "{\"a\":1,\"a\":\"x\"}",
        "{\"a\":1,\"a\":null}",
        "{\"a\":1,\"a\":[[1]]}",
        "{\"a\":[[1]],\"a\":1}",
        "{\"m\":{\"k\":[1],\"k\":2}}",
        "{\"m\":{\"k\":1,\"k\":\"x\"},\"n\":{\"k\":{\"x\":1},\"k\":{\"x\":\"s\"}}}",
        "{\"u\":\"\\u00e9\\ud83d\\ude00\\n\",\"\\u0041\":1}",
        "{\"a\":1} trailing text is not read"
      })
  void buildsTheRecordsOfTwoPasses(String json) throws IOException {
    same(json);
  }

  @Test
  void randomRecordsAreTheSame() throws IOException {
    Random random = new Random(28);
    for (int i = 0; i < 5_000; i++) {
      StringBuilder sb = new StringBuilder();
      object(random, sb, 0);
      same(sb.toString());
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "[1]",
        "\"x\"",
        "{\"a\":",
        "{\"a\" 1}",
        "{\"a\":tru}",
        "nul",
        "{\"big\":12345678901234567890123}",
        "{\"m\":{\"a\":9223372036854775808}}"
      })
  void refusesWhatDataBindingRefuses(String json) {
    assertThatThrownBy(() -> twoPasses(json)).isInstanceOf(IOException.class);
    assertThatThrownBy(() -> onePass(json)).isInstanceOf(IOException.class);
  }

  private static void object(Random r, StringBuilder sb, int depth) {
    sb.append('{');
    int n = r.nextInt(depth == 0 ? 8 : 4);
    for (int i = 0; i < n; i++) {
      if (i > 0) {
        sb.append(',');
      }
      // few names, so that some repeat
      sb.append("\"k").append(r.nextInt(depth == 0 ? 6 : 3)).append("\":");
      value(r, sb, depth + 1);
    }
    sb.append('}');
  }

  private static void value(Random r, StringBuilder sb, int depth) {
    int pick = r.nextInt(depth >= 4 ? 6 : 9);
    switch (pick) {
      case 0 -> sb.append('"').append((char) ('a' + r.nextInt(3))).append('"');
      case 1 -> sb.append(r.nextInt(5) - 2);
      case 2 -> sb.append(r.nextInt(5) / 2.0 + 0.5);
      case 3 -> sb.append(r.nextBoolean());
      case 4 -> sb.append("null");
      case 5 -> sb.append(r.nextBoolean() ? "9223372036854775807" : "-9223372036854775808");
      case 6, 7 -> object(r, sb, depth);
      default -> {
        sb.append('[');
        int n = r.nextInt(4);
        for (int i = 0; i < n; i++) {
          if (i > 0) {
            sb.append(',');
          }
          value(r, sb, depth + 1);
        }
        sb.append(']');
      }
    }
  }
}
