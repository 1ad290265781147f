package io.spyglass.flink.client;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.Objects;

/**
 * A message of the query topic: one JSON object per Kafka record, keyed by the query id so that the
 * messages of one query stay in order on one partition.
 *
 * <pre>
 * {"v": 1, "type": "query", "id": "a-17", "bql": "SELECT ...", "receiveTime": 1700000000000,
 *  "replyTo": "spyglass-results-a", "instance": "a", "progress": true,
 *  "sinks": {"query": "17", "kafka": ["results"]}}
 * {"v": 1, "type": "kill", "id": "a-17"}      stop at once, no result
 * {"v": 1, "type": "finish", "id": "a-17"}    end now with the final result
 * {"v": 1, "type": "ended", "id": "a-17"}     written by the job: the query finished early
 * </pre>
 *
 * {@code receiveTime} (epoch ms) starts the query's duration and windows; without it the query
 * starts when the job's combiner first has it (a local run, whose start takes a while). {@code
 * replyTo} is the topic its replies go to; {@code instance} is copied into a header of each reply;
 * {@code progress} asks for a progress reply about once a second. {@code sinks} (optional) names
 * Kafka topics, on the job's own cluster, that each result of the query also goes to, written by
 * the job with its replies (in the same transaction when the job delivers exactly once), as the
 * documents of sinks ({@code io.spyglass.sinks.SinkDocument}) keyed by {@code sinks.query} (the
 * query's id where it was submitted) and the window. Unknown fields are ignored, so newer senders
 * can add fields, and a message without {@code sinks} reads as before; a higher {@code v} is
 * refused.
 *
 * @param receiveTimeMs for {@code query}: when the query was received, epoch ms; {@link #JOB_TIME}
 *     to let the job start it; 0 for other types
 * @param sinks for {@code query}: the Kafka topics the job writes each result to as well; null for
 *     none
 */
public record ControlMessage(
    Type type,
    String queryId,
    String bql,
    long receiveTimeMs,
    String replyTo,
    String instance,
    boolean progress,
    Sinks sinks) {
  public static final int VERSION = 1;

  /** A query's receive time when the job's combiner sets it, as it first has the query. */
  public static final long JOB_TIME = -1;

  private static final JsonFactory JSON = new JsonFactory();

  /** What the message asks for. */
  public enum Type {
    QUERY,
    KILL,
    FINISH,
    ENDED;

    String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * The Kafka sinks the job writes a query's results to.
   *
   * @param queryId the query's id in its documents (where it was submitted, not the job's)
   * @param kafkaTopics topics on the job's cluster
   */
  public record Sinks(String queryId, java.util.List<String> kafkaTopics) {
    public Sinks {
      Objects.requireNonNull(queryId, "queryId");
      kafkaTopics = java.util.List.copyOf(kafkaTopics);
    }
  }

  /** A message without sinks. */
  public ControlMessage(
      Type type,
      String queryId,
      String bql,
      long receiveTimeMs,
      String replyTo,
      String instance,
      boolean progress) {
    this(type, queryId, bql, receiveTimeMs, replyTo, instance, progress, null);
  }

  public ControlMessage {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(queryId, "queryId");
    if (type == Type.QUERY) {
      Objects.requireNonNull(bql, "bql");
      Objects.requireNonNull(replyTo, "replyTo");
    }
  }

  public static ControlMessage query(
      String id, String bql, long receiveTimeMs, String replyTo, String instance) {
    return new ControlMessage(Type.QUERY, id, bql, receiveTimeMs, replyTo, instance, false);
  }

  public static ControlMessage kill(String id) {
    return new ControlMessage(Type.KILL, id, null, 0, null, null, false);
  }

  public static ControlMessage finish(String id) {
    return new ControlMessage(Type.FINISH, id, null, 0, null, null, false);
  }

  public static ControlMessage ended(String id) {
    return new ControlMessage(Type.ENDED, id, null, 0, null, null, false);
  }

  /** The same query, received at {@code ms}. */
  public ControlMessage withReceiveTime(long ms) {
    return new ControlMessage(type, queryId, bql, ms, replyTo, instance, progress, sinks);
  }

  /** The same query, asking for progress replies. */
  public ControlMessage withProgress(boolean on) {
    return new ControlMessage(type, queryId, bql, receiveTimeMs, replyTo, instance, on, sinks);
  }

  /** The same query, its results also written to {@code s} (null: none). */
  public ControlMessage withSinks(Sinks s) {
    return new ControlMessage(type, queryId, bql, receiveTimeMs, replyTo, instance, progress, s);
  }

  /** The JSON form, UTF-8. */
  public byte[] toJson() {
    ByteArrayOutputStream out = new ByteArrayOutputStream(128);
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.writeStartObject();
      g.writeNumberField("v", VERSION);
      g.writeStringField("type", type.wireName());
      g.writeStringField("id", queryId);
      if (type == Type.QUERY) {
        g.writeStringField("bql", bql);
        if (receiveTimeMs != JOB_TIME) {
          g.writeNumberField("receiveTime", receiveTimeMs);
        }
        g.writeStringField("replyTo", replyTo);
        if (instance != null) {
          g.writeStringField("instance", instance);
        }
        if (progress) {
          g.writeBooleanField("progress", true);
        }
        if (sinks != null) {
          g.writeObjectFieldStart("sinks");
          g.writeStringField("query", sinks.queryId());
          g.writeArrayFieldStart("kafka");
          for (String t : sinks.kafkaTopics()) {
            g.writeString(t);
          }
          g.writeEndArray();
          g.writeEndObject();
        }
      }
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  /**
   * Reads a message.
   *
   * @throws MessageFormatException when the bytes are not a JSON object of a known type and version
   *     with the fields its type needs; the message says which
   */
  public static ControlMessage parse(byte[] json) {
    if (json == null || json.length == 0) {
      throw new MessageFormatException("empty control message");
    }
    Integer version = null;
    String type = null;
    String id = null;
    String bql = null;
    long receiveTime = -1;
    String replyTo = null;
    String instance = null;
    boolean progress = false;
    Sinks sinks = null;
    try (JsonParser p = JSON.createParser(json)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new MessageFormatException("a control message is a JSON object");
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken t = p.nextToken();
        switch (name) {
          case "v" -> version = t == JsonToken.VALUE_NUMBER_INT ? p.getIntValue() : -1;
          case "type" -> type = text(p, t, name);
          case "id" -> id = text(p, t, name);
          case "bql" -> bql = text(p, t, name);
          case "replyTo" -> replyTo = text(p, t, name);
          case "instance" -> instance = t == JsonToken.VALUE_NULL ? null : text(p, t, name);
          case "receiveTime" -> {
            if (t != JsonToken.VALUE_NUMBER_INT || p.getLongValue() < 0) {
              throw new MessageFormatException("receiveTime must be epoch milliseconds");
            }
            receiveTime = p.getLongValue();
          }
          case "progress" -> progress = t == JsonToken.VALUE_TRUE;
          case "sinks" -> sinks = sinks(p, t);
          default -> p.skipChildren();
        }
      }
    } catch (IOException e) {
      throw new MessageFormatException("control message is not valid JSON: " + e.getMessage(), e);
    }
    if (version == null || version < 1 || version > VERSION) {
      throw new MessageFormatException(
          "control message version " + version + " is not supported (supported: 1)");
    }
    if (type == null || id == null || id.isEmpty()) {
      throw new MessageFormatException("a control message needs a type and an id");
    }
    Type kind;
    try {
      kind = Type.valueOf(type.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new MessageFormatException(
          "unknown control message type '" + type + "'; known: query, kill, finish, ended");
    }
    if (kind == Type.QUERY && (bql == null || replyTo == null)) {
      throw new MessageFormatException("a query message needs bql and replyTo: query " + id);
    }
    long receive = kind == Type.QUERY ? receiveTime : 0;
    return new ControlMessage(
        kind, id, bql, receive, replyTo, instance, progress, kind == Type.QUERY ? sinks : null);
  }

  /** {@code {"query": ID, "kafka": [TOPIC, ...]}}; null for JSON null. */
  private static Sinks sinks(JsonParser p, JsonToken t) throws IOException {
    if (t == JsonToken.VALUE_NULL) {
      return null;
    }
    if (t != JsonToken.START_OBJECT) {
      throw new MessageFormatException("field sinks must be an object");
    }
    String query = null;
    java.util.List<String> topics = new java.util.ArrayList<>();
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken v = p.nextToken();
      switch (name) {
        case "query" -> query = text(p, v, "sinks.query");
        case "kafka" -> {
          if (v != JsonToken.START_ARRAY) {
            throw new MessageFormatException("field sinks.kafka must be an array of topics");
          }
          while (p.nextToken() == JsonToken.VALUE_STRING) {
            topics.add(p.getText());
          }
          if (p.currentToken() != JsonToken.END_ARRAY) {
            throw new MessageFormatException("field sinks.kafka must be an array of topics");
          }
        }
        default -> p.skipChildren();
      }
    }
    if (query == null) {
      throw new MessageFormatException("field sinks needs the query's id: sinks.query");
    }
    return new Sinks(query, topics);
  }

  private static String text(JsonParser p, JsonToken t, String name) throws IOException {
    if (t != JsonToken.VALUE_STRING) {
      throw new MessageFormatException("field " + name + " must be a string");
    }
    return p.getText();
  }
}
