package io.spyglass.flink;

import static org.apache.flink.configuration.ConfigOptions.key;

import io.spyglass.core.SpyglassClock;
import io.spyglass.flink.client.FlinkQueryClient;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.description.BlockElement;
import org.apache.flink.configuration.description.TextElement;

/**
 * Every setting of the Spyglass job, with its type, default and description in one place: read from
 * the Flink configuration or the job's arguments ({@code --spyglass.records.topic events}), checked
 * once when the job is built. {@code docs/flink.md} lists them (a test keeps the two alike).
 */
public final class JobOptions {
  private JobOptions() {}

  /** Where the job's time comes from. */
  public enum Clock {
    /** The wall clock of each filter subtask, ticking every {@code spyglass.tick-ms}. */
    WALL,
    /** Clock marks in the records topic: a replay gives the same windows at any speed. */
    MARKS
  }

  /** Where the records source starts when the job starts without a checkpoint. */
  public enum Start {
    /** The job's committed offsets, else the end of the topic. */
    COMMITTED,
    LATEST,
    EARLIEST
  }

  /** How replies reach the result topics. */
  public enum Delivery {
    /** At once; after a failure a window may be sent again (readers drop it by number). */
    AT_LEAST_ONCE,
    /** In Kafka transactions committed with each checkpoint: exactly once, seen at checkpoints. */
    EXACTLY_ONCE
  }

  public static final ConfigOption<String> KAFKA =
      key("spyglass.kafka")
          .stringType()
          .noDefaultValue()
          .withDescription("Kafka bootstrap servers, HOST:PORT[,HOST:PORT...] (required)");

  public static final ConfigOption<String> RECORDS_TOPIC =
      key("spyglass.records.topic")
          .stringType()
          .defaultValue("spyglass-records")
          .withDescription("The topic of records (JSON objects, one a Kafka record)");

  public static final ConfigOption<Start> RECORDS_START =
      key("spyglass.records.start")
          .enumType(Start.class)
          .defaultValue(Start.COMMITTED)
          .withDescription(
              "Where to start reading records without a checkpoint: COMMITTED (the job's"
                  + " committed offsets, else the end), LATEST or EARLIEST");

  public static final ConfigOption<Boolean> RECORDS_REBALANCE =
      key("spyglass.records.rebalance")
          .booleanType()
          .defaultValue(false)
          .withDescription(
              "Spread records over every filter subtask; leave false when the topic has at"
                  + " least as many partitions as the job's parallelism (each filter subtask is"
                  + " then chained to its source subtask, in its thread)");

  public static final ConfigOption<Boolean> RECORDS_READ_COMMITTED =
      key("spyglass.records.read-committed")
          .booleanType()
          .defaultValue(false)
          .withDescription(
              "Read only the records of committed Kafka transactions, for a records topic written"
                  + " by transactional producers (records of an open transaction wait until it"
                  + " commits; those of an aborted one are skipped)");

  public static final ConfigOption<Boolean> VIRTUAL_FIELDS =
      key("spyglass.records.virtual-fields")
          .booleanType()
          .defaultValue(true)
          .withDescription(
              "Add _read_ms, _kafka_partition, _kafka_offset and _kafka_timestamp to each record,"
                  + " as the embedded engine does");

  public static final ConfigOption<String> QUERIES_TOPIC =
      key("spyglass.queries.topic")
          .stringType()
          .defaultValue(FlinkQueryClient.DEFAULT_QUERY_TOPIC)
          .withDescription("The topic of query messages (JSON); any number of partitions");

  public static final ConfigOption<Start> QUERIES_START =
      key("spyglass.queries.start")
          .enumType(Start.class)
          .defaultValue(Start.COMMITTED)
          .withDescription(
              "Where to start reading query messages without a checkpoint: COMMITTED (the job's"
                  + " committed offsets, else the messages from a minute before the job started:"
                  + " a query sent while the job starts runs), LATEST or EARLIEST (queries still"
                  + " within their duration start again; the others are refused)");

  public static final ConfigOption<String> STATUS_TOPIC =
      key("spyglass.status.topic")
          .stringType()
          .defaultValue("spyglass-status")
          .withDescription(
              "Where each filter subtask tells about once a second what it read: records, bad"
                  + " records by reason, queries (JSON; one partition is enough)");

  public static final ConfigOption<String> GROUP =
      key("spyglass.group")
          .stringType()
          .defaultValue("spyglass")
          .withDescription("Kafka consumer group prefix of the job (-records, -queries)");

  public static final ConfigOption<Clock> CLOCK =
      key("spyglass.clock")
          .enumType(Clock.class)
          .defaultValue(Clock.WALL)
          .withDescription(
              "WALL: windows close by the wall clock; MARKS: by clock marks in the records topic");

  public static final ConfigOption<Long> TICK_MS =
      key("spyglass.tick-ms")
          .longType()
          .defaultValue(100L)
          .withDescription("With the wall clock: how often filters flush and windows may close");

  public static final ConfigOption<Integer> BATCH_RECORDS =
      key("spyglass.batch.records")
          .intType()
          .defaultValue(64)
          .withDescription("Records a filter subtask reads before it hands raw matches on");

  public static final ConfigOption<Long> BATCH_MS =
      key("spyglass.batch.ms")
          .longType()
          .defaultValue(10L)
          .withDescription("Longest a raw match waits in a filter subtask before it is handed on");

  public static final ConfigOption<Integer> MAX_QUERIES =
      key("spyglass.max-queries")
          .intType()
          .defaultValue(20_000)
          .withDescription("Most queries running at once; more are refused");

  public static final ConfigOption<Long> PROGRESS_MS =
      key("spyglass.progress-ms")
          .longType()
          .defaultValue(1_000L)
          .withDescription("How often queries that ask for progress get a progress reply");

  public static final ConfigOption<Delivery> DELIVERY =
      key("spyglass.results.delivery")
          .enumType(Delivery.class)
          .defaultValue(Delivery.AT_LEAST_ONCE)
          .withDescription(
              "AT_LEAST_ONCE: replies at once, a window may repeat after a failure (readers drop"
                  + " it by number); EXACTLY_ONCE: Kafka transactions, replies visible at each"
                  + " checkpoint");

  public static final ConfigOption<Long> BUFFER_TIMEOUT_MS =
      key("spyglass.buffer-timeout-ms")
          .longType()
          .defaultValue(10L)
          .withDescription(
              "Longest a partial waits in a network buffer on its way from a filter to its"
                  + " combiner (Flink's default is 100 ms, which every result would wait)");

  public static final ConfigOption<Long> CHECKPOINT_MS =
      key("spyglass.checkpoint-ms")
          .longType()
          .defaultValue(10_000L)
          .withDescription(
              "Checkpoint interval when the Flink configuration sets none; 0 leaves checkpoints"
                  + " off");

  /** Every option, in the order the documentation lists them. */
  public static final List<ConfigOption<?>> ALL =
      List.of(
          KAFKA,
          RECORDS_TOPIC,
          RECORDS_START,
          RECORDS_REBALANCE,
          RECORDS_READ_COMMITTED,
          VIRTUAL_FIELDS,
          QUERIES_TOPIC,
          QUERIES_START,
          STATUS_TOPIC,
          GROUP,
          CLOCK,
          TICK_MS,
          BATCH_RECORDS,
          BATCH_MS,
          MAX_QUERIES,
          PROGRESS_MS,
          DELIVERY,
          BUFFER_TIMEOUT_MS,
          CHECKPOINT_MS);

  /**
   * The options as a Markdown table, for {@code docs/flink.md} (a test keeps the two alike; print
   * it with {@code java -cp spyglass-flink-job.jar io.spyglass.flink.JobOptions}).
   */
  public static String markdownTable() {
    StringBuilder sb = new StringBuilder();
    sb.append("| option | default | what it does |\n");
    sb.append("|---|---|---|\n");
    for (ConfigOption<?> o : ALL) {
      StringBuilder text = new StringBuilder();
      for (BlockElement b : o.description().getBlocks()) {
        if (b instanceof TextElement t) {
          text.append(t.getFormat());
        }
      }
      sb.append("| `")
          .append(o.key())
          .append("` | ")
          .append(o.hasDefaultValue() ? "`" + o.defaultValue() + "`" : "(required)")
          .append(" | ")
          .append(text.toString().replace("|", "\\|"))
          .append(" |\n");
    }
    return sb.toString();
  }

  public static void main(String[] args) {
    System.out.print(markdownTable());
  }

  /**
   * The prefix of Kafka client settings for every Kafka client of the job (its source's consumers,
   * its sink's producers, the admin client that creates the status topic), applied after the job's
   * own: {@code --spyglass.kafka-properties.security.protocol SASL_SSL}, or in the Flink
   * configuration {@code spyglass.kafka-properties.security.protocol: SASL_SSL}.
   */
  public static final String KAFKA_PROPERTIES_PREFIX = "spyglass.kafka-properties.";

  /**
   * The Kafka client settings of {@code c} ({@link #KAFKA_PROPERTIES_PREFIX}), by Kafka's names.
   */
  static Map<String, String> kafkaProperties(Configuration c) {
    Map<String, String> out = new java.util.TreeMap<>();
    c.toMap()
        .forEach(
            (k, v) -> {
              if (k.startsWith(KAFKA_PROPERTIES_PREFIX)
                  && k.length() > KAFKA_PROPERTIES_PREFIX.length()) {
                out.put(k.substring(KAFKA_PROPERTIES_PREFIX.length()), v);
              }
            });
    return out;
  }

  /** How often the records topic is looked at for partitions added to it. */
  static final long DISCOVERY_MS = 10_000;

  /**
   * With {@link Start#COMMITTED} and no committed offsets, how far before the job's start the query
   * topic is read: a query sent while a new job starts is run, not lost (the clocks of the senders
   * may differ).
   */
  static final long QUERIES_MARGIN_MS = 60_000;

  /** The source's part of a configuration. */
  static KafkaInput.Settings inputSettings(Configuration c, String kafka) {
    return inputSettings(c, kafka, SpyglassClock.system());
  }

  /** The source's part of a configuration, the query topic read from {@code clock}'s now on. */
  static KafkaInput.Settings inputSettings(Configuration c, String kafka, SpyglassClock clock) {
    return new KafkaInput.Settings(
        kafka,
        c.get(RECORDS_TOPIC),
        c.get(QUERIES_TOPIC),
        c.get(GROUP),
        c.get(RECORDS_START),
        c.get(QUERIES_START),
        clock.getAsLong() - QUERIES_MARGIN_MS,
        c.get(RECORDS_READ_COMMITTED),
        c.get(CLOCK) == Clock.MARKS,
        DISCOVERY_MS,
        kafkaProperties(c));
  }

  /** The operators' part of a configuration. */
  static OperatorSettings operatorSettings(Configuration c, String feedbackTopic) {
    return new OperatorSettings(
        c.get(CLOCK),
        c.get(TICK_MS),
        c.get(BATCH_RECORDS),
        c.get(BATCH_MS),
        c.get(MAX_QUERIES),
        c.get(PROGRESS_MS),
        feedbackTopic,
        c.get(STATUS_TOPIC),
        c.get(VIRTUAL_FIELDS));
  }
}
