package io.spyglass.flink.client;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.spyglass.core.plan.QueryLimits;
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
 *  "sinks": {"query": "17", "kafka": ["results"]},
 *  "limits": {"maxDurationMs": 86400000, "maxRawLimit": 10000, ...}}
 * {"v": 1, "type": "kill", "id": "a-17"}      stop at once, no result
 * {"v": 1, "type": "finish", "id": "a-17"}    end now with the final result
 * {"v": 1, "type": "ended", "id": "a-17"}     written by the job: the query finished early
 * {"v": 1, "type": "inspect", "id": "a-17", "request": 5, "replyTo": "spyglass-results-a",
 *  "windows": true}                           a look at the query's open windows (see below)
 * </pre>
 *
 * An {@code inspect} asks the job for the query's open windows as of every record read before the
 * message: each filter subtask flushes what it holds of the query and passes the message on; once
 * every subtask has, the combiner replies with the open windows (when {@code windows}), each an
 * {@code OPEN} reply, or else with the size of the query's state ({@code SAVED}), then {@code
 * INSPECTED} with the request's number (also when it does not know the query: then nothing before
 * it). Nothing of it is kept in the job's state: a look in flight when the job restores gets no
 * answer.
 *
 * <p>{@code receiveTime} (epoch ms) starts the query's duration and windows; without it the query
 * starts when the job's combiner first has it (a local run, whose start takes a while). {@code
 * replyTo} is the topic its replies go to; {@code instance} is copied into a header of each reply;
 * {@code progress} asks for a progress reply about once a second. {@code sinks} (optional) names
 * Kafka topics, on the job's own cluster, that each result of the query also goes to, written by
 * the job with its replies (in the same transaction when the job delivers exactly once), as the
 * documents of sinks ({@code io.spyglass.sinks.SinkDocument}) keyed by {@code sinks.query} (the
 * query's id where it was submitted) and the window. {@code limits} (optional) are the query limits
 * it was checked under where it was submitted ({@code QueryLimits}, each by its name; one left out
 * is the default's): the job compiles the text under them and its operators keep to them. Unknown
 * fields are ignored, so newer senders can add fields, and a message without {@code sinks} or
 * {@code limits} reads as before (a query without limits runs under the defaults); a higher {@code
 * v} is refused.
 *
 * @param receiveTimeMs for {@code query}: when the query was received, epoch ms; {@link #JOB_TIME}
 *     to let the job start it; 0 for other types
 * @param sinks for {@code query}: the Kafka topics the job writes each result to as well; null for
 *     none
 * @param limits for {@code query}: the limits it was checked under where it was submitted, which
 *     the job runs it with; null for the job's defaults (a message of an older sender)
 */
public record ControlMessage(
    Type type,
    String queryId,
    String bql,
    long receiveTimeMs,
    String replyTo,
    String instance,
    boolean progress,
    Sinks sinks,
    QueryLimits limits) {
  public static final int VERSION = 1;

  /** A query's receive time when the job's combiner sets it, as it first has the query. */
  public static final long JOB_TIME = -1;

  private static final JsonFactory JSON = new JsonFactory();

  /** What the message asks for. */
  public enum Type {
    QUERY,
    KILL,
    FINISH,
    ENDED,
    INSPECT;

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

  /** A message without sinks or limits. */
  public ControlMessage(
      Type type,
      String queryId,
      String bql,
      long receiveTimeMs,
      String replyTo,
      String instance,
      boolean progress) {
    this(type, queryId, bql, receiveTimeMs, replyTo, instance, progress, null, null);
  }

  /** A message without limits. */
  public ControlMessage(
      Type type,
      String queryId,
      String bql,
      long receiveTimeMs,
      String replyTo,
      String instance,
      boolean progress,
      Sinks sinks) {
    this(type, queryId, bql, receiveTimeMs, replyTo, instance, progress, sinks, null);
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

  /**
   * A look at the query's open windows ({@code windows}: the windows; else only the answer),
   * answered to {@code replyTo} with the request's number {@code request}.
   */
  public static ControlMessage inspect(String id, long request, String replyTo, boolean windows) {
    return new ControlMessage(Type.INSPECT, id, null, request, replyTo, null, windows);
  }

  /** For {@code inspect}: the request's number, which its answer carries. */
  public long request() {
    return type == Type.INSPECT ? receiveTimeMs : 0;
  }

  /** For {@code inspect}: whether the open windows are asked for, or only the answer. */
  public boolean windows() {
    return type == Type.INSPECT && progress;
  }

  /** The same query, received at {@code ms}. */
  public ControlMessage withReceiveTime(long ms) {
    return new ControlMessage(type, queryId, bql, ms, replyTo, instance, progress, sinks, limits);
  }

  /** The same query, asking for progress replies. */
  public ControlMessage withProgress(boolean on) {
    return new ControlMessage(
        type, queryId, bql, receiveTimeMs, replyTo, instance, on, sinks, limits);
  }

  /** The same query, its results also written to {@code s} (null: none). */
  public ControlMessage withSinks(Sinks s) {
    return new ControlMessage(
        type, queryId, bql, receiveTimeMs, replyTo, instance, progress, s, limits);
  }

  /** The same query, run under {@code l} (null: the job's defaults). */
  public ControlMessage withLimits(QueryLimits l) {
    return new ControlMessage(
        type, queryId, bql, receiveTimeMs, replyTo, instance, progress, sinks, l);
  }

  /** The limits the query runs under: its own, or {@code defaults} when it names none. */
  public QueryLimits limitsOr(QueryLimits defaults) {
    return limits != null ? limits : defaults;
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
        if (limits != null) {
          g.writeObjectFieldStart("limits");
          long[] v = values(limits);
          for (int i = 0; i < LIMIT_NAMES.length; i++) {
            g.writeNumberField(LIMIT_NAMES[i], v[i]);
          }
          g.writeEndObject();
        }
      } else if (type == Type.INSPECT) {
        g.writeNumberField("request", receiveTimeMs);
        g.writeStringField("replyTo", replyTo);
        g.writeBooleanField("windows", progress);
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
    long request = -1;
    boolean windows = false;
    Sinks sinks = null;
    QueryLimits limits = null;
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
          case "request" -> {
            if (t != JsonToken.VALUE_NUMBER_INT || p.getLongValue() < 0) {
              throw new MessageFormatException("request must be a non-negative integer");
            }
            request = p.getLongValue();
          }
          case "windows" -> windows = t == JsonToken.VALUE_TRUE;
          case "sinks" -> sinks = sinks(p, t);
          case "limits" -> limits = limits(p, t);
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
          "unknown control message type '"
              + type
              + "'; known: query, kill, finish, ended, inspect");
    }
    if (kind == Type.INSPECT) {
      if (request < 0 || replyTo == null) {
        throw new MessageFormatException(
            "an inspect message needs request and replyTo: query " + id);
      }
      return inspect(id, request, replyTo, windows);
    }
    if (kind == Type.QUERY && (bql == null || replyTo == null)) {
      throw new MessageFormatException("a query message needs bql and replyTo: query " + id);
    }
    long receive = kind == Type.QUERY ? receiveTime : 0;
    boolean query = kind == Type.QUERY;
    return new ControlMessage(
        kind,
        id,
        bql,
        receive,
        replyTo,
        instance,
        progress,
        query ? sinks : null,
        query ? limits : null);
  }

  /** The JSON names of the settings of {@link QueryLimits}, in the order of its components. */
  private static final String[] LIMIT_NAMES = {
    "defaultDurationMs",
    "maxDurationMs",
    "defaultRawLimit",
    "maxRawLimit",
    "maxGroups",
    "maxExactGroups",
    "countDistinctEntries",
    "distributionEntries",
    "maxDistributionPoints",
    "topKEntries",
    "maxTopK",
    "minWindowEmitMs",
    "maxQueryLength",
    "maxEmitsPerSecond"
  };

  /** Which settings of {@link QueryLimits} are longs (the others are ints), by index. */
  private static final boolean[] LIMIT_IS_LONG = {
    true, true, false, false, false, false, false, false, false, false, false, true, false, false
  };

  private static long[] values(QueryLimits l) {
    return new long[] {
      l.defaultDurationMs(),
      l.maxDurationMs(),
      l.defaultRawLimit(),
      l.maxRawLimit(),
      l.maxGroups(),
      l.maxExactGroups(),
      l.countDistinctEntries(),
      l.distributionEntries(),
      l.maxDistributionPoints(),
      l.topKEntries(),
      l.maxTopK(),
      l.minWindowEmitMs(),
      l.maxQueryLength(),
      l.maxEmitsPerSecond()
    };
  }

  /**
   * {@code {"maxRawLimit": 10000, ...}}: each setting a non-negative integer, one left out the
   * default's, unknown ones ignored; null for JSON null.
   */
  private static QueryLimits limits(JsonParser p, JsonToken t) throws IOException {
    if (t == JsonToken.VALUE_NULL) {
      return null;
    }
    if (t != JsonToken.START_OBJECT) {
      throw new MessageFormatException("field limits must be an object");
    }
    long[] v = values(QueryLimits.DEFAULTS);
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken value = p.nextToken();
      int i = java.util.Arrays.asList(LIMIT_NAMES).indexOf(name);
      if (i < 0) {
        p.skipChildren();
        continue;
      }
      if (value != JsonToken.VALUE_NUMBER_INT
          || p.getNumberType() == JsonParser.NumberType.BIG_INTEGER
          || p.getLongValue() < 0
          || (!LIMIT_IS_LONG[i] && p.getLongValue() > Integer.MAX_VALUE)) {
        throw new MessageFormatException(
            "field limits."
                + name
                + " must be a non-negative integer"
                + (LIMIT_IS_LONG[i] ? "" : " of 32 bits"));
      }
      v[i] = p.getLongValue();
    }
    return new QueryLimits(
        v[0],
        v[1],
        (int) v[2],
        (int) v[3],
        (int) v[4],
        (int) v[5],
        (int) v[6],
        (int) v[7],
        (int) v[8],
        (int) v[9],
        (int) v[10],
        v[11],
        (int) v[12],
        (int) v[13]);
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
