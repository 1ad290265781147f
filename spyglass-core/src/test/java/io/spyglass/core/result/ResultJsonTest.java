package io.spyglass.core.result;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ResultJsonTest {
  private static final JsonFactory JSON = new JsonFactory();

  @Test
  void unpairedSurrogatesAreWrittenAsTheEscapesTheyWereReadFrom() throws IOException {
    Map<String, Object> record = new LinkedHashMap<>();
    record.put("id", "\ud800");
    record.put("a\udfff", List.of("\ude00\ud83d", "\ud83dA", "😀", "q\"\n"));
    String expected =
        "{\"id\":\"\\ud800\",\"a\\udfff\":[\"\\ude00\\ud83d\",\"\\ud83dA\",\"😀\",\"q\\\"\\n\"]}";
    // through a writer (the command's output) and through bytes (a generator of its own)
    StringWriter text = new StringWriter();
    try (JsonGenerator g = JSON.createGenerator(text)) {
      ResultJson.writeValue(g, record);
    }
    assertThat(text.toString()).isEqualTo(expected);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (JsonGenerator g = JSON.createGenerator(bytes)) {
      ResultJson.writeValue(g, record);
    }
    // (Jackson's byte generator writes a surrogate pair as two escapes of its own)
    assertThat(bytes.toString(StandardCharsets.UTF_8))
        .isEqualTo(expected.replace("😀", "\\uD83D\\uDE00"));
  }
}
