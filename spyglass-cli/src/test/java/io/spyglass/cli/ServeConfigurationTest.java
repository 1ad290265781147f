package io.spyglass.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * One configuration file for every option of {@code serve}, {@code SPYGLASS_*} variables over it,
 * flags over both; unknown keys and bad values are errors that name the file's line (or the
 * variable); the effective configuration printed with secrets masked.
 */
class ServeConfigurationTest {
  @TempDir Path dir;

  /** The command after its flags and {@code env} and the file they name are applied. */
  record Resolved(ServeCommand command, ServeConfiguration config) {}

  static Resolved resolve(Map<String, String> env, String... args) throws Exception {
    ServeCommand cmd = new ServeCommand();
    CommandLine cl = new CommandLine(cmd);
    cl.parseArgs(args);
    return new Resolved(cmd, ServeConfiguration.resolve(cl.getCommandSpec(), env));
  }

  /** What resolving with a configuration file of {@code yaml} throws. */
  private AbstractThrowableAssert<?, ? extends Throwable> assertThatTheFile(String yaml) {
    return assertThatThrownBy(() -> resolve(Map.of(), "--config", file(yaml).toString()));
  }

  private Path file(String yaml) throws Exception {
    Path f = dir.resolve("spyglass.yaml");
    Files.writeString(f, yaml);
    return f;
  }

  @Test
  void theFileSetsOptionsByTheirLongNamesVariablesOverrideItAndFlagsOverrideBoth()
      throws Exception {
    Path f =
        file(
            """
            # spyglass.yaml
            port: 9090
            max-queries: 500
            bind: 0.0.0.0
            insecure: true
            source:
              - kafka://10.0.0.7:9092,10.0.0.8:9092/events
              - http
            allowed-hosts: [spyglass.example.com, spyglass]
            grace: 2m
            data: /var/lib/spyglass
            max-result-memory: 1GiB
            """);
    Resolved r = resolve(Map.of(), "--config", f.toString());
    ServeOptions o = r.command().o;
    assertThat(o.port).isEqualTo(9090);
    assertThat(o.maxQueries).isEqualTo(500);
    assertThat(o.bind).isEqualTo("0.0.0.0");
    assertThat(o.insecure).isTrue();
    assertThat(o.sources).containsExactly("kafka://10.0.0.7:9092,10.0.0.8:9092/events", "http");
    assertThat(o.allowedHosts).containsExactly("spyglass.example.com", "spyglass");
    assertThat(o.grace).isEqualTo("2m");
    assertThat(o.data).isEqualTo(Path.of("/var/lib/spyglass"));
    assertThat(o.maxResultMemory).isEqualTo("1GiB");
    assertThat(o.maxQueriesPerUser).as("not in the file: its default").isEqualTo(100);

    // a variable overrides the file; a flag overrides both
    r =
        resolve(
            Map.of(
                "SPYGLASS_PORT", "9091",
                "SPYGLASS_MAX_QUERIES", "600",
                "SPYGLASS_SOURCE", "gen http",
                "SPYGLASS_ALLOWED_ORIGINS", "https://a.example,https://b.example",
                "SPYGLASS_INSECURE", "false",
                "SPYGLASS_UNRELATED", "ignored"),
            "--config",
            f.toString(),
            "--port",
            "9092");
    o = r.command().o;
    assertThat(o.port).isEqualTo(9092);
    assertThat(o.maxQueries).isEqualTo(600);
    assertThat(o.sources).containsExactly("gen", "http");
    assertThat(o.allowedOrigins).containsExactly("https://a.example", "https://b.example");
    assertThat(o.insecure).isFalse();
    assertThat(o.bind).isEqualTo("0.0.0.0");
    assertThat(r.config().given("--source")).isTrue();
    assertThat(r.config().given("--kafka")).isFalse();

    // the file can come from SPYGLASS_CONFIG too
    r = resolve(Map.of("SPYGLASS_CONFIG", f.toString()));
    assertThat(r.command().o.port).isEqualTo(9090);
  }

  @Test
  void unknownKeysAndBadValuesAreErrorsThatNameTheLine() throws Exception {
    assertThatTheFile("port: 9090\nmax-querys: 5\n")
        .hasMessageContaining("spyglass.yaml line 2: unknown key 'max-querys'")
        .hasMessageContaining("did you mean 'max-queries'?");
    assertThatTheFile("max_queries: 5\n")
        .hasMessageContaining("line 1")
        .hasMessageContaining("did you mean 'max-queries'?");
    assertThatTheFile("\n\nport: lots\n")
        .hasMessageContaining("spyglass.yaml line 3: port:")
        .hasMessageContaining("'lots' is not an int");
    assertThatTheFile("# x\ngrace: 30x\n")
        .hasMessageContaining("line 2: grace: --grace 30x is not a duration");
    assertThatTheFile("max-result-memory: 1TB\n")
        .hasMessageContaining("line 1: max-result-memory:")
        .hasMessageContaining("'1TB'");
    assertThatTheFile("port: [1, 2]\n")
        .hasMessageContaining("line 1: 'port' takes one value, not a list");
    assertThatTheFile("insecure: maybe\n")
        .hasMessageContaining("line 1: insecure: 'maybe' is not true or false");
    assertThatTheFile("port: 1\nport: 2\n")
        .hasMessageContaining("line 2: 'port' is given twice (first on line 1)");
    assertThatTheFile("grace:\n  port: 1\n")
        .hasMessageContaining("line 1: 'grace' takes one value, not a mapping");
    assertThatTheFile("source: {a: b}\n")
        .hasMessageContaining("line 1: 'source' takes a value or a list, not a mapping");
    assertThatTheFile("port: 1\n  bind: [\n").hasMessageContaining("not valid YAML");
    assertThatTheFile("database:\n").hasMessageContaining("line 1: 'database' has no value");
    assertThatTheFile("config: x.yaml\n")
        .hasMessageContaining("'config' cannot be set in the configuration file");
    assertThatThrownBy(() -> resolve(Map.of(), "--config", dir.resolve("none.yaml").toString()))
        .hasMessageContaining("none.yaml does not exist");
    assertThatThrownBy(() -> resolve(Map.of("SPYGLASS_MAX_QUERIES", "many")))
        .hasMessageContaining("SPYGLASS_MAX_QUERIES:")
        .hasMessageContaining("'many' is not an int");
    assertThatThrownBy(() -> resolve(Map.of("SPYGLASS_KEEP", "forever")))
        .hasMessageContaining("SPYGLASS_KEEP: --keep forever is not a duration");
    // an empty file, or one of comments only, sets nothing
    assertThat(resolve(Map.of(), "--config", file("# nothing yet\n").toString()).command().o.port)
        .isEqualTo(8080);
  }

  @Test
  void everyOptionOfServeHasAKeyAndAVariableAndTheFileCanSetEachOne() throws Exception {
    CommandLine cl = new CommandLine(new ServeCommand());
    List<OptionSpec> all = ServeConfiguration.configurable(cl.getCommandSpec());
    assertThat(all).hasSizeGreaterThan(50);
    StringBuilder yaml = new StringBuilder();
    for (OptionSpec o : all) {
      String key = ServeConfiguration.key(o);
      assertThat(o.longestName()).isEqualTo("--" + key);
      assertThat(ServeConfiguration.environmentName(o))
          .isEqualTo("SPYGLASS_" + key.toUpperCase().replace('-', '_'));
      if (key.equals("config")) {
        continue;
      }
      yaml.append(key).append(": ").append(sample(o)).append('\n');
    }
    Resolved r = resolve(Map.of(), "--config", file(yaml.toString()).toString());
    for (ServeConfiguration.Origin origin : r.config().origins()) {
      assertThat(origin.layer())
          .as(origin.option().longestName())
          .isIn(ServeConfiguration.Layer.FILE, ServeConfiguration.Layer.FLAG);
    }
  }

  /** A value each option takes, by its type and label. */
  private static String sample(OptionSpec o) {
    Class<?> t = o.type();
    if (t == boolean.class || t == Boolean.class) {
      return "true";
    }
    if (t == int.class || t == Integer.class) {
      return "7";
    }
    if (Map.class.isAssignableFrom(t)) {
      return "{a: b, c.d: e f}";
    }
    if (o.isMultiValue()) {
      return "[a, b]";
    }
    return switch (o.paramLabel()) {
      case "TIME" -> "90s";
      case "BYTES", "SIZE" -> "64MiB";
      case "BYTES/s" -> "64KiB/s";
      default -> "x";
    };
  }

  @Test
  void theEffectiveConfigurationSaysWhereEachValueCameFromWithSecretsMasked() throws Exception {
    Path f =
        file(
            """
            database: jdbc:postgresql://db.internal/spyglass?user=spy&password=hunter2&ssl=true
            max-queries: 500
            """);
    Resolved r =
        resolve(
            Map.of("SPYGLASS_KAFKA", "kafka://ops:s3cret@k1:9092"),
            "--config",
            f.toString(),
            "--port",
            "9300");
    StringWriter out = new StringWriter();
    r.config().print(new PrintWriter(out, true));
    String printed = out.toString();
    assertThat(printed)
        .doesNotContain("hunter2")
        .doesNotContain("s3cret")
        .contains("password=*****&ssl=true")
        .contains("kafka://ops:*****@k1:9092")
        .containsPattern(
            "database: \"?jdbc:postgresql://db.internal/spyglass\\?user=spy&password=\\*\\*\\*\\*\\*&ssl=true\"? +# .*spyglass.yaml line 1")
        .containsPattern("max-queries: 500 +# .*spyglass.yaml line 2")
        .containsPattern("port: 9300 +# --port")
        .containsPattern("kafka: .* +# SPYGLASS_KAFKA")
        .containsPattern("grace: 60s +# default")
        .contains("# max-connections: not set, default: three quarters of the open-file limit");
    // what it prints is a configuration file serve reads back (the masked secrets aside)
    String yaml =
        printed
            .lines()
            .skip(1)
            .map(String::strip)
            .filter(
                l -> !l.startsWith("#") && !l.startsWith("database:") && !l.startsWith("config:"))
            .reduce("", (a, b) -> a + b + "\n");
    Resolved again = resolve(Map.of(), "--config", file(yaml).toString());
    assertThat(again.command().o.port).isEqualTo(9300);
    assertThat(again.command().o.maxQueries).isEqualTo(500);
    assertThat(again.command().o.grace).isEqualTo("60s");
  }

  @Test
  void kafkaPropertiesComeAsAMappingInTheFileOneALineInTheVariableAndRepeatedFlags()
      throws Exception {
    String jaas =
        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"spy\""
            + " password=\"hunter2\";";
    Path f =
        file(
            "kafka-properties:\n"
                + "  security.protocol: SASL_SSL\n"
                + "  sasl.mechanism: PLAIN\n"
                + "  sasl.jaas.config: '"
                + jaas
                + "'\n"
                + "  ssl.truststore.password: s3cret\n");
    Resolved r = resolve(Map.of(), "--config", f.toString());
    assertThat(r.command().o.kafkaProperties)
        .containsExactly(
            Map.entry("security.protocol", "SASL_SSL"),
            Map.entry("sasl.mechanism", "PLAIN"),
            Map.entry("sasl.jaas.config", jaas),
            Map.entry("ssl.truststore.password", "s3cret"));
    assertThat(KafkaProperties.of(r.command().o.kafkaProperties))
        .containsEntry("sasl.jaas.config", jaas);

    // printed: the secrets masked, the rest as given, and read back as it was
    StringWriter out = new StringWriter();
    r.config().print(new PrintWriter(out, true));
    String printed = out.toString();
    assertThat(printed)
        .doesNotContain("hunter2")
        .doesNotContain("s3cret")
        .containsPattern(
            "kafka-properties: \\{security.protocol: SASL_SSL, sasl.mechanism: PLAIN,"
                + " sasl.jaas.config: \"\\*{5}\", ssl.truststore.password: \"\\*{5}\"\\} +# .*"
                + "spyglass.yaml line 1");
    String line =
        printed
            .lines()
            .map(String::strip)
            .filter(l -> l.startsWith("kafka-properties:"))
            .findFirst()
            .orElseThrow();
    Resolved again =
        resolve(Map.of(), "--config", file(line.substring(0, line.indexOf('#'))).toString());
    assertThat(again.command().o.kafkaProperties)
        .containsEntry("security.protocol", "SASL_SSL")
        .containsEntry("sasl.jaas.config", "*****");

    // the variable: one NAME=VALUE a line (a value may hold spaces); flags: repeated
    r =
        resolve(
            Map.of(
                "SPYGLASS_KAFKA_PROPERTIES",
                "security.protocol=SASL_SSL\nsasl.jaas.config=" + jaas + "\n"));
    assertThat(r.command().o.kafkaProperties)
        .containsExactly(
            Map.entry("security.protocol", "SASL_SSL"), Map.entry("sasl.jaas.config", jaas));
    r =
        resolve(
            Map.of("SPYGLASS_KAFKA_PROPERTIES", "client.id=from-the-variable"),
            "--kafka-property",
            "client.id=spyglass-a",
            "--kafka-property",
            "sasl.jaas.config=" + jaas);
    assertThat(r.command().o.kafkaProperties)
        .containsExactly(Map.entry("client.id", "spyglass-a"), Map.entry("sasl.jaas.config", jaas));
    assertThat(r.config().origins())
        .anyMatch(
            o -> o.where().equals("--kafka-properties") || o.where().equals("--kafka-property"));

    // none given: none, printed as an empty mapping
    r = resolve(Map.of());
    assertThat(r.command().o.kafkaProperties).isEmpty();
    out = new StringWriter();
    r.config().print(new PrintWriter(out, true));
    assertThat(out.toString()).containsPattern("kafka-properties: \\{\\} +# default");

    assertThatTheFile("kafka-properties: [nothing]\n")
        .hasMessageContaining("line 1: kafka-properties:");
    assertThatThrownBy(() -> KafkaProperties.of(Map.of("bad name", "x")))
        .hasMessageContaining("'bad name' is not the name of a Kafka client setting");
  }

  @Test
  void masking() {
    assertThat(ServeConfiguration.mask("jdbc:postgresql://h/db?user=u&password=p&x=1"))
        .isEqualTo("jdbc:postgresql://h/db?user=u&password=*****&x=1");
    assertThat(ServeConfiguration.mask("postgresql://u:p@h:5432/db"))
        .isEqualTo("postgresql://u:*****@h:5432/db");
    assertThat(ServeConfiguration.mask("kafka://h:9092/t?from=earliest"))
        .isEqualTo("kafka://h:9092/t?from=earliest");
    assertThat(ServeConfiguration.mask("https://x?token=abc")).isEqualTo("https://x?token=*****");
  }

  @Test
  void aBadConfigurationStopsServeWithItsLineAndExitCode1() throws Exception {
    Path f = file("port: 0\ndata: " + dir.resolve("data") + "\nmax-querie: 5\n");
    StringWriter err = new StringWriter();
    int code =
        new CommandLine(new ServeCommand())
            .setErr(new PrintWriter(err, true))
            .execute("--config", f.toString());
    assertThat(code).isEqualTo(1);
    assertThat(err.toString()).startsWith("spyglass: " + f + " line 3: unknown key 'max-querie'");
    assertThat(dir.resolve("data")).doesNotExist();
  }
}
