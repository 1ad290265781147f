package io.spyglass.flink;

import io.spyglass.flink.client.FlinkQueryClient;
import java.nio.charset.StandardCharsets;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;

/** How the job reads and writes Kafka records. */
final class KafkaFormats {
  private KafkaFormats() {}

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
