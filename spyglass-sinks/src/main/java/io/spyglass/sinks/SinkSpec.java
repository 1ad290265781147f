package io.spyglass.sinks;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Where a query's results go: a webhook (an {@code http} or {@code https} URL that each result is
 * POSTed to), a file (one line a result) or a Kafka topic (one message a result).
 *
 * <p>Written as a JSON object in the API ({@code {"type": "webhook", "url": "https://..."}}, {@code
 * {"type": "file", "path": "out/q.ndjson"}}, {@code {"type": "kafka", "topic": "results"}} with an
 * optional {@code "bootstrap": "HOST:PORT"}), or as a URL on the command line ({@code https://...},
 * {@code file:PATH}, {@code kafka://HOST:PORT/TOPIC}). Parsing checks the form only; what a service
 * allows is {@link SinkPolicy}'s to say.
 *
 * @param type the kind of sink
 * @param target the webhook's URL, the file's path, or the Kafka topic
 * @param bootstrap for Kafka: the cluster's {@code HOST:PORT[,HOST:PORT...]}; null for the one the
 *     service chooses (and for other types)
 */
public record SinkSpec(Type type, String target, String bootstrap) {
  private static final JsonFactory JSON = new JsonFactory();

  /** A Kafka topic's legal name. */
  private static final Pattern TOPIC = Pattern.compile("[A-Za-z0-9._-]{1,249}");

  /** One or more {@code HOST:PORT}, comma separated. */
  private static final Pattern BOOTSTRAP =
      Pattern.compile(
          "(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9._-]+):[0-9]{1,5}(,(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9._-]+):[0-9]{1,5})*");

  /** The most a target may take, in characters. */
  static final int MAX_TARGET = 2_048;

  /** The kinds of sink. */
  public enum Type {
    WEBHOOK("webhook", "url"),
    FILE("file", "path"),
    KAFKA("kafka", "topic");

    private final String wireName;
    private final String field;

    Type(String wireName, String field) {
      this.wireName = wireName;
      this.field = field;
    }

    /** The name in JSON and in metrics: {@code webhook}, {@code file}, {@code kafka}. */
    public String wireName() {
      return wireName;
    }

    /** The JSON field that holds the target: {@code url}, {@code path}, {@code topic}. */
    public String field() {
      return field;
    }

    static Type of(String name) {
      for (Type t : values()) {
        if (t.wireName.equals(name)) {
          return t;
        }
      }
      return null;
    }
  }

  public SinkSpec {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(target, "target");
    if (type != Type.KAFKA && bootstrap != null) {
      throw new IllegalArgumentException("only a Kafka sink has a bootstrap");
    }
  }

  public static SinkSpec webhook(String url) {
    return new SinkSpec(Type.WEBHOOK, url, null);
  }

  public static SinkSpec file(String path) {
    return new SinkSpec(Type.FILE, path, null);
  }

  public static SinkSpec kafka(String bootstrap, String topic) {
    return new SinkSpec(Type.KAFKA, topic, bootstrap);
  }

  /** The same sink on the Kafka cluster {@code servers}. */
  public SinkSpec withBootstrap(String servers) {
    return new SinkSpec(type, target, servers);
  }

  /** The same sink with another target (e.g. a file's path resolved). */
  public SinkSpec withTarget(String t) {
    return new SinkSpec(type, t, bootstrap);
  }

  /** The target for people: the URL, the path, or {@code HOST:PORT/TOPIC} (the topic alone). */
  public String describe() {
    return type == Type.KAFKA && bootstrap != null ? bootstrap + "/" + target : target;
  }

  @Override
  public String toString() {
    return type.wireName + " " + describe();
  }

  /**
   * A sink written as a URL: {@code http://...} or {@code https://...} (a webhook), {@code
   * file:PATH} (a file; {@code file:///abs/path} too), {@code kafka://HOST:PORT[,HOST:PORT]/TOPIC}.
   *
   * @throws SinkSpecException when it is none of them, saying what to write
   */
  public static SinkSpec parseUrl(String text) {
    String s = text == null ? "" : text.strip();
    String lower = s.toLowerCase(Locale.ROOT);
    if (lower.startsWith("http://") || lower.startsWith("https://")) {
      return checked(webhook(s), "--sink");
    }
    if (lower.startsWith("file:")) {
      String path = s.substring("file:".length());
      if (path.startsWith("//")) {
        try {
          path = new URI(s).getPath();
        } catch (URISyntaxException e) {
          throw new SinkSpecException(
              "'" + s + "' is not a file URL: " + e.getReason(),
              "Write file:PATH, e.g. file:/tmp/results.ndjson",
              "--sink");
        }
      }
      return checked(file(path), "--sink");
    }
    if (lower.startsWith("kafka://")) {
      String rest = s.substring("kafka://".length());
      int slash = rest.indexOf('/');
      if (slash < 0) {
        throw new SinkSpecException(
            "'" + s + "' names no topic",
            "Write kafka://HOST:PORT/TOPIC, e.g. kafka://127.0.0.1:9092/results",
            "--sink");
      }
      return checked(kafka(rest.substring(0, slash), rest.substring(slash + 1)), "--sink");
    }
    throw new SinkSpecException(
        "'" + s + "' is not a sink",
        "Write a webhook's URL (https://host/path), file:PATH or kafka://HOST:PORT/TOPIC",
        "--sink");
  }

  /**
   * A sink as a JSON object of the API, its values read already: {@code type} and the target's
   * field ({@code url}, {@code path} or {@code topic}), for Kafka an optional {@code bootstrap}.
   *
   * @param field where it was written, for errors: e.g. {@code sinks[0]}
   * @throws SinkSpecException when a field is missing, unknown or not a string, saying which
   */
  public static SinkSpec fromFields(Map<String, ?> fields, String field) {
    Object t = fields.get("type");
    if (!(t instanceof String typeName)) {
      throw new SinkSpecException(
          t == null ? "A sink needs a \"type\"" : "A sink's \"type\" must be a string",
          "Give \"type\": \"webhook\", \"file\" or \"kafka\", e.g. {\"type\": \"webhook\","
              + " \"url\": \"https://hooks.example.com/spyglass\"}",
          field + ".type");
    }
    Type type = Type.of(typeName);
    if (type == null) {
      throw new SinkSpecException(
          "Unknown sink type '" + typeName + "'",
          "Give \"type\": \"webhook\", \"file\" or \"kafka\"",
          field + ".type");
    }
    for (String k : fields.keySet()) {
      if (!k.equals("type")
          && !k.equals(type.field)
          && !(type == Type.KAFKA && k.equals("bootstrap"))) {
        throw new SinkSpecException(
            "A " + type.wireName + " sink has no field \"" + k + "\"",
            "Give " + example(type),
            field + "." + k);
      }
    }
    Object target = fields.get(type.field);
    if (!(target instanceof String s) || s.isBlank()) {
      throw new SinkSpecException(
          "A " + type.wireName + " sink needs \"" + type.field + "\": a string",
          "Give " + example(type),
          field + "." + type.field);
    }
    Object servers = fields.get("bootstrap");
    if (servers != null && !(servers instanceof String)) {
      throw new SinkSpecException(
          "A Kafka sink's \"bootstrap\" must be a string, HOST:PORT",
          "Give " + example(type),
          field + ".bootstrap");
    }
    return checked(new SinkSpec(type, s.strip(), (String) servers), field);
  }

  private static String example(Type type) {
    return switch (type) {
      case WEBHOOK -> "{\"type\": \"webhook\", \"url\": \"https://hooks.example.com/spyglass\"}";
      case FILE -> "{\"type\": \"file\", \"path\": \"results/my-query.ndjson\"}";
      case KAFKA ->
          "{\"type\": \"kafka\", \"topic\": \"results\"} (\"bootstrap\": \"HOST:PORT\" to"
              + " name the cluster)";
    };
  }

  /** The spec if its form is right; else the error, naming {@code field}. */
  private static SinkSpec checked(SinkSpec spec, String field) {
    String where = field.equals("--sink") ? field : field + "." + spec.type.field;
    if (spec.target.length() > MAX_TARGET) {
      throw new SinkSpecException(
          "The sink's " + spec.type.field + " is longer than " + MAX_TARGET + " characters",
          "Give a shorter one",
          where);
    }
    switch (spec.type) {
      case WEBHOOK -> webhookUri(spec.target, where);
      case FILE -> {
        if (spec.target.isBlank() || spec.target.indexOf('\0') >= 0) {
          throw new SinkSpecException(
              "'" + spec.target + "' is not a file path",
              "Give a path, e.g. results/my-query.ndjson",
              where);
        }
      }
      case KAFKA -> {
        if (!TOPIC.matcher(spec.target).matches()) {
          throw new SinkSpecException(
              "'" + spec.target + "' is not a Kafka topic's name",
              "A topic's name is 1 to 249 letters, digits, '.', '_' or '-'",
              where);
        }
        if (spec.bootstrap != null && !BOOTSTRAP.matcher(spec.bootstrap).matches()) {
          throw new SinkSpecException(
              "'" + spec.bootstrap + "' is not a Kafka cluster's HOST:PORT",
              "Give HOST:PORT, or several separated by commas, e.g. 127.0.0.1:9092",
              field.equals("--sink") ? field : field + ".bootstrap");
        }
      }
    }
    return spec;
  }

  /**
   * A webhook's URL, checked: {@code http} or {@code https}, with a host, without user info or a
   * fragment.
   */
  static URI webhookUri(String url, String field) {
    URI u;
    try {
      u = new URI(url);
    } catch (URISyntaxException e) {
      throw new SinkSpecException(
          "'" + url + "' is not a URL: " + e.getReason() + " at index " + e.getIndex(),
          "Give the webhook's URL, e.g. https://hooks.example.com/spyglass (escape spaces as %20)",
          field);
    }
    String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw new SinkSpecException(
          "A webhook's URL is http:// or https://, not '" + url + "'",
          "Give e.g. https://hooks.example.com/spyglass",
          field);
    }
    if (u.getHost() == null || u.getHost().isEmpty()) {
      throw new SinkSpecException(
          "The webhook's URL '" + url + "' has no host (or one that is not a valid name)",
          "Give e.g. https://hooks.example.com/spyglass",
          field);
    }
    if (u.getRawUserInfo() != null) {
      throw new SinkSpecException(
          "The webhook's URL holds user information (user@): it is not sent, and it hides the"
              + " host",
          "Give the URL without user@; a receiver that needs a secret can take it in the path or"
              + " the query string",
          field);
    }
    if (u.getRawFragment() != null) {
      throw new SinkSpecException(
          "The webhook's URL has a fragment (#...), which is never sent",
          "Give the URL without #...",
          field);
    }
    return u;
  }

  /** The JSON object of the API: {@code {"type": ..., "url"|"path"|"topic": ...}}. */
  public Map<String, String> toFields() {
    Map<String, String> out = new LinkedHashMap<>();
    out.put("type", type.wireName);
    out.put(type.field, target);
    if (bootstrap != null) {
      out.put("bootstrap", bootstrap);
    }
    return out;
  }

  /** Sinks as a JSON array of their objects, to store. */
  public static String toJson(List<SinkSpec> sinks) {
    StringWriter out = new StringWriter();
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.writeStartArray();
      for (SinkSpec s : sinks) {
        g.writeStartObject();
        for (Map.Entry<String, String> e : s.toFields().entrySet()) {
          g.writeStringField(e.getKey(), e.getValue());
        }
        g.writeEndObject();
      }
      g.writeEndArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }

  /**
   * Sinks stored by {@link #toJson(List)}; none for null or empty text.
   *
   * @throws SinkSpecException when the text is not such an array
   */
  public static List<SinkSpec> listFromJson(String json) {
    List<SinkSpec> out = new ArrayList<>();
    if (json == null || json.isBlank()) {
      return out;
    }
    try (JsonParser p = JSON.createParser(json)) {
      if (p.nextToken() != JsonToken.START_ARRAY) {
        throw new SinkSpecException("sinks are a JSON array", "Give [{...}, ...]", "sinks");
      }
      int i = 0;
      while (p.nextToken() == JsonToken.START_OBJECT) {
        Map<String, Object> fields = new LinkedHashMap<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String name = p.currentName();
          JsonToken t = p.nextToken();
          if (t == JsonToken.VALUE_STRING) {
            fields.put(name, p.getText());
          } else {
            p.skipChildren();
            fields.put(name, t.toString());
          }
        }
        out.add(fromFields(fields, "sinks[" + i++ + "]"));
      }
    } catch (IOException e) {
      throw new SinkSpecException(
          "sinks are not valid JSON: " + e.getMessage(), "Give [{...}, ...]", "sinks");
    }
    return out;
  }
}
