package io.spyglass.sinks;

import java.util.Objects;

/**
 * A service's sinks: what it may deliver to, and the bounds of delivery.
 *
 * @param policy the webhook hosts, file folder and Kafka clusters allowed
 * @param delivery buffers, retries and threads
 */
public record SinkSettings(SinkPolicy policy, DeliverySettings delivery) {
  public SinkSettings {
    Objects.requireNonNull(policy, "policy");
    Objects.requireNonNull(delivery, "delivery");
  }

  /**
   * No sink allowed (the operator names them), delivery within {@link DeliverySettings#DEFAULTS}.
   */
  public static final SinkSettings DEFAULTS =
      new SinkSettings(SinkPolicy.NONE, DeliverySettings.DEFAULTS);
}
