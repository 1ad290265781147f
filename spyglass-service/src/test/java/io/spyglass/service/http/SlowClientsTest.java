package io.spyglass.service.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.testkit.ManualClock;
import org.junit.jupiter.api.Test;

/**
 * The slow-client policy both result transports apply, on a manual clock: a client whose connection
 * is full is dropped when more than {@code bufferResults} results arrive meanwhile, or when it
 * stays full past {@code slowClientMs}; a connection that takes what it holds starts over.
 */
class SlowClientsTest {
  private final ManualClock clock = new ManualClock(1_000_000);
  private final SlowClients policy = new SlowClients(new StreamSettings(8, 4_000, 200), clock);

  @Test
  void aClientHasRoomForBufferResultsMessagesInFlight() {
    assertThat(policy.hasRoom(0)).isTrue();
    assertThat(policy.hasRoom(7)).isTrue();
    assertThat(policy.hasRoom(8)).isFalse();
    assertThat(policy.hasRoom(9)).isFalse();
  }

  @Test
  void aFullClientIsDroppedWhenMoreThanBufferResultsArriveMeanwhile() {
    SlowClients.Watch w = policy.watch();
    assertThat(w.full(100)).as("the first look starts the watch").isFalse();
    assertThat(w.full(104)).isFalse();
    assertThat(w.full(108)).as("8 arrived: as many as may").isFalse();
    assertThat(w.full(109)).as("9 arrived while full").isTrue();
  }

  @Test
  void aFullClientIsDroppedWhenItStaysFullPastSlowClientMs() {
    SlowClients.Watch w = policy.watch();
    assertThat(w.full(0)).isFalse();
    clock.advance(4_000);
    assertThat(w.full(0)).as("full for exactly slowClientMs").isFalse();
    clock.advance(1);
    assertThat(w.full(0)).isTrue();
  }

  @Test
  void aConnectionThatTakesWhatItHoldsStartsOver() {
    SlowClients.Watch w = policy.watch();
    assertThat(w.full(0)).isFalse();
    clock.advance(3_000);
    assertThat(w.full(8)).isFalse();
    w.free();
    clock.advance(3_000);
    // full again: the time and the count start from now, not from the first time it was full
    assertThat(w.full(8)).isFalse();
    clock.advance(3_000);
    assertThat(w.full(16)).isFalse();
    clock.advance(1_001);
    assertThat(w.full(16)).isTrue();
  }

  @Test
  void eachClientIsWatchedOnItsOwn() {
    SlowClients.Watch slow = policy.watch();
    SlowClients.Watch fast = policy.watch();
    assertThat(slow.full(0)).isFalse();
    clock.advance(4_001);
    assertThat(fast.full(0)).as("just became full").isFalse();
    assertThat(slow.full(0)).isTrue();
  }

  @Test
  void theTimeIsTheServicesClock() {
    assertThat(policy.now()).isEqualTo(1_000_000);
    clock.advance(5);
    assertThat(policy.now()).isEqualTo(1_000_005);
    assertThat(policy.settings().bufferResults()).isEqualTo(8);
  }
}
