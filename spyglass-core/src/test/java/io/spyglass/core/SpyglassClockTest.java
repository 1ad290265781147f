package io.spyglass.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.NotSerializableException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/** The one clock: a test's moves only when told; the machine's ships as the machine's. */
class SpyglassClockTest {
  private final AtomicLong wall = new AtomicLong(1_700_000_000_000L);
  private final AtomicLong nanos = new AtomicLong(5_000_000_000L);
  private final SpyglassClock clock = new SpyglassClock(wall::get, nanos::get);

  @Test
  void theWallClockIsForMomentsTheMonotonicForDurations() {
    assertThat(clock.millis()).isEqualTo(1_700_000_000_000L);
    assertThat(clock.getAsLong()).as("a LongSupplier of the wall clock").isEqualTo(clock.millis());
    assertThat(clock.nanos()).isEqualTo(5_000_000_000L);

    long start = clock.nanos();
    long deadline = clock.deadlineIn(250);
    assertThat(deadline).isEqualTo(start + 250_000_000L);
    assertThat(clock.msLeft(deadline)).isEqualTo(250);

    // the wall clock set back an hour moves no duration
    wall.addAndGet(-3_600_000);
    assertThat(clock.msSince(start)).isZero();
    assertThat(clock.msLeft(deadline)).isEqualTo(250);

    nanos.addAndGet(100_000_000);
    assertThat(clock.msSince(start)).isEqualTo(100);
    assertThat(clock.msLeft(deadline)).isEqualTo(150);
    nanos.addAndGet(1_000_000_000);
    assertThat(clock.msLeft(deadline)).as("0 when past").isZero();
    assertThat(clock.msSince(start)).isEqualTo(1_100);
  }

  @Test
  void theMachinesClocksAreRead() {
    SpyglassClock system = SpyglassClock.system();
    long before = System.currentTimeMillis(); // a test may read them itself
    assertThat(system.millis()).isBetween(before, System.currentTimeMillis());
    long n = System.nanoTime();
    assertThat(system.nanos()).isBetween(n, System.nanoTime());
  }

  @Test
  void aWallClockAloneTakesTheMachinesMonotonicClock() {
    SpyglassClock c = SpyglassClock.ofWall(wall::get);
    assertThat(c.millis()).isEqualTo(wall.get());
    long n = System.nanoTime();
    assertThat(c.nanos()).isBetween(n, System.nanoTime());
    assertThat(SpyglassClock.ofWall(clock)).as("a clock is taken as it is").isSameAs(clock);
  }

  @Test
  void theMachinesClockIsReadBackAsTheMachinesClock() throws Exception {
    assertThat(roundTrip(SpyglassClock.system())).isSameAs(SpyglassClock.system());
    // with a serializable wall clock, the machine's monotonic clock goes with it
    SpyglassClock fixedWall = SpyglassClock.ofWall((LongSupplier & Serializable) () -> 42L);
    SpyglassClock back = roundTrip(fixedWall);
    assertThat(back.millis()).isEqualTo(42L);
    long n = System.nanoTime();
    assertThat(back.nanos()).isBetween(n, System.nanoTime());
  }

  @Test
  void aTestsClockShipsWhenItsSuppliersDo() throws Exception {
    SpyglassClock shippable =
        new SpyglassClock(
            (LongSupplier & Serializable) () -> 7L, (LongSupplier & Serializable) () -> 9L);
    SpyglassClock back = roundTrip(shippable);
    assertThat(back.millis()).isEqualTo(7L);
    assertThat(back.nanos()).isEqualTo(9L);
    assertThatThrownBy(() -> roundTrip(clock)).isInstanceOf(NotSerializableException.class);
  }

  @Test
  void bothClocksAreRequired() {
    assertThatThrownBy(() -> new SpyglassClock(null, nanos::get))
        .isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> new SpyglassClock(wall::get, null))
        .isInstanceOf(NullPointerException.class);
  }

  private static SpyglassClock roundTrip(SpyglassClock c)
      throws IOException, ClassNotFoundException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(c);
    }
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      return (SpyglassClock) in.readObject();
    }
  }
}
