package io.spyglass.service.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class FailureThrottleTest {
  final AtomicLong now = new AtomicLong(1_000_000);

  @Test
  void anAddressGetsItsAllowanceAMinuteThenWaits() {
    FailureThrottle t = new FailureThrottle(3, now::get);
    assertThat(t.failed("a")).isZero();
    assertThat(t.failed("a")).isZero();
    assertThat(t.failed("a")).isZero();
    assertThat(t.failed("a")).isEqualTo(20); // one failure comes back every 20 s
    assertThat(t.failed("b")).isZero();
    now.addAndGet(20_000);
    assertThat(t.failed("a")).isZero();
    assertThat(t.blockedForSeconds("a")).isEqualTo(20);
  }

  // review finding 2: past 100,000 addresses only nearly-full buckets were dropped, the map grew
  // without bound, and every failure scanned all of it

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void atMostItsAddressesAreRememberedTheLeastRecentForgottenFirst() {
    FailureThrottle t = new FailureThrottle(30, now::get);
    int addresses = FailureThrottle.MAX_ADDRESSES + 50_000;
    for (int i = 0; i < addresses; i++) {
      String a = "10." + (i >> 16) + "." + ((i >> 8) & 255) + "." + (i & 255);
      for (int k = 0; k < 30; k++) {
        t.failed(a); // its allowance used up: nothing would forget it for being full again
      }
    }
    assertThat(t.size()).isEqualTo(FailureThrottle.MAX_ADDRESSES);
    assertThat(t.blockedForSeconds("10.0.0.0")).as("the oldest is forgotten").isZero();
    int last = addresses - 1;
    String newest = "10." + (last >> 16) + "." + ((last >> 8) & 255) + "." + (last & 255);
    assertThat(t.blockedForSeconds(newest)).as("the newest is still held").isPositive();
  }

  @Test
  void anAddressWhoseAllowanceIsBackIsForgottenWhenOldest() {
    FailureThrottle t = new FailureThrottle(2, 10, now::get);
    t.failed("a");
    now.addAndGet(60_000);
    t.failed("b");
    assertThat(t.size()).isEqualTo(1);
    for (int i = 0; i < 20; i++) {
      t.failed("x" + i);
    }
    assertThat(t.size()).isEqualTo(10);
  }
}
