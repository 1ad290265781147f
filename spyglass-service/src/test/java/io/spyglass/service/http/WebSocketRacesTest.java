package io.spyglass.service.http;

import static io.spyglass.service.http.LiveService.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.spyglass.service.query.ResultLog;
import io.spyglass.service.query.ServiceQuery;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A WebSocket's subscriptions when other things happen at the same moment: its close while it
 * subscribes, results of one of its queries dropped before it read them. Package-private hooks make
 * each interleaving happen.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WebSocketRacesTest {
  @TempDir Path data;
  LiveService live;

  @BeforeEach
  void start() throws Exception {
    live = new LiveService(data);
  }

  @AfterEach
  void stop() {
    live.close();
  }

  @Test
  void aCloseWhileTheSocketSubscribesLeavesNoReaderOnTheQueryAndNoClient() throws Exception {
    AtomicReference<Thread> closing = new AtomicReference<>();
    // the socket closes just as it is about to read the query's log: the close runs in another
    // thread, and the subscribe goes on once that close has run or waits for the subscribe
    live.server().webSockets().beforeSubscribe =
        close -> {
          Thread t = new Thread(close, "closing");
          closing.set(t);
          t.start();
          while (t.getState() != Thread.State.BLOCKED
              && t.getState() != Thread.State.WAITING
              && t.getState() != Thread.State.TERMINATED) {
            Thread.onSpinWait();
          }
        };
    String id;
    try (LiveService.Socket s = live.socket()) {
      id = s.submit("SELECT COUNT(*) AS n FROM STREAM(5s, TIME) WINDOWING TUMBLING(100, TIME)");
      ServiceQuery q = live.query(id);
      await(
          "the close",
          () -> closing.get() != null && closing.get().getState() == Thread.State.TERMINATED);
      assertThat(q.log().subscribers()).as("readers left on the query's log").isZero();
      assertThat(q.clients()).as("the query's clients").isZero();
    }
  }

  @Test
  void aQueryWhoseUnreadResultsWereDroppedGetsAGapAndTheSocketFollowsItsOtherQueries()
      throws Exception {
    try (LiveService.Socket s = live.socket()) {
      String other =
          s.submit("SELECT COUNT(*) AS n FROM STREAM(3s, TIME) WINDOWING TUMBLING(100, TIME)");
      String trimmed =
          live.service
              .queries()
              .submit(
                  LiveService.ROOT,
                  "SELECT COUNT(*) AS n FROM STREAM(3s, TIME) WINDOWING TUMBLING(100, TIME)",
                  true)
              .id();
      ResultLog log = live.query(trimmed).log();
      await("results to follow", () -> log.lastId() >= 3);
      // as the socket subscribes from the first result, every result kept is dropped (as the
      // result memory does to make room) before it reads one
      AtomicBoolean once = new AtomicBoolean();
      live.server().webSockets().beforeSubscribe =
          close -> {
            if (once.compareAndSet(false, true)) {
              log.trimOldest(Long.MAX_VALUE, 0);
            }
          };
      s.send("{\"type\":\"subscribe\",\"id\":\"" + trimmed + "\",\"after\":0}");
      JsonNode gap = s.next("gap", trimmed);
      assertThat(gap.get("from").asLong()).isEqualTo(1);
      assertThat(gap.get("to").asLong()).isGreaterThanOrEqualTo(3);
      // it goes on with the results that come after, to the end, and with the other query
      JsonNode next = s.next("result", trimmed);
      assertThat(next.get("seq").asLong()).isGreaterThan(gap.get("to").asLong());
      s.next("end", trimmed);
      s.next("end", other);
      assertThat(s.closedByServer).isFalse();
    }
  }
}
