package io.spyglass.flink;

import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.junit.jupiter.api.Test;

/** {@link FailureITCase} with exactly-once delivery, on a cluster of its own. */
@OnMiniCluster
class ExactlyOnceFailureITCase {
  @Test
  void aTaskManagerKilledInAWindowLosesNoWindowAndRepeatsNone(
      @InjectMiniCluster MiniCluster cluster) throws Exception {
    FailureITCase.run(JobOptions.Delivery.EXACTLY_ONCE, cluster);
  }
}
