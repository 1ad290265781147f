package io.spyglass.flink;

import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link FailureITCase} with exactly-once delivery, on a cluster of its own. */
class ExactlyOnceFailureITCase {
  @RegisterExtension
  static final MiniClusterExtension FLINK =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(2)
              .build());

  @Test
  void aTaskManagerKilledInAWindowLosesNoWindowAndRepeatsNone(
      @InjectMiniCluster MiniCluster cluster) throws Exception {
    FailureITCase.run(JobOptions.Delivery.EXACTLY_ONCE, cluster);
  }
}
