package io.spyglass.flink;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.UnaryOperator;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.operators.SimpleOperatorFactory;
import org.apache.flink.streaming.api.transformations.OneInputTransformation;
import org.apache.flink.streaming.api.transformations.SideOutputTransformation;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * The Spyglass job: records from a Kafka topic, queries from the query topic, replies to each
 * query's result topic.
 *
 * <pre>
 * records + queries (Kafka) ──► filter (chained: one task, one thread)
 *     each reader: its records partitions and the whole query topic
 *                                      │ partials, keyed by query id
 *                                      ▼
 *                                   combiner ──► replies (Kafka, each query's result topic)
 *                                      └──────► "ended" back to the query topic
 * </pre>
 *
 * Run it with {@code flink run spyglass-flink.jar --spyglass.kafka HOST:PORT [--OPTION VALUE...]}
 * (see {@link JobOptions} and {@code docs/flink.md}).
 */
public final class SpyglassJob {
  /**
   * Checkpoints that may fail in a row before the job restarts, when the job turns checkpoints on
   * itself and Flink's configuration tolerates none.
   */
  static final int TOLERABLE_CHECKPOINT_FAILURES = 3;

  /** Operator ids: keep them, so a savepoint restores into a new version of the job. */
  static final String RECORDS_UID = "spyglass-records";

  /**
   * Where records travel apart from the queries: the operator that sets the query messages apart at
   * the source.
   */
  static final String QUERIES_APART_UID = "spyglass-queries-apart";

  static final String FILTER_UID = "spyglass-filter";
  static final String COMBINER_UID = "spyglass-combiner";
  static final String SINK_UID = "spyglass-replies";

  private SpyglassJob() {}

  public static void main(String[] args) throws Exception {
    Configuration conf = parseArgs(args);
    conf.set(PipelineOptions.GENERIC_TYPES, false);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    build(env, conf);
    env.execute("spyglass");
  }

  /**
   * Reads {@code --KEY VALUE} pairs into a configuration; a key may leave out the {@code spyglass.}
   * prefix.
   *
   * @throws IllegalArgumentException for an unknown option or a value without a key
   */
  public static Configuration parseArgs(String... args) {
    Map<String, String> known = new HashMap<>();
    for (ConfigOption<?> o : JobOptions.ALL) {
      known.put(o.key(), o.key());
      known.put(o.key().substring("spyglass.".length()), o.key());
    }
    Map<String, String> values = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (!a.startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException(
            "Arguments are --OPTION VALUE pairs; '" + a + "' has no value");
      }
      String key = known.get(a.substring(2));
      String name = a.substring(2);
      if (key == null && name.startsWith(JobOptions.KAFKA_PROPERTIES_PREFIX)) {
        key = name; // a Kafka client setting: --spyglass.kafka-properties.security.protocol
      } else if (key == null
          && ("spyglass." + name).startsWith(JobOptions.KAFKA_PROPERTIES_PREFIX)) {
        key = "spyglass." + name;
      }
      if (key == null) {
        throw new IllegalArgumentException(
            "Unknown option " + a + "; known: " + String.join(", ", knownKeys()));
      }
      values.put(key, args[++i]);
    }
    return Configuration.fromMap(values);
  }

  private static List<String> knownKeys() {
    return JobOptions.ALL.stream().map(ConfigOption::key).toList();
  }

  /** Adds the Kafka job to {@code env}. */
  public static void build(StreamExecutionEnvironment env, Configuration conf) {
    build(env, conf, UnaryOperator.identity());
  }

  /**
   * Turns checkpoints on every {@link JobOptions#CHECKPOINT_MS} when Flink's configuration sets no
   * interval; then a checkpoint that fails (an asynchronous snapshot slow on a busy machine) is
   * taken again at the next interval, up to {@value #TOLERABLE_CHECKPOINT_FAILURES} in a row,
   * instead of restarting the job, unless Flink's configuration says how many may fail.
   */
  static void checkpoints(StreamExecutionEnvironment env, Configuration conf) {
    long checkpointMs = conf.get(JobOptions.CHECKPOINT_MS);
    if (checkpointMs > 0 && env.getCheckpointConfig().getCheckpointInterval() <= 0) {
      env.enableCheckpointing(checkpointMs);
      if (env.getCheckpointConfig().getTolerableCheckpointFailureNumber() == 0) {
        env.getCheckpointConfig()
            .setTolerableCheckpointFailureNumber(TOLERABLE_CHECKPOINT_FAILURES);
      }
    }
  }

  /**
   * Adds the Kafka job to {@code env}, with {@code beforeFilter} applied to the stream of records
   * between the source and the filter. The job as deployed has nothing there ({@code beforeFilter}
   * returns its argument): then the filter is chained to the source and takes the records and the
   * query messages in one stream, in the source's thread. Otherwise (a benchmark adds stages to
   * measure what each network hop costs) the query messages are set apart at the source and
   * broadcast to the filters.
   */
  public static void build(
      StreamExecutionEnvironment env,
      Configuration conf,
      UnaryOperator<DataStream<RecordBatch>> beforeFilter) {
    String kafka =
        conf.getOptional(JobOptions.KAFKA)
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "Give the Kafka bootstrap servers: --spyglass.kafka HOST:PORT"));
    checkpoints(env, conf);
    env.getConfig().enableObjectReuse();
    env.setBufferTimeout(conf.get(JobOptions.BUFFER_TIMEOUT_MS));
    String queryTopic = conf.get(JobOptions.QUERIES_TOPIC);
    KafkaInput input = new KafkaInput(JobOptions.inputSettings(conf, kafka));
    WatermarkStrategy<RecordBatch> time =
        conf.get(JobOptions.CLOCK) == JobOptions.Clock.MARKS
            ? WatermarkStrategy.<RecordBatch>forGenerator(c -> new KafkaFormats.MarkWatermarks())
                .withTimestampAssigner((b, ts) -> b.markTimeMs >= 0 ? b.markTimeMs : ts)
            : WatermarkStrategy.noWatermarks();
    DataStream<RecordBatch> source =
        env.fromSource(input, time, "spyglass-records").uid(RECORDS_UID);
    OperatorSettings settings = JobOptions.operatorSettings(conf, queryTopic);
    Map<String, String> kafkaProperties = JobOptions.kafkaProperties(conf);
    createIfMissing(kafka, settings.statusTopic(), kafkaProperties);
    DataStream<Outgoing> replies =
        kafkaPipeline(source, beforeFilter, settings, conf.get(JobOptions.RECORDS_REBALANCE));
    Properties producer = new Properties();
    producer.setProperty("linger.ms", "0");
    producer.setProperty("transaction.timeout.ms", "900000");
    producer.putAll(kafkaProperties);
    replies
        .sinkTo(
            KafkaSink.<Outgoing>builder()
                .setBootstrapServers(kafka)
                .setRecordSerializer(new KafkaFormats.Replies())
                .setDeliveryGuarantee(
                    conf.get(JobOptions.DELIVERY) == JobOptions.Delivery.EXACTLY_ONCE
                        ? DeliveryGuarantee.EXACTLY_ONCE
                        : DeliveryGuarantee.AT_LEAST_ONCE)
                .setTransactionalIdPrefix(conf.get(JobOptions.GROUP) + "-replies")
                .setKafkaProducerConfig(producer)
                .build())
        .uid(SINK_UID)
        .name("spyglass-replies");
  }

  /**
   * The filter and the combiner over the source's stream of records and query messages: the filter
   * chained to the source, unless {@code beforeFilter} puts stages between them or {@code
   * rebalance} spreads the records; then the query messages are set apart where they are read (by
   * the first subtask, which reads the whole query topic) and broadcast.
   */
  static DataStream<Outgoing> kafkaPipeline(
      DataStream<RecordBatch> input,
      UnaryOperator<DataStream<RecordBatch>> beforeFilter,
      OperatorSettings settings,
      boolean rebalance) {
    StreamExecutionEnvironment env = input.getExecutionEnvironment();
    // the records alone, as a stream that is part of the job only if a stage reads it
    OneInputTransformation<RecordBatch, RecordBatch> apart =
        new OneInputTransformation<>(
            input.getTransformation(),
            "spyglass-queries-apart",
            SimpleOperatorFactory.of(new QueriesApart()),
            input.getType(),
            env.getParallelism(),
            false);
    apart.setUid(QUERIES_APART_UID);
    DataStream<RecordBatch> records = new DataStream<>(env, apart);
    DataStream<RecordBatch> staged = beforeFilter.apply(records);
    if (staged == records && !rebalance) {
      return pipeline(input, null, settings, List.of(), false);
    }
    DataStream<byte[]> queries =
        new DataStream<>(env, new SideOutputTransformation<>(apart, QueriesApart.QUERIES));
    return pipeline(staged, queries, settings, List.of(), rebalance);
  }

  /**
   * Creates a topic the job writes to and owns (one partition) when it is not there: the sink
   * cannot send to a missing topic on a broker that does not create topics itself.
   */
  private static void createIfMissing(
      String kafka, String topic, Map<String, String> kafkaProperties) {
    Map<String, Object> config = new HashMap<>(kafkaProperties);
    config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka);
    try (Admin admin = Admin.create(config)) {
      admin
          .createTopics(List.of(new NewTopic(topic, 1, (short) -1)))
          .all()
          .get(60, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw new IllegalStateException("cannot create topic " + topic + ": " + e.getCause(), e);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating topic " + topic, e);
    } catch (TimeoutException e) {
      throw new IllegalStateException("Kafka at " + kafka + " did not answer in 60 s", e);
    }
  }

  /**
   * The filter and the combiner over a stream of records and, when there is one, of query messages.
   *
   * @param initialQueries query messages to run from the start (a local run without a query topic)
   */
  static DataStream<Outgoing> pipeline(
      DataStream<RecordBatch> records,
      DataStream<byte[]> queries,
      OperatorSettings settings,
      List<byte[]> initialQueries,
      boolean rebalance) {
    DataStream<RecordBatch> in = rebalance ? records.rebalance() : records;
    FilterOperator filter = new FilterOperator(settings, initialQueries);
    TypeInformation<FilterMessage> type = TypeInformation.of(FilterMessage.class);
    SingleOutputStreamOperator<FilterMessage> filtered =
        queries == null
            ? in.transform("spyglass-filter", type, filter)
            : in.connect(queries.broadcast()).transform("spyglass-filter", type, filter);
    filtered.uid(FILTER_UID);
    DataStream<Outgoing> replies =
        filtered
            .keyBy(new ByQuery())
            .connect(filtered.getSideOutput(FilterOperator.BAD).broadcast())
            .transform(
                "spyglass-combiner",
                TypeInformation.of(Outgoing.class),
                new CombinerOperator(settings))
            .uid(COMBINER_UID);
    return replies;
  }

  /** Keys filter messages by query id. */
  static final class ByQuery implements KeySelector<FilterMessage, String> {
    private static final long serialVersionUID = 1L;

    @Override
    public String getKey(FilterMessage m) {
      return m.queryId;
    }
  }
}
