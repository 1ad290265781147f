package io.spyglass.service.query;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ResultLogTest {
  @Test
  void numbersResultsFromOneAndReadsAfterAnyOfThem() {
    ResultLog log = new ResultLog(100, 1 << 20);
    AtomicInteger wakes = new AtomicInteger();
    log.subscribe(wakes::incrementAndGet);
    for (int i = 1; i <= 5; i++) {
      log.append("{\"n\":" + i + "}", i == 5, 1000 + i);
    }
    log.end(null);
    assertThat(wakes.get()).isEqualTo(1 + 5 + 1); // on subscribe, each append, the end
    assertThat(log.after(0, 10))
        .extracting(ResultLog.Event::id)
        .containsExactly(1L, 2L, 3L, 4L, 5L);
    assertThat(log.after(3, 10)).extracting(ResultLog.Event::id).containsExactly(4L, 5L);
    assertThat(log.after(1, 2)).extracting(ResultLog.Event::id).containsExactly(2L, 3L);
    assertThat(log.after(5, 10)).isEmpty();
    assertThat(log.after(0, Integer.MAX_VALUE)).hasSize(5);
    assertThat(log.last().isFinal()).isTrue();
    assertThat(new String(log.last().sse(), StandardCharsets.UTF_8))
        .isEqualTo("id: 5\nevent: result\ndata: {\"n\":5}\n\n");
  }

  /**
   * A result fanned out to many streams is not written to each in turn on the one thread that
   * delivers every query's results: the wakes go out in slices on several threads (the last of
   * 1,000 streams waited for 999 writes, p99 554 ms), and each subscriber still reads every result
   * once, in order.
   */
  @Test
  void aLargeFanOutIsWokenOnSeveralThreadsAndEachSubscriberReadsEveryResultInOrder()
      throws Exception {
    ResultLog log = new ResultLog(100, 1 << 20);
    int n = 1_000;
    java.util.Set<String> threads = java.util.concurrent.ConcurrentHashMap.newKeySet();
    List<List<Long>> seen = new java.util.ArrayList<>();
    java.util.concurrent.CountDownLatch ended = new java.util.concurrent.CountDownLatch(n);
    for (int i = 0; i < n; i++) {
      List<Long> mine = new java.util.ArrayList<>();
      seen.add(mine);
      long[] cursor = {0};
      boolean[] done = {false};
      log.subscribe(
          () -> {
            synchronized (mine) {
              threads.add(Thread.currentThread().getName());
              for (ResultLog.Event e = log.next(cursor[0]); e != null; e = log.next(cursor[0])) {
                mine.add(e.id());
                cursor[0] = e.id();
              }
              if (log.isEnded() && cursor[0] == log.lastId() && !done[0]) {
                done[0] = true;
                ended.countDown();
              }
            }
          });
    }
    for (int r = 1; r <= 5; r++) {
      log.append("{\"n\":" + r + "}", r == 5, r);
    }
    log.end(null);
    assertThat(ended.await(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    for (List<Long> mine : seen) {
      synchronized (mine) {
        assertThat(mine).containsExactly(1L, 2L, 3L, 4L, 5L);
      }
    }
    assertThat(threads).as("the threads that woke the subscribers").hasSizeGreaterThan(1);
  }

  @Test
  void aSubscriberThatThrowsIsUnsubscribedAndTheOthersAreWokenStill() {
    ResultLog log = new ResultLog(100, 1 << 20);
    AtomicInteger failing = new AtomicInteger();
    AtomicInteger after = new AtomicInteger();
    log.subscribe(
        () -> {
          if (failing.incrementAndGet() > 1) {
            throw new IllegalStateException("injected");
          }
        });
    log.subscribe(after::incrementAndGet);
    log.append("{}", false, 0); // the first fails here and is dropped
    log.append("{}", true, 0);
    log.end(null);
    assertThat(failing.get()).isEqualTo(2);
    assertThat(after.get()).isEqualTo(1 + 2 + 1); // on subscribe, each append, the end
  }

  @Test
  void aStreamThatKeepsUpReadsTheNewestResultWithoutTheLogsLock() throws Exception {
    // a result fanned out to many streams on several threads: each stream's reads (the newest
    // result, its number, the oldest kept, the end) must not queue them all at the log's lock
    ResultLog log = new ResultLog(100, 1 << 20);
    log.append("{\"n\":1}", false, 1);
    log.append("{\"n\":2}", false, 2);
    java.util.concurrent.ExecutorService reader =
        java.util.concurrent.Executors.newSingleThreadExecutor();
    try {
      java.util.concurrent.Future<List<Object>> read;
      synchronized (log) { // the writer holds it (an append, a trim)
        read =
            reader.submit(
                () ->
                    List.of(
                        log.next(1).id(),
                        String.valueOf(log.next(2)),
                        log.lastId(),
                        log.firstKeptId(),
                        log.isEnded(),
                        log.last().id()));
        assertThat(read.get(30, java.util.concurrent.TimeUnit.SECONDS))
            .containsExactly(2L, "null", 2L, 1L, false, 2L);
      }
      // one that fell behind reads under the lock, and finds the oldest kept
      assertThat(log.next(0).id()).isEqualTo(1);
      log.end("stopped");
      assertThat(log.isEnded()).isTrue();
      assertThat(log.error()).isEqualTo("stopped");
      log.release();
      assertThat(log.next(1)).isNull();
      assertThat(log.last()).isNull();
      assertThat(log.firstKeptId()).isEqualTo(3);
    } finally {
      reader.shutdownNow();
    }
  }

  @Test
  void keepsTheNewestWithinItsBoundsAndSaysWhereItStarts() {
    ResultLog log = new ResultLog(3, 1 << 20);
    for (int i = 1; i <= 2_000; i++) {
      log.append("{}", false, 0);
    }
    assertThat(log.firstKeptId()).isEqualTo(1_998);
    List<ResultLog.Event> after = log.after(0, 10);
    assertThat(after).extracting(ResultLog.Event::id).containsExactly(1_998L, 1_999L, 2_000L);
    ResultLog bytes = new ResultLog(100, 10);
    bytes.append("0123456789", false, 0);
    bytes.append("0123456789", false, 0);
    assertThat(bytes.firstKeptId()).isEqualTo(2); // always at least the last one
  }

  @Test
  void countsWhatItHoldsOnItsMeterAndGivesItBackWhenItDropsResults() {
    AtomicLong meter = new AtomicLong();
    ResultLog log = new ResultLog(100, 1 << 20, meter::addAndGet);
    for (int i = 1; i <= 5; i++) {
      log.append("{\"n\":" + i + "}", i == 5, 0);
    }
    long held = 0;
    for (ResultLog.Event e : log.after(0, 10)) {
      held += e.sse().length + ResultLog.EVENT_OVERHEAD;
    }
    assertThat(meter.get()).isEqualTo(held).isEqualTo(log.keptBytes());
    assertThat(log.trimOldest(1, 1)).isPositive();
    assertThat(log.firstKeptId()).isEqualTo(2);
    log.trimOldest(Long.MAX_VALUE, 1); // never the newest
    assertThat(log.firstKeptId()).isEqualTo(5);
    assertThat(meter.get()).isEqualTo(log.keptBytes()).isEqualTo(log.newestBytes());
    log.release();
    assertThat(meter.get()).isZero();
    assertThat(log.isReleased()).isTrue();
    assertThat(log.last()).isNull();
    assertThat(log.firstKeptId()).isEqualTo(6);
    log.append("{}", true, 0); // forgotten: keeps nothing more
    assertThat(meter.get()).isZero();
    assertThat(log.lastId()).isEqualTo(6);
  }

  @Test
  void holdsEachResultOnceAsItsEventAndGivesBackItsJson() {
    ResultLog log = new ResultLog(10, 1 << 20);
    String json = "{\"s\":\"\u00fcn\u00ef \ud83d\ude80\"}";
    ResultLog.Event e = log.append(json, false, 0);
    assertThat(e.json()).isEqualTo(json);
    assertThat(new String(e.sse(), StandardCharsets.UTF_8))
        .isEqualTo("id: 1\nevent: result\ndata: " + json + "\n\n");
  }
}
