package io.spyglass.cli;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Kafka client settings given to a command ({@code --kafka-property KEY=VALUE}, repeatable): handed
 * to the Kafka clients the command makes (the consumer of a {@code kafka://} source, the clients of
 * the Flink job's topics), applied after Spyglass's own, so that an operator's TLS or SASL settings
 * reach them. Kafka checks each when a client is made, and its error names the setting.
 */
final class KafkaProperties {
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");

  /** Names of settings that hold secrets: their values are never printed. */
  private static final Pattern SECRET =
      Pattern.compile("(?i).*(password|secret|jaas|token|credential|\\.key$|\\.keystore\\.key).*");

  private KafkaProperties() {}

  /**
   * The settings as Kafka's clients take them.
   *
   * @throws IllegalArgumentException when a name is not one a Kafka setting could have
   */
  static Map<String, Object> of(Map<String, String> given) {
    Map<String, Object> out = new LinkedHashMap<>();
    if (given == null) {
      return out;
    }
    for (Map.Entry<String, String> e : given.entrySet()) {
      String key = e.getKey().strip();
      if (!NAME.matcher(key).matches()) {
        throw new IllegalArgumentException(
            "--kafka-property '"
                + key
                + "="
                + (secret(key) ? "*****" : e.getValue())
                + "': '"
                + key
                + "' is not the name of a Kafka client setting; write KEY=VALUE, e.g."
                + " security.protocol=SASL_SSL");
      }
      out.put(key, e.getValue());
    }
    return out;
  }

  /** Whether a setting's value is a secret ({@code *password*}, {@code sasl.jaas.config}, ...). */
  static boolean secret(String key) {
    return SECRET.matcher(key.toLowerCase(Locale.ROOT)).matches();
  }
}
