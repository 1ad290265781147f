package io.spyglass.sinks;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.result.Result;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Webhooks against a real HTTP receiver on a loopback port that fails, holds its answers, or is
 * down for a while: nothing lost, nothing taken twice, and the others' documents go on meanwhile.
 */
class WebhookDeliveryTest {
  /** Quick retries, so that a test waits milliseconds for what a service waits seconds. */
  private static final DeliverySettings QUICK =
      DeliverySettings.DEFAULTS.withRetries(50, 60_000, 5, 100).withRequestTimeoutMs(10_000);

  private final List<AutoCloseable> open = new ArrayList<>();

  private <T extends AutoCloseable> T closing(T t) {
    open.add(t);
    return t;
  }

  @AfterEach
  void closeAll() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
  }

  private Sinks sinks(DeliverySettings settings) {
    return closing(new Sinks(settings, SinkPolicy.unrestricted()));
  }

  private static List<Result> windows(String id, int n) {
    List<Result> out = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      out.add(Results.window(id, i, i == n));
    }
    return out;
  }

  /** Each key taken (2xx) once: the documents delivered, by key. */
  private static Map<String, Long> takenByKey(Receiver r) {
    return r.accepted().stream()
        .collect(Collectors.groupingBy(Receiver.Call::key, Collectors.counting()));
  }

  @Test
  void aReceiverFailingItsFirstCallsGetsEveryDocumentOnceInOrder() throws Exception {
    Receiver r = closing(new Receiver());
    r.answer = (i, key) -> i < 4 ? 503 : 200;
    Sinks sinks = sinks(QUICK);
    QuerySinks q = sinks.forQuery("q1", List.of(SinkSpec.webhook(r.url())));
    windows("q1", 5).forEach(q::offer);
    Await.until("every document delivered", () -> q.stats().get(0).delivered() == 5);

    assertThat(r.accepted())
        .extracting(Receiver.Call::key)
        .containsExactly("q1:1", "q1:2", "q1:3", "q1:4", "q1:5");
    assertThat(takenByKey(r).values()).containsOnly(1L);
    // the first document was tried until the receiver took it: 4 failures, then the 5th call
    assertThat(r.calls()).hasSize(9);
    assertThat(r.calls().subList(0, 5)).extracting(Receiver.Call::key).containsOnly("q1:1");
    Receiver.Call first = r.accepted().get(0);
    assertThat(first.contentType()).isEqualTo("application/json");
    assertThat(first.body())
        .startsWith(
            "{\"key\":\"q1:1\",\"query\":\"q1\",\"window\":1,\"final\":false,\"records\":[{\"n\":1}],\"meta\":{");
    SinkStats s = q.stats().get(0);
    assertThat(s.retried()).isEqualTo(4);
    assertThat(s.dropped()).isZero();
    assertThat(s.failing()).isFalse();
    assertThat(s.lastError()).isEqualTo("the webhook answered 503");
    assertThat(sinks.count(SinkSpec.Type.WEBHOOK, Sinks.Count.DELIVERED)).isEqualTo(5);
    assertThat(sinks.count(SinkSpec.Type.WEBHOOK, Sinks.Count.RETRIED)).isEqualTo(4);
  }

  @Test
  void aSlowReceiverHoldsUpNeitherTheCallerNorOtherQueries() throws Exception {
    Receiver slow = closing(new Receiver());
    CountDownLatch hold = new CountDownLatch(1);
    slow.answer =
        (i, key) -> {
          hold.await(60, TimeUnit.SECONDS);
          return 200;
        };
    Receiver fast = closing(new Receiver());
    Sinks sinks = sinks(QUICK);
    QuerySinks a = sinks.forQuery("a", List.of(SinkSpec.webhook(slow.url())));
    QuerySinks b = sinks.forQuery("b", List.of(SinkSpec.webhook(fast.url())));
    // offered while the slow receiver holds its first call: each offer returns at once
    for (Result r : windows("a", 20)) {
      a.offer(r);
    }
    windows("b", 20).forEach(b::offer);
    Await.until("the other query's documents delivered", () -> b.stats().get(0).delivered() == 20);
    assertThat(a.stats().get(0).delivered()).isZero();
    assertThat(a.stats().get(0).pending()).isEqualTo(20);

    hold.countDown();
    Await.until("the slow sink's documents delivered", () -> a.stats().get(0).delivered() == 20);
    assertThat(slow.accepted()).hasSize(20);
    assertThat(takenByKey(slow).values()).containsOnly(1L);
  }

  @Test
  void aSlowTargetHoldsAtMostItsShareOfTheAttemptsAndTheOthersGoOn() throws Exception {
    Receiver slow = closing(new Receiver());
    CountDownLatch hold = new CountDownLatch(1);
    AtomicInteger now = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    slow.answer =
        (i, key) -> {
          most.accumulateAndGet(now.incrementAndGet(), Math::max);
          try {
            hold.await(60, TimeUnit.SECONDS);
          } finally {
            now.decrementAndGet();
          }
          return 200;
        };
    Receiver fast = closing(new Receiver());
    // 4 attempts at once over all sinks, 2 to one target
    Sinks sinks = sinks(QUICK.withInFlight(4, 2));
    List<QuerySinks> toSlow = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      QuerySinks q = sinks.forQuery("s" + i, List.of(SinkSpec.webhook(slow.url())));
      toSlow.add(q);
      windows("s" + i, 3).forEach(q::offer);
    }
    Await.until("the slow target's share under way", () -> slow.arrivals() == 2);
    QuerySinks other = sinks.forQuery("f", List.of(SinkSpec.webhook(fast.url())));
    windows("f", 5).forEach(other::offer);
    Await.until(
        "the other target's documents delivered", () -> other.stats().get(0).delivered() == 5);
    assertThat(slow.arrivals()).as("attempts to the slow target while it holds them").isEqualTo(2);

    hold.countDown();
    Await.until(
        "the slow target's documents delivered",
        () -> toSlow.stream().allMatch(q -> q.stats().get(0).delivered() == 3));
    assertThat(most.get()).isEqualTo(2);
    assertThat(takenByKey(slow)).hasSize(30).values().containsOnly(1L);
    for (QuerySinks q : toSlow) { // each sink's documents in order
      String id = q.queryId();
      assertThat(
              slow.accepted().stream().map(Receiver.Call::key).filter(k -> k.startsWith(id + ":")))
          .containsExactly(id + ":1", id + ":2", id + ":3");
    }
  }

  @Test
  void aReceiverDownForAWhileGetsWhatWasBufferedWhenItIsBack() throws Exception {
    Receiver r = new Receiver();
    int port = r.port();
    String url = r.url();
    r.close(); // down: connections are refused
    Sinks sinks = sinks(QUICK);
    QuerySinks q = sinks.forQuery("q", List.of(SinkSpec.webhook(url)));
    windows("q", 10).forEach(q::offer);
    Await.until("a failed attempt", () -> q.stats().get(0).retried() >= 3);
    assertThat(q.stats().get(0).failing()).isTrue();
    assertThat(q.failures()).singleElement().asString().contains("is failing").contains(url);

    Receiver back = closing(new Receiver(port));
    Await.until("every document delivered", () -> q.stats().get(0).delivered() == 10);
    assertThat(back.accepted())
        .extracting(Receiver.Call::key)
        .containsExactly("q:1", "q:2", "q:3", "q:4", "q:5", "q:6", "q:7", "q:8", "q:9", "q:10");
    assertThat(q.stats().get(0).failing()).isFalse();
    assertThat(q.stats().get(0).dropped()).isZero();
  }

  @Test
  void aFullBufferDropsTheOldestAndCountsThem() throws Exception {
    Receiver r = closing(new Receiver());
    CountDownLatch hold = new CountDownLatch(1);
    r.answer =
        (i, key) -> {
          hold.await(60, TimeUnit.SECONDS);
          return 200;
        };
    Sinks sinks = sinks(QUICK.withBuffers(3, 1 << 20, 1 << 24));
    QuerySinks q = sinks.forQuery("q", List.of(SinkSpec.webhook(r.url())));
    q.offer(Results.window("q", 1, false));
    Await.until("the first document at the receiver", () -> r.arrivals() == 1);
    for (int i = 2; i <= 10; i++) {
      q.offer(Results.window("q", i, i == 10));
    }
    SinkStats s = q.stats().get(0);
    assertThat(s.dropped()).isEqualTo(6); // 2..7 pushed out: 8, 9, 10 are buffered
    assertThat(s.lastError()).contains("buffer was full");
    hold.countDown();
    Await.until("what was kept delivered", () -> q.stats().get(0).delivered() == 4);
    assertThat(r.accepted())
        .extracting(Receiver.Call::key)
        .containsExactly("q:1", "q:8", "q:9", "q:10");
    assertThat(sinks.count(SinkSpec.Type.WEBHOOK, Sinks.Count.DROPPED)).isEqualTo(6);
  }

  @Test
  void aClientErrorGivesTheDocumentUpAndTheNextGoesOn() throws Exception {
    Receiver r = closing(new Receiver());
    r.answer = (i, key) -> key.equals("q:2") ? 400 : 200;
    Sinks sinks = sinks(QUICK);
    QuerySinks q = sinks.forQuery("q", List.of(SinkSpec.webhook(r.url())));
    windows("q", 3).forEach(q::offer);
    Await.until("all tried", () -> q.stats().get(0).pending() == 0);
    assertThat(r.calls()).extracting(Receiver.Call::key).containsExactly("q:1", "q:2", "q:3");
    SinkStats s = q.stats().get(0);
    assertThat(s.delivered()).isEqualTo(2);
    assertThat(s.dropped()).isEqualTo(1);
    assertThat(s.retried()).isZero();
  }

  @Test
  void aRedirectIsNotFollowed() throws Exception {
    Receiver r = closing(new Receiver());
    r.answer = (i, key) -> 307;
    QuerySinks q = sinks(QUICK).forQuery("q", List.of(SinkSpec.webhook(r.url())));
    q.offer(Results.whole("q"));
    Await.until("tried", () -> q.stats().get(0).dropped() == 1);
    assertThat(r.calls()).hasSize(1);
    assertThat(q.stats().get(0).lastError()).contains("307").contains("redirect");
  }

  @Test
  void tooManyRequestsIsTriedAgainAfterTheReceiversRetryAfter() throws Exception {
    Receiver r = closing(new Receiver());
    r.retryAfter = "1";
    r.answer = (i, key) -> i == 0 ? 429 : 200;
    QuerySinks q =
        sinks(QUICK.withRetries(5, 60_000, 1, 5_000))
            .forQuery("q", List.of(SinkSpec.webhook(r.url())));
    long start = System.nanoTime();
    q.offer(Results.whole("q"));
    Await.until("delivered", () -> q.stats().get(0).delivered() == 1);
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
        .as("waited at least the Retry-After")
        .isGreaterThanOrEqualTo(1_000);
  }

  @Test
  void aDocumentIsGivenUpAfterItsAttempts() throws Exception {
    Receiver r = closing(new Receiver());
    r.answer = (i, key) -> 500;
    QuerySinks q =
        sinks(QUICK.withRetries(3, 60_000, 1, 10))
            .forQuery("q", List.of(SinkSpec.webhook(r.url())));
    q.offer(Results.whole("q"));
    Await.until("given up", () -> q.stats().get(0).dropped() == 1);
    assertThat(r.calls()).hasSize(3);
    assertThat(q.stats().get(0).lastError())
        .contains("answered 500")
        .contains("given up after 3 attempts");
  }

  @Test
  void closingDeliversWhatItCanThenCountsTheRestDropped() throws Exception {
    Receiver r = closing(new Receiver());
    CountDownLatch hold = new CountDownLatch(1);
    r.answer =
        (i, key) -> {
          hold.await(60, TimeUnit.SECONDS);
          return 200;
        };
    Sinks sinks = new Sinks(QUICK, SinkPolicy.unrestricted());
    QuerySinks q = sinks.forQuery("q", List.of(SinkSpec.webhook(r.url())));
    windows("q", 4).forEach(q::offer);
    assertThat(sinks.close(200)).isEqualTo(4);
    hold.countDown();
    assertThat(q.stats().get(0).dropped()).isEqualTo(4);
    assertThat(sinks.bufferedBytes()).isZero();
  }
}
