package io.spyglass.service.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.service.auth.User;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class TicketsTest {
  final AtomicLong now = new AtomicLong(1_000_000);
  final User alice = new User("alice", false);

  // review finding 17: the count of a user's tickets was checked, then the ticket added, so calls
  // at once could all pass the check

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void callsAtOnceNeverHandOutMoreThanAUsersTickets() throws Exception {
    int threads = 16;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      for (int round = 0; round < 200; round++) {
        Tickets t = new Tickets(now::get);
        for (int i = 0; i < Tickets.MAX_PER_USER - 4; i++) {
          t.issue(alice);
        }
        CyclicBarrier start = new CyclicBarrier(threads);
        List<Future<Boolean>> calls = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
          calls.add(
              pool.submit(
                  () -> {
                    start.await();
                    try {
                      t.issue(alice);
                      return true;
                    } catch (ApiException e) {
                      assertThat(e.status()).isEqualTo(429);
                      return false;
                    }
                  }));
        }
        int issued = 0;
        for (Future<Boolean> c : calls) {
          issued += c.get() ? 1 : 0;
        }
        assertThat(issued).as("round %d", round).isEqualTo(4);
        assertThat(t.held(alice)).isEqualTo(Tickets.MAX_PER_USER);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aTicketIsGoodOnceAndForItsTimeAndGivesItsPlaceBack() {
    Tickets t = new Tickets(now::get);
    Tickets.Issued a = t.issue(alice);
    assertThat(a.expiresMs()).isEqualTo(now.get() + Tickets.TTL_MS);
    assertThat(t.redeem(a.ticket())).contains(alice);
    assertThat(t.redeem(a.ticket())).isEmpty();
    assertThat(t.held(alice)).isZero();
    Tickets.Issued b = t.issue(alice);
    now.addAndGet(Tickets.TTL_MS);
    assertThat(t.redeem(b.ticket())).isEmpty();
    for (int i = 0; i < Tickets.MAX_PER_USER; i++) {
      t.issue(alice);
    }
    now.addAndGet(Tickets.TTL_MS);
    assertThat(t.held(alice)).isZero(); // expired ones are forgotten
    t.issue(alice);
    assertThat(t.held(alice)).isEqualTo(1);
  }
}
