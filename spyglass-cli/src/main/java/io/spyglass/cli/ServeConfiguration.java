package io.spyglass.cli;

import io.spyglass.core.plan.Names;
import io.spyglass.service.config.ConfigFile;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The effective configuration of {@code spyglass serve}, in layers: a flag given on the command
 * line wins, then an environment variable ({@code SPYGLASS_PORT=9090}: {@code SPYGLASS_} and the
 * option's long name in capitals, {@code -} as {@code _}), then the configuration file ({@code
 * --config FILE} or {@code SPYGLASS_CONFIG}; its keys the long names: {@code port: 9090}), then the
 * option's default. A value from the file or the environment is converted and checked as the flag
 * would be, and an error names where it came from (the file's line, the variable); an unknown key
 * is an error. Every option of the command is configurable this way (picocli's model is the one
 * list of them), and {@link #print} shows the outcome with where each value came from, secrets
 * masked.
 */
final class ServeConfiguration {
  /** Where an option's value came from. */
  enum Layer {
    FLAG,
    ENVIRONMENT,
    FILE,
    DEFAULT
  }

  /**
   * One option's value and its origin ({@code --port}, {@code SPYGLASS_PORT}, {@code FILE line 3}).
   */
  record Origin(OptionSpec option, Layer layer, String where) {}

  private final List<Origin> origins;
  private final Path file;

  private ServeConfiguration(List<Origin> origins, Path file) {
    this.origins = origins;
    this.file = file;
  }

  /** The configuration file read, or null. */
  Path file() {
    return file;
  }

  List<Origin> origins() {
    return origins;
  }

  /** Whether option {@code name} (e.g. {@code --source}) was given by any layer but the default. */
  boolean given(String name) {
    for (Origin o : origins) {
      if (o.option().longestName().equals(name)) {
        return o.layer() != Layer.DEFAULT;
      }
    }
    return false;
  }

  /** An option's key in the file: its long name without the dashes. */
  static String key(OptionSpec o) {
    return o.longestName().substring(2);
  }

  /** An option's environment variable: {@code SPYGLASS_MAX_QUERIES} for {@code --max-queries}. */
  static String environmentName(OptionSpec o) {
    return "SPYGLASS_" + key(o).toUpperCase(Locale.ROOT).replace('-', '_');
  }

  /** The options a file or variable may set: all but help and version. */
  static List<OptionSpec> configurable(CommandSpec spec) {
    List<OptionSpec> out = new ArrayList<>();
    for (OptionSpec o : spec.options()) {
      if (!o.usageHelp() && !o.versionHelp()) {
        out.add(o);
      }
    }
    out.sort(Comparator.comparing(ServeConfiguration::key));
    return out;
  }

  /**
   * Fills in the options of {@code spec} that its command line did not give, from {@code env}'s
   * {@code SPYGLASS_*} variables and the configuration file.
   *
   * @throws IllegalArgumentException when the file has an unknown key, or a value from the file or
   *     a variable is not one the option takes; the message says where it came from
   * @throws IOException when the configuration file cannot be read
   */
  static ServeConfiguration resolve(CommandSpec spec, Map<String, String> env) throws IOException {
    CommandLine.ParseResult parsed = spec.commandLine().getParseResult();
    List<OptionSpec> options = configurable(spec);
    Map<String, OptionSpec> byKey = new LinkedHashMap<>();
    options.forEach(o -> byKey.put(key(o), o));
    OptionSpec configOption = spec.findOption("--config");

    Path path = null;
    Layer pathLayer = Layer.DEFAULT;
    if (parsed != null && parsed.hasMatchedOption(configOption)) {
      path = configOption.getValue();
      pathLayer = Layer.FLAG;
    } else if (present(env.get(environmentName(configOption)))) {
      path = Path.of(env.get(environmentName(configOption)).strip());
      pathLayer = Layer.ENVIRONMENT;
      configOption.setValue(path);
    }
    ConfigFile file = path == null ? null : read(path);
    if (file != null) {
      for (ConfigFile.Entry e : file.entries().values()) {
        if (e.key().equals(key(configOption))) {
          throw new IllegalArgumentException(
              file.at(e.line())
                  + ": 'config' cannot be set in the configuration file itself: give --config FILE"
                  + " or SPYGLASS_CONFIG");
        }
        if (!byKey.containsKey(e.key())) {
          throw new IllegalArgumentException(
              file.at(e.line()) + ": unknown key '" + e.key() + "'" + suggestion(e.key(), byKey));
        }
      }
    }

    List<Origin> origins = new ArrayList<>();
    for (OptionSpec o : options) {
      if (o == configOption) {
        origins.add(new Origin(o, pathLayer, where(pathLayer, o)));
      } else if (parsed != null && parsed.hasMatchedOption(o)) {
        origins.add(new Origin(o, Layer.FLAG, o.longestName()));
      } else if (present(env.get(environmentName(o)))) {
        String name = environmentName(o);
        apply(o, fromEnvironment(o, env.get(name)), name);
        origins.add(new Origin(o, Layer.ENVIRONMENT, name));
      } else if (file != null && file.entries().containsKey(key(o))) {
        ConfigFile.Entry e = file.entries().get(key(o));
        String where = file.at(e.line());
        if (e.mapping() && !isMap(o)) {
          throw new IllegalArgumentException(
              where
                  + ": '"
                  + key(o)
                  + "' takes "
                  + (o.isMultiValue() ? "a value or a list" : "one value")
                  + ", not a mapping");
        }
        if (e.list() && !o.isMultiValue()) {
          throw new IllegalArgumentException(
              where + ": '" + key(o) + "' takes one value, not a list");
        }
        apply(o, e.values(), where + ": " + key(o));
        origins.add(new Origin(o, Layer.FILE, where));
      } else {
        origins.add(new Origin(o, Layer.DEFAULT, "default"));
      }
    }
    return new ServeConfiguration(origins, path);
  }

  private static boolean present(String value) {
    return value != null && !value.isBlank(); // an empty variable is as if it were not set
  }

  private static String where(Layer layer, OptionSpec o) {
    return switch (layer) {
      case FLAG -> o.longestName();
      case ENVIRONMENT -> environmentName(o);
      default -> "default";
    };
  }

  private static ConfigFile read(Path path) throws IOException {
    try {
      return ConfigFile.read(path);
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException(
          "the configuration file " + path + " does not exist: give the path of a YAML file");
    } catch (IOException e) {
      throw new IOException("cannot read the configuration file " + path + ": " + e, e);
    }
  }

  /**
   * A variable's values: one, or for an option given more than once, several, separated as its flag
   * separates them ({@code ,}) or, for one that does not split ({@code --source}), by spaces.
   */
  private static List<String> fromEnvironment(OptionSpec o, String value) {
    if (!o.isMultiValue()) {
      return List.of(value.strip());
    }
    if (isMap(o)) { // NAME=VALUE a line: a value may hold spaces (sasl.jaas.config)
      List<String> out = new ArrayList<>();
      for (String line : value.split("\\R")) {
        if (!line.isBlank()) {
          out.add(line.strip());
        }
      }
      return out;
    }
    if (!o.splitRegex().isEmpty()) {
      return List.of(value.strip()); // the option's own split applies
    }
    List<String> out = new ArrayList<>();
    for (String v : value.strip().split("\\s+")) {
      out.add(v);
    }
    return out;
  }

  /**
   * Sets option {@code o} from {@code values}, converted and checked as picocli converts the flag
   * (an {@code int} must be one) and as the command reads it (durations, sizes); errors start with
   * {@code where}.
   */
  /** Whether {@code o} takes {@code NAME=VALUE} pairs ({@code --kafka-property}). */
  static boolean isMap(OptionSpec o) {
    return Map.class.isAssignableFrom(o.type());
  }

  private static void apply(OptionSpec o, List<String> values, String where) {
    Class<?> type = o.type();
    if (isMap(o) && values.isEmpty()) {
      o.setValue(new LinkedHashMap<String, String>()); // an empty mapping: none
      return;
    }
    if (type == boolean.class || type == Boolean.class) {
      String v = values.get(0).strip().toLowerCase(Locale.ROOT);
      if (!v.equals("true") && !v.equals("false")) {
        throw new IllegalArgumentException(
            where + ": '" + values.get(0) + "' is not true or false");
      }
      o.setValue(Boolean.parseBoolean(v));
      return;
    }
    List<String> args = new ArrayList<>();
    for (String v : values) {
      check(o, v, where);
      args.add(o.longestName() + "=" + v); // '=': a value that starts with - or @ stays a value
    }
    CommandLine probe = new CommandLine(new ServeCommand());
    try {
      probe.parseArgs(args.toArray(new String[0]));
    } catch (CommandLine.ParameterException e) {
      throw new IllegalArgumentException(where + ": " + e.getMessage());
    }
    o.setValue(probe.getCommandSpec().findOption(o.longestName()).getValue());
  }

  /** Checks a duration ({@code TIME}), size ({@code BYTES}, {@code SIZE}) or rate value. */
  private static void check(OptionSpec o, String value, String where) {
    try {
      switch (o.paramLabel()) {
        case "TIME" -> OptionValues.duration(o.longestName(), value);
        case "BYTES", "SIZE" -> OptionValues.parseBytes(value);
        case "BYTES/s" -> OptionValues.rate(value);
        default -> {
          // checked by its conversion, or when the service starts
        }
      }
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(where + ": " + e.getMessage());
    }
  }

  /** A likely key for a mistyped one: {@code ; did you mean 'max-queries'?}, or nothing. */
  static String suggestion(String key, Map<String, OptionSpec> byKey) {
    String k = key.toLowerCase(Locale.ROOT).replace('_', '-').replaceFirst("^-+", "");
    if (byKey.containsKey(k)) {
      return ": did you mean '" + k + "'? (keys are the options' long names, without dashes)";
    }
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String candidate : byKey.keySet()) {
      int d = Names.distance(k, candidate);
      if (d < bestDistance) {
        bestDistance = d;
        best = candidate;
      }
    }
    return best != null && bestDistance <= Math.max(2, k.length() / 4)
        ? ": did you mean '" + best + "'?"
        : ": the keys are the long names of serve's options (spyglass serve --help,"
            + " docs/operations.md)";
  }

  /**
   * Prints the effective configuration as YAML that a configuration file could hold, each value
   * followed by where it came from; secrets masked (passwords in URLs, credentials in query
   * strings), options without a value as comments with their default.
   */
  void print(PrintWriter out) {
    out.println(
        "Configuration (flags over SPYGLASS_* variables over "
            + (file != null ? file : "a --config file")
            + " over defaults; secrets masked):");
    int width = 0;
    List<String[]> lines = new ArrayList<>();
    for (Origin o : origins) {
      Object value = o.option().getValue();
      String line;
      if (value == null) {
        String d = defaultText(o.option());
        line = "# " + key(o.option()) + ": not set" + (d != null ? ", default: " + d : "");
        lines.add(new String[] {line, null});
        continue;
      }
      line = key(o.option()) + ": " + yaml(value);
      width = Math.max(width, line.length());
      lines.add(new String[] {line, o.where()});
    }
    for (String[] l : lines) {
      if (l[1] == null) {
        out.println("  " + l[0]);
      } else {
        out.println("  " + l[0] + " ".repeat(Math.max(1, width - l[0].length() + 2)) + "# " + l[1]);
      }
    }
  }

  /**
   * A value as YAML, masked: lists in brackets, mappings in braces (the values of secret names
   * masked whole: {@code sasl.jaas.config}, {@code *password*}), strings quoted when they must be.
   */
  static String yaml(Object value) {
    if (value instanceof Map<?, ?> m) {
      List<String> items = new ArrayList<>();
      for (Map.Entry<?, ?> e : m.entrySet()) {
        String k = String.valueOf(e.getKey());
        String v = KafkaProperties.secret(k) ? "*****" : mask(String.valueOf(e.getValue()));
        items.add(scalarYaml(k) + ": " + scalarYaml(v));
      }
      return "{" + String.join(", ", items) + "}";
    }
    if (value instanceof Collection<?> c) {
      List<String> items = new ArrayList<>();
      for (Object v : c) {
        String s = mask(String.valueOf(v));
        items.add(plain(s) && !s.matches(".*[,\\[\\]{}].*") ? s : quote(s));
      }
      return "[" + String.join(", ", items) + "]";
    }
    if (value instanceof Number || value instanceof Boolean) {
      return value.toString();
    }
    String s = mask(String.valueOf(value));
    return plain(s) ? s : quote(s);
  }

  private static String scalarYaml(String s) {
    return plain(s) && !s.matches(".*[,\\[\\]{}].*") ? s : quote(s);
  }

  private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_./][A-Za-z0-9_./:?=&%+@,*-]*");
  private static final Pattern SPECIAL =
      Pattern.compile("(?i)true|false|yes|no|on|off|null|~|[-+]?[0-9][0-9_.e+-]*");

  private static boolean plain(String s) {
    return PLAIN.matcher(s).matches() && !SPECIAL.matcher(s).matches() && !s.contains(": ");
  }

  private static String quote(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  private static final Pattern SECRET_PARAM =
      Pattern.compile(
          "(?i)([?&;](?:password|passwd|pwd|secret|token|access_token|api[-_]?key|sasl[._]"
              + "jaas[._]config|ssl[._]key[._]password)=)[^&;\\s]*");
  private static final Pattern USER_INFO = Pattern.compile("(://[^/@:\\s]*:)[^/@\\s]*@");

  /**
   * A value with its secrets masked: the password of {@code scheme://user:password@host} and the
   * value of query parameters such as {@code password=}, {@code token=}, {@code secret=}.
   */
  static String mask(String value) {
    Matcher m = USER_INFO.matcher(value);
    String s = m.replaceAll("$1*****@");
    return SECRET_PARAM.matcher(s).replaceAll("$1*****");
  }

  /**
   * The default an option's description states, {@code (default: ...)}, without the parentheses; or
   * null when it states none.
   */
  static String defaultText(OptionSpec o) {
    String d = String.join(" ", o.description());
    int at = d.indexOf("(default: ");
    if (at < 0) {
      return null;
    }
    int depth = 0;
    int from = at + "(default: ".length();
    for (int i = at; i < d.length(); i++) {
      char c = d.charAt(i);
      if (c == '(') {
        depth++;
      } else if (c == ')' && --depth == 0) {
        return d.substring(from, i)
            .replace("${DEFAULT-VALUE}", String.valueOf(o.defaultValueString()));
      }
    }
    return null;
  }
}
