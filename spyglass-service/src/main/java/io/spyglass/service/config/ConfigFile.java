package io.spyglass.service.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A configuration file of {@code spyglass serve}: YAML, one key a line, each key the long name of
 * an option ({@code port: 9090}, {@code max-queries: 500}), each value a scalar or, for an option
 * given more than once, a list ({@code source: [gen, http]} or one {@code - item} a line), or for
 * one of names and values a mapping ({@code kafka-properties: {security.protocol: SSL}}). What a
 * key means is the command's to say; this reads the file and keeps where each key is, so that every
 * error names its line.
 *
 * <pre>{@code
 * # spyglass.yaml
 * port: 9090
 * bind: 0.0.0.0
 * tokens: /etc/spyglass/tokens.txt
 * source:
 *   - kafka://10.0.0.7:9092/events
 *   - http
 * max-queries: 500
 * }</pre>
 */
public final class ConfigFile {
  private static final YAMLFactory YAML = new YAMLFactory();

  /**
   * One key: its values (one for a scalar), whether it was written as a list, its line (1-based),
   * and whether it was written as a mapping (of names to scalars: then each value is {@code
   * NAME=VALUE}, and {@code list} is true).
   */
  public record Entry(String key, List<String> values, boolean list, int line, boolean mapping) {
    public Entry(String key, List<String> values, boolean list, int line) {
      this(key, values, list, line, false);
    }
  }

  /** A file that cannot be read as a configuration; the message starts with the file and line. */
  public static final class Invalid extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    Invalid(String message) {
      super(message);
    }
  }

  private final Path path;
  private final Map<String, Entry> entries;

  private ConfigFile(Path path, Map<String, Entry> entries) {
    this.path = path;
    this.entries = Collections.unmodifiableMap(entries);
  }

  /** Where it was read from. */
  public Path path() {
    return path;
  }

  /** Its keys in the order written, each with its values and line. */
  public Map<String, Entry> entries() {
    return entries;
  }

  /** Where {@code line} is, for messages: {@code FILE line N}. */
  public String at(int line) {
    return path + " line " + line;
  }

  /**
   * Reads {@code path}.
   *
   * @throws IOException when it cannot be read
   * @throws Invalid when it is not a mapping of keys to scalars and lists of scalars, or has a key
   *     twice; the message names the line
   */
  public static ConfigFile read(Path path) throws IOException {
    String text;
    try {
      text = Files.readString(path, StandardCharsets.UTF_8);
    } catch (MalformedInputException e) {
      throw new Invalid(path + " is not UTF-8 text: a configuration file is YAML");
    }
    return parse(path, text);
  }

  /** Reads {@code text} as the contents of {@code path}. */
  public static ConfigFile parse(Path path, String text) {
    Map<String, Entry> out = new LinkedHashMap<>();
    try (Reader r = new StringReader(text);
        JsonParser p = YAML.createParser(r)) {
      JsonToken t = p.nextToken();
      if (t == null) {
        return new ConfigFile(path, out); // empty, or only comments
      }
      if (t != JsonToken.START_OBJECT) {
        throw invalid(
            path,
            p.currentTokenLocation(),
            "the file must be a mapping of keys to values, e.g. 'port: 9090', one a line");
      }
      while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
        String key = p.currentName();
        int line = line(p.currentTokenLocation());
        Entry before = out.get(key);
        if (before != null) {
          throw new Invalid(
              path
                  + " line "
                  + line
                  + ": '"
                  + key
                  + "' is given twice (first on line "
                  + before.line()
                  + "): give each key once, a list for several values");
        }
        out.put(key, value(path, p, key, line));
      }
      if (t != JsonToken.END_OBJECT) {
        throw invalid(path, p.currentTokenLocation(), "expected a key");
      }
      if (p.nextToken() != null) {
        throw invalid(path, p.currentTokenLocation(), "one document only: remove what follows");
      }
    } catch (JsonProcessingException e) {
      JsonLocation at = e.getLocation();
      String why = e.getOriginalMessage();
      int cut = why.indexOf('\n');
      throw invalid(
          path, at, "not valid YAML (" + (cut > 0 ? why.substring(0, cut) : why).strip() + ")");
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e); // a string reader does not fail
    }
    return new ConfigFile(path, out);
  }

  private static Entry value(Path path, JsonParser p, String key, int line) throws IOException {
    JsonToken t = p.nextToken();
    if (t == JsonToken.START_ARRAY) {
      List<String> values = new ArrayList<>();
      while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
        values.add(scalar(path, p, t, key, line(p.currentTokenLocation())));
      }
      return new Entry(key, List.copyOf(values), true, line);
    }
    if (t == JsonToken.START_OBJECT) { // e.g. kafka-properties: {security.protocol: SSL}
      List<String> values = new ArrayList<>();
      while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        int at = line(p.currentTokenLocation());
        values.add(name + "=" + scalar(path, p, p.nextToken(), key + "." + name, at));
      }
      return new Entry(key, List.copyOf(values), true, line, true);
    }
    return new Entry(key, List.of(scalar(path, p, t, key, line)), false, line);
  }

  private static String scalar(Path path, JsonParser p, JsonToken t, String key, int line)
      throws IOException {
    if (t == JsonToken.VALUE_NULL) {
      throw new Invalid(
          path + " line " + line + ": '" + key + "' has no value: give one, or remove the line");
    }
    if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
      throw new Invalid(
          path
              + " line "
              + line
              + ": the value of '"
              + key
              + "' must be a plain value or a list of them, not "
              + (t == JsonToken.START_OBJECT ? "a mapping" : "a list in a list"));
    }
    if (!t.isScalarValue()) {
      throw new Invalid(path + " line " + line + ": '" + key + "' needs a value");
    }
    return p.getText();
  }

  private static int line(JsonLocation at) {
    return at == null ? 0 : at.getLineNr();
  }

  private static Invalid invalid(Path path, JsonLocation at, String message) {
    int line = line(at);
    return new Invalid(path + (line > 0 ? " line " + line : "") + ": " + message);
  }
}
