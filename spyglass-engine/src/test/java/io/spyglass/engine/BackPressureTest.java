package io.spyglass.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.result.Result;
import io.spyglass.sources.GeneratorSource;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Memory stays flat whatever the source's speed: the generator, unpaced, feeds a query that keeps
 * every record of 10,000-record windows (about 20 MB a window) to a subscriber slower than it. The
 * heap in use after a collection stays far below what a few dozen unread windows would take.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BackPressureTest {
  private static final String RAW_WINDOWS =
      "SELECT * FROM STREAM(MAX, TIME) WINDOWING TUMBLING(10000, RECORD) LIMIT 10000";

  /** Far below what the reader would read ahead unthrottled (it reads 20 MB every 0.1 to 0.3 s). */
  private static final long MAX_HEAP_BYTES = 256L << 20;

  /**
   * Records read but not yet taken by the subscriber: at most its result queue (twice 32,768
   * records before it is cut off), the combiner's open window, its inbox and the batches in flight.
   */
  private static final long MAX_READ_AHEAD = 100_000;

  private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();

  private static long heapAfterGc() {
    MEMORY.gc();
    return MEMORY.getHeapMemoryUsage().getUsed();
  }

  private static GeneratorSource fastGenerator() {
    return new GeneratorSource(GeneratorSource.Options.DEFAULTS.withStartMs(1_700_000_000_000L));
  }

  @Test
  void aSlowSubscriberHoldsUpTheReaderUnderBackPressureAndLosesNothing() throws Exception {
    EngineConfig config = EngineConfig.defaults().withWorkers(2).withResultBackPressure(true);
    long maxHeap = 0;
    try (Engine engine = Engine.start(fastGenerator(), config)) {
      QueryHandle q = engine.submit(RAW_WINDOWS);
      for (int window = 1; window <= 8; window++) {
        Result r = q.poll(30, TimeUnit.SECONDS);
        assertThat(r).as("window %d", window).isNotNull();
        assertThat(r.meta().window().orElseThrow().number()).isEqualTo(window);
        assertThat(r.records()).hasSize(10_000);
        Thread.sleep(200); // 50,000 records a second: slower than the source
        if (window % 4 == 0) {
          maxHeap = Math.max(maxHeap, heapAfterGc());
          assertThat(engine.metrics().recordsRead() - window * 10_000L)
              .as("records read ahead of the subscriber")
              .isLessThan(MAX_READ_AHEAD);
        }
      }
      assertThat(q.isDone()).isFalse();
      assertThat(q.error()).isNull();
    }
    assertThat(maxHeap).isLessThan(MAX_HEAP_BYTES);
  }

  @Test
  void aSubscriberThatDoesNotReadIsCutOffWithoutHoldingMemoryOrOtherQueries() throws Exception {
    EngineConfig config = EngineConfig.defaults().withWorkers(2);
    try (Engine engine = Engine.start(fastGenerator(), config)) {
      QueryHandle idle = engine.submit(RAW_WINDOWS);
      QueryHandle count =
          engine.submit(
              "SELECT COUNT(*) AS n FROM STREAM(MAX, TIME) WINDOWING TUMBLING(200, TIME)");
      assertThat(idle.awaitDone(30, TimeUnit.SECONDS)).isTrue();
      assertThat(idle.error()).contains("fell behind");
      assertThat(heapAfterGc()).isLessThan(MAX_HEAP_BYTES);
      for (int i = 0; i < 3; i++) {
        Result r = count.poll(10, TimeUnit.SECONDS);
        assertThat(r).isNotNull();
        assertThat(r.meta().errors()).isEmpty();
      }
      assertThat(count.isDone()).isFalse();
    }
  }
}
