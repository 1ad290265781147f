package io.spyglass.flink;

/**
 * A message the job sends: a reply to the instance that submitted a query, or a control message
 * back to the query topic. A Flink POJO.
 */
public class Outgoing {
  /** The Kafka topic. */
  public String topic;

  /** The Kafka key: the query id. */
  public String key;

  /** For replies, the instance of the query (a Kafka header); may be null. */
  public String instance;

  /**
   * A {@link io.spyglass.flink.client.Reply} or a {@link io.spyglass.flink.client.ControlMessage}.
   */
  public byte[] value;

  public Outgoing() {}

  static Outgoing of(String topic, String key, String instance, byte[] value) {
    Outgoing o = new Outgoing();
    o.topic = topic;
    o.key = key;
    o.instance = instance;
    o.value = value;
    return o;
  }
}
