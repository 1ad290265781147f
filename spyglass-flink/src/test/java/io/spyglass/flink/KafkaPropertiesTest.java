package io.spyglass.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;

/**
 * Kafka client settings for the job's clients (TLS, SASL): {@code --spyglass.kafka-properties.KEY
 * VALUE} on the command line or {@code spyglass.kafka-properties.KEY} in Flink's configuration,
 * handed to the source's consumers by their Kafka names.
 */
class KafkaPropertiesTest {
  @Test
  void theJobsArgumentsAndFlinksConfigurationGiveKafkaClientSettings() {
    String jaas =
        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\""
            + " password=\"p\";";
    Configuration conf =
        SpyglassJob.parseArgs(
            "--spyglass.kafka",
            "k1:9093",
            "--spyglass.kafka-properties.security.protocol",
            "SASL_SSL",
            "--kafka-properties.sasl.jaas.config",
            jaas);
    conf.setString("spyglass.kafka-properties.sasl.mechanism", "PLAIN"); // as config.yaml says
    assertThat(JobOptions.kafkaProperties(conf))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "security.protocol", "SASL_SSL",
                "sasl.jaas.config", jaas,
                "sasl.mechanism", "PLAIN"));
    assertThat(JobOptions.inputSettings(conf, "k1:9093").consumer())
        .containsEntry("security.protocol", "SASL_SSL")
        .containsEntry("sasl.jaas.config", jaas);
    assertThat(JobOptions.kafkaProperties(new Configuration())).isEmpty();
    assertThatThrownBy(() -> SpyglassJob.parseArgs("--spyglass.kafka-property.x", "y"))
        .hasMessageContaining("Unknown option --spyglass.kafka-property.x");
  }
}
