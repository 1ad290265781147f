package io.spyglass.sources;

import io.spyglass.core.SpyglassClock;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/** Opens a {@link Source} from its textual spec, as given on a command line or in a config. */
public final class Sources {
  /** The accepted forms, for help texts and error messages. */
  public static final String FORMS =
      "gen[?seed=N&rate=RECORDS_PER_S&count=N&size=BYTES&start=EPOCH_MS],"
          + " file:PATH[?follow=true&maxLine=BYTES], - or stdin[?maxLine=BYTES],"
          + " kafka://HOST:PORT[,HOST:PORT...]/TOPIC[?from=latest|earliest|EPOCH_MS&group=NAME]";

  /**
   * What a spec cannot say.
   *
   * @param stdin the stream read by {@code -} and {@code stdin}; null for {@link System#in}
   * @param kafkaProperties extra Kafka consumer settings (e.g. security), applied last
   * @param clock the clock the source's time comes from (its waits, its pace, the event times it
   *     stamps)
   */
  public record SourceOptions(
      InputStream stdin, Map<String, Object> kafkaProperties, SpyglassClock clock) {
    public static final SourceOptions DEFAULTS = new SourceOptions(null, Map.of());

    public SourceOptions {
      kafkaProperties = Map.copyOf(kafkaProperties);
      Objects.requireNonNull(clock);
    }

    /** On the machine's clocks. */
    public SourceOptions(InputStream stdin, Map<String, Object> kafkaProperties) {
      this(stdin, kafkaProperties, SpyglassClock.system());
    }

    public SourceOptions withClock(SpyglassClock v) {
      return new SourceOptions(stdin, kafkaProperties, v);
    }
  }

  private Sources() {}

  /** {@link #open(String, SourceOptions)} with the defaults. */
  public static Source open(String spec) throws IOException {
    return open(spec, SourceOptions.DEFAULTS);
  }

  /**
   * Opens the source a spec names: {@value #FORMS}.
   *
   * @throws IllegalArgumentException when the spec is not one of these forms, has an unknown or
   *     invalid option, or names a Kafka topic that does not exist; the message says which
   * @throws IOException when a file cannot be opened or Kafka does not answer
   */
  public static Source open(String spec, SourceOptions options) throws IOException {
    String s = spec == null ? "" : spec.trim();
    if (s.equals("gen") || s.startsWith("gen?")) {
      return generator(
          query(s, "gen".length(), Set.of("seed", "rate", "count", "size", "start")),
          options.clock());
    }
    if (s.equals("-") || s.equals("stdin") || s.startsWith("stdin?")) {
      Map<String, String> q = query(s, s.equals("-") ? 1 : "stdin".length(), Set.of("maxLine"));
      InputStream in = options.stdin() != null ? options.stdin() : System.in;
      return new FileSource(in, "stdin", fileOptions(q), options.clock());
    }
    if (s.startsWith("file:")) {
      String rest = s.substring("file:".length());
      if (rest.startsWith("//")) {
        rest = rest.substring(2); // file:///tmp/x
      }
      int q = rest.lastIndexOf('?');
      Map<String, String> query = Map.of();
      if (q >= 0 && rest.indexOf('=', q) > q) {
        query = query(rest, q, Set.of("follow", "maxLine"));
        rest = rest.substring(0, q);
      }
      if (rest.isEmpty()) {
        throw unknown(spec, "a path is missing after file:");
      }
      return new FileSource(Path.of(rest), fileOptions(query), options.clock());
    }
    if (s.startsWith("kafka://")) {
      return kafka(spec, s.substring("kafka://".length()), options);
    }
    throw unknown(spec, null);
  }

  private static Source generator(Map<String, String> q, SpyglassClock clock) {
    GeneratorSource.Options o = GeneratorSource.Options.DEFAULTS;
    if (q.containsKey("seed")) {
      o = o.withSeed(number(q, "seed"));
    }
    if (q.containsKey("rate")) {
      o = o.withRate(number(q, "rate"));
    }
    if (q.containsKey("count")) {
      o = o.withCount(number(q, "count"));
    }
    if (q.containsKey("size")) {
      o = o.withRecordBytes(Math.toIntExact(number(q, "size")));
    }
    if (q.containsKey("start")) {
      o = o.withStartMs(number(q, "start"));
    }
    return new GeneratorSource(o, clock);
  }

  private static FileSource.Options fileOptions(Map<String, String> q) {
    FileSource.Options o = FileSource.Options.DEFAULTS;
    if (q.containsKey("follow")) {
      o = o.withFollow(bool(q, "follow"));
    }
    if (q.containsKey("maxLine")) {
      o = o.withMaxLineBytes(Math.toIntExact(number(q, "maxLine")));
    }
    return o;
  }

  private static Source kafka(String spec, String rest, SourceOptions options) throws IOException {
    int q = rest.indexOf('?');
    Map<String, String> query = q < 0 ? Map.of() : query(rest, q, Set.of("from", "group"));
    String address = q < 0 ? rest : rest.substring(0, q);
    int slash = address.indexOf('/');
    if (slash <= 0 || slash == address.length() - 1 || address.indexOf('/', slash + 1) >= 0) {
      throw unknown(spec, "a Kafka spec is kafka://HOST:PORT/TOPIC");
    }
    KafkaSource.Options o =
        KafkaSource.Options.DEFAULTS.withConsumerProperties(options.kafkaProperties());
    String from = query.getOrDefault("from", "latest");
    switch (from) {
      case "latest" -> o = o.withFrom(KafkaSource.StartAt.latest());
      case "earliest" -> o = o.withFrom(KafkaSource.StartAt.earliest());
      default -> o = o.withFrom(KafkaSource.StartAt.timestamp(number(query, "from")));
    }
    String group = query.get("group");
    if (group != null && !group.isEmpty()) {
      o = o.withGroup(group);
    }
    return new KafkaSource(
        address.substring(0, slash), address.substring(slash + 1), o, options.clock());
  }

  /** The {@code k=v&...} options after position {@code at} (a '?', or the end). */
  private static Map<String, String> query(String s, int at, Set<String> known) {
    Map<String, String> out = new LinkedHashMap<>();
    if (at >= s.length()) {
      return out;
    }
    if (s.charAt(at) != '?') {
      throw unknown(s, null);
    }
    for (String pair : s.substring(at + 1).split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String key = decode(eq < 0 ? pair : pair.substring(0, eq));
      String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
      if (!known.contains(key)) {
        throw new IllegalArgumentException(
            "Unknown option '" + key + "' in source '" + s + "'; known here: " + known);
      }
      out.put(key, value);
    }
    return out;
  }

  private static String decode(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }

  private static long number(Map<String, String> q, String key) {
    try {
      return Long.parseLong(q.get(key));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "Option '" + key + "' must be a whole number, not '" + q.get(key) + "'", e);
    }
  }

  private static boolean bool(Map<String, String> q, String key) {
    String v = q.get(key);
    if (v.isEmpty() || v.equals("true")) {
      return true;
    }
    if (v.equals("false")) {
      return false;
    }
    throw new IllegalArgumentException(
        "Option '" + key + "' must be true or false, not '" + v + "'");
  }

  private static IllegalArgumentException unknown(String spec, String detail) {
    return new IllegalArgumentException(
        "Unknown source '"
            + spec
            + "'"
            + (detail == null ? "" : " (" + detail + ")")
            + ". Accepted: "
            + FORMS);
  }
}
