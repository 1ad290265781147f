package io.spyglass.bench;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/** Input bytes, reported by JMH as a rate, and the CPU time that read them. */
@State(Scope.Thread)
@AuxCounters(AuxCounters.Type.OPERATIONS)
public class ByteCounters {
  public long bytes;

  /** CPU time of the invocations (ns), as a rate: bytes / cpuNs gives bytes per CPU-second. */
  public long cpuNs;

  @Setup(Level.Iteration)
  public void clear() {
    bytes = 0;
    cpuNs = 0;
  }
}
