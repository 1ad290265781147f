package io.spyglass.flink;

import io.spyglass.flink.client.FlinkQueryClient;
import io.spyglass.flink.client.Mark;
import io.spyglass.flink.client.MessageFormatException;
import java.nio.charset.StandardCharsets;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** How the job reads and writes Kafka records. */
final class KafkaFormats {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaFormats.class);

  private KafkaFormats() {}

  /** A records topic: each value one JSON record, or a {@link Mark} (by its header). */
  static final class Records implements KafkaRecordDeserializationSchema<RecordBatch> {
    private static final long serialVersionUID = 1L;

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> r, Collector<RecordBatch> out) {
      if (r.headers().lastHeader(Mark.HEADER) != null) {
        try {
          out.collect(RecordBatch.mark(Mark.parse(r.value())));
        } catch (MessageFormatException e) {
          LOG.warn(
              "skipping a bad mark at {}-{}@{}: {}",
              r.topic(),
              r.partition(),
              r.offset(),
              e.getMessage());
        }
      } else if (r.value() != null) {
        out.collect(
            RecordBatch.one(
                r.value(), r.partition(), r.offset(), r.timestamp(), System.currentTimeMillis()));
      }
    }

    @Override
    public TypeInformation<RecordBatch> getProducedType() {
      return TypeInformation.of(RecordBatch.class);
    }
  }

  /** The query topic: each value one query message, checked by the filter. */
  static final class Queries implements KafkaRecordDeserializationSchema<byte[]> {
    private static final long serialVersionUID = 1L;

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> r, Collector<byte[]> out) {
      if (r.value() != null) {
        out.collect(r.value());
      }
    }

    @Override
    public TypeInformation<byte[]> getProducedType() {
      return PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO;
    }
  }

  /** Replies and control messages, to the topic each names, keyed by query id. */
  static final class Replies implements KafkaRecordSerializationSchema<Outgoing> {
    private static final long serialVersionUID = 1L;

    @Override
    public ProducerRecord<byte[], byte[]> serialize(
        Outgoing o, KafkaSinkContext context, Long timestamp) {
      ProducerRecord<byte[], byte[]> r =
          new ProducerRecord<>(o.topic, o.key.getBytes(StandardCharsets.UTF_8), o.value);
      if (o.instance != null) {
        r.headers()
            .add(FlinkQueryClient.INSTANCE_HEADER, o.instance.getBytes(StandardCharsets.UTF_8));
      }
      return r;
    }
  }

  /** Clock marks move the watermark of their partition. */
  static final class MarkWatermarks implements WatermarkGenerator<RecordBatch> {
    @Override
    public void onEvent(RecordBatch event, long timestamp, WatermarkOutput output) {
      if (event.markTimeMs >= 0) {
        output.emitWatermark(new Watermark(event.markTimeMs));
      }
    }

    @Override
    public void onPeriodicEmit(WatermarkOutput output) {}
  }
}
