package io.spyglass.flink.client;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one filter subtask of the job tells about the stream, about once a second, on the job's
 * status topic (one JSON object per Kafka record, keyed by the subtask):
 *
 * <pre>
 * {"v": 1, "subtask": 0, "subtasks": 2, "time": 1700000000000, "records": 120000,
 *  "queries": 12, "bad": {"malformedJson": {"count": 3, "places": ["partition 1 offset 77"]}},
 *  "ended": false}
 * </pre>
 *
 * {@code records} counts the records read well since the subtask started; {@code bad} the records
 * skipped, by reason (the keys of {@code BadRecord}), with the places of the first few; {@code
 * ended} says that its input ended; {@code sample}, when present, is one record it read since its
 * previous status, as it was (for a service's view of the stream's fields). The stream's totals are
 * the sums over the latest status of each subtask.
 */
public record JobStatus(
    int subtask,
    int subtasks,
    long timeMs,
    long records,
    int queries,
    Map<String, Long> badCounts,
    Map<String, List<String>> badPlaces,
    boolean ended,
    byte[] sample) {
  public static final int VERSION = 1;
  private static final JsonFactory JSON = new JsonFactory();

  public JobStatus {
    badCounts = Map.copyOf(badCounts);
    badPlaces = Map.copyOf(badPlaces);
  }

  /** Records skipped as bad, over every reason. */
  public long bad() {
    return badCounts.values().stream().mapToLong(Long::longValue).sum();
  }

  public byte[] toJson() {
    ByteArrayOutputStream out = new ByteArrayOutputStream(160);
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.writeStartObject();
      g.writeNumberField("v", VERSION);
      g.writeNumberField("subtask", subtask);
      g.writeNumberField("subtasks", subtasks);
      g.writeNumberField("time", timeMs);
      g.writeNumberField("records", records);
      g.writeNumberField("queries", queries);
      g.writeObjectFieldStart("bad");
      for (Map.Entry<String, Long> e : badCounts.entrySet()) {
        g.writeObjectFieldStart(e.getKey());
        g.writeNumberField("count", e.getValue());
        g.writeArrayFieldStart("places");
        for (String p : badPlaces.getOrDefault(e.getKey(), List.of())) {
          g.writeString(p);
        }
        g.writeEndArray();
        g.writeEndObject();
      }
      g.writeEndObject();
      g.writeBooleanField("ended", ended);
      if (sample != null) {
        g.writeFieldName("sample");
        g.writeRawValue(new String(sample, StandardCharsets.UTF_8));
      }
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  /**
   * @throws MessageFormatException when the bytes are not a status of version 1
   */
  public static JobStatus parse(byte[] json) {
    int version = -1;
    int subtask = 0;
    int subtasks = 1;
    long time = 0;
    long records = 0;
    int queries = 0;
    boolean ended = false;
    Map<String, Long> counts = new LinkedHashMap<>();
    Map<String, List<String>> places = new LinkedHashMap<>();
    byte[] sample = null;
    try (JsonParser p = JSON.createParser(json == null ? new byte[0] : json)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new MessageFormatException("a job status is a JSON object");
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken t = p.nextToken();
        switch (name) {
          case "v" -> version = p.getIntValue();
          case "subtask" -> subtask = p.getIntValue();
          case "subtasks" -> subtasks = p.getIntValue();
          case "time" -> time = p.getLongValue();
          case "records" -> records = p.getLongValue();
          case "queries" -> queries = p.getIntValue();
          case "ended" -> ended = t == JsonToken.VALUE_TRUE;
          case "bad" -> readBad(p, counts, places);
          case "sample" -> {
            int start = (int) p.currentTokenLocation().getByteOffset();
            p.skipChildren();
            int end = (int) p.currentLocation().getByteOffset();
            sample = Arrays.copyOfRange(json, start, end);
          }
          default -> p.skipChildren();
        }
      }
    } catch (IOException | RuntimeException e) {
      throw new MessageFormatException("not a job status: " + e.getMessage(), e);
    }
    if (version != VERSION) {
      throw new MessageFormatException("job status version " + version + " is not supported");
    }
    return new JobStatus(subtask, subtasks, time, records, queries, counts, places, ended, sample);
  }

  private static void readBad(
      JsonParser p, Map<String, Long> counts, Map<String, List<String>> places) throws IOException {
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String reason = p.currentName();
      p.nextToken();
      long count = 0;
      List<String> where = new ArrayList<>();
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        p.nextToken();
        if (field.equals("count")) {
          count = p.getLongValue();
        } else if (field.equals("places")) {
          while (p.nextToken() == JsonToken.VALUE_STRING) {
            where.add(p.getText());
          }
        } else {
          p.skipChildren();
        }
      }
      counts.put(reason, count);
      places.put(reason, where);
    }
  }
}
