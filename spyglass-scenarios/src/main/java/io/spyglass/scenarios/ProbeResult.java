package io.spyglass.scenarios;

import io.spyglass.core.result.Result;
import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * What one {@link Probe} measured.
 *
 * @param probe what was run
 * @param recordsPerSec records the engine read per second while measured (needles included)
 * @param mbPerSec megabytes (10^6 bytes) read per second
 * @param cpu CPU used while measured, in cores
 * @param latencyMs read-to-result latency in ms, sampled by a probe query that streams each of its
 *     matches as its own result: from the moment the engine read the probe record ({@code
 *     _read_ms}) to the moment the result was emitted
 * @param needleLatencyMs per complete needle query: from reading its last needle to emitting its
 *     result
 * @param maxQueuedBatches most batches seen waiting for workers (the engine's lag)
 * @param needlesExpected needles sent to needle queries
 * @param needlesFound needles found in their query's result
 * @param avgResultSize records per needle query result
 * @param otherResults final results of the other queries, in their order
 */
record ProbeResult(
    Probe probe,
    double recordsPerSec,
    double mbPerSec,
    Cpu.Usage cpu,
    Histogram latencyMs,
    Histogram needleLatencyMs,
    int maxQueuedBatches,
    long needlesExpected,
    long needlesFound,
    double avgResultSize,
    List<Result> otherResults) {

  /** Whether every needle was found. */
  boolean allFound() {
    return needlesFound == needlesExpected;
  }

  /** The achieved rate is within 5% of the paced rate (always true when unpaced). */
  boolean keptUp() {
    return probe.rate() == 0 || recordsPerSec >= 0.95 * probe.rate();
  }

  double meanLatencyMs() {
    return latencyMs.getTotalCount() == 0 ? Double.NaN : latencyMs.getMean();
  }

  double p99LatencyMs() {
    return latencyMs.getTotalCount() == 0 ? Double.NaN : latencyMs.getValueAtPercentile(99);
  }

  /**
   * Bullet's condition: the engine keeps up with the paced source, finds every needle, and the
   * average read-to-result latency is under the bound.
   */
  boolean sustained(long latencyBoundMs) {
    return keptUp() && allFound() && meanLatencyMs() < latencyBoundMs;
  }

  String verdict(long latencyBoundMs) {
    if (sustained(latencyBoundMs)) {
      return "OK";
    }
    StringBuilder sb = new StringBuilder("FAIL");
    if (!keptUp()) {
      sb.append(" (fell behind)");
    }
    if (!allFound()) {
      sb.append(" (lost needles)");
    }
    if (!(meanLatencyMs() < latencyBoundMs)) {
      sb.append(" (latency)");
    }
    return sb.toString();
  }
}
