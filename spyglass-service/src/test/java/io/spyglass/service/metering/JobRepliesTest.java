package io.spyglass.service.metering;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.result.Meta;
import io.spyglass.core.result.Result;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The replies of standing queries run on the Flink job reach the database once each, whatever the
 * job delivers again after a restore (at least once): final windows by (query, window start), late
 * updates by the query's count of late documents. Real SQLite under a temporary data folder.
 */
class JobRepliesTest {
  private static final String BQL =
      "SELECT COUNT(*) AS n FROM STREAM(0, EVENT_TIME ts) WINDOWING TUMBLING(1000, EVENT_TIME ts)";

  @TempDir Path data;

  @Test
  void windowsAndLateUpdatesDeliveredAgainAreWrittenOnce() throws Exception {
    try (StandingStore store = StandingStore.open(data, null)) {
      store.commit(
          new StandingStore.Commit(0, Map.of(), Map.of(), List.of()),
          new StandingStore.Stored("usage", BQL, "ann", 1_000, null),
          null);
      JobReplies replies = new JobReplies(store);
      JobReplies.Reply w0 = window(0, 3, new Meta.EventWindow(1000, true, 0, false), 0);
      JobReplies.Reply late0 = window(0, 0, new Meta.EventWindow(1000, true, 2, true), 2);
      JobReplies.Reply w1 = window(1, 5, new Meta.EventWindow(2000, true, 0, false), 2);
      JobReplies.Reply lateAgain0 = window(0, 0, new Meta.EventWindow(1000, true, 1, true), 3);
      // a restore delivers again what came after the job's checkpoint
      for (JobReplies.Reply r :
          List.of(w0, late0, w1, w0, late0, w1, lateAgain0, late0, lateAgain0)) {
        replies.reply(r);
      }
      List<StandingStore.Window> got = store.windows("usage", 0, Long.MAX_VALUE);
      assertThat(got).hasSize(2);
      assertThat(got.get(0).start()).isZero();
      assertThat(got.get(0).records()).isEqualTo("[{\"n\":3}]");
      assertThat(got.get(0).late()).isEqualTo(3);
      assertThat(got.get(1).start()).isEqualTo(1000);
      assertThat(got.get(1).records()).isEqualTo("[{\"n\":5}]");
      assertThat(got.get(1).late()).isZero();
      assertThat(replies.repeats()).isEqualTo(3);
    }
  }

  @Test
  void repliesOfAQueryDeletedMeanwhileWriteNothing() throws Exception {
    try (StandingStore store = StandingStore.open(data, null)) {
      JobReplies replies = new JobReplies(store);
      replies.reply(window(0, 3, new Meta.EventWindow(1000, true, 0, false), 0));
      replies.reply(window(0, 0, new Meta.EventWindow(1000, true, 2, true), 2));
      assertThat(store.windows("usage", 0, Long.MAX_VALUE)).isEmpty();
    }
  }

  /** A name deleted and defined again: what the job still sends of the former query is dropped. */
  @Test
  void repliesOfAFormerDefinitionOfTheNameWriteNothing() throws Exception {
    try (StandingStore store = StandingStore.open(data, null)) {
      store.commit(
          new StandingStore.Commit(0, Map.of(), Map.of(), List.of()),
          new StandingStore.Stored("usage", BQL, "ann", 1_000, null),
          null);
      JobReplies replies = new JobReplies(store);
      replies.reply(
          withId(
              "standing-usage@500", window(0, 7, new Meta.EventWindow(1000, true, 0, false), 0)));
      replies.reply(
          withId(
              "standing-usage@500", window(1, 7, new Meta.EventWindow(2000, true, 0, false), 0)));
      replies.reply(
          withId(
              "standing-usage@1000", window(0, 3, new Meta.EventWindow(1000, true, 0, false), 0)));
      replies.reply(
          withId("standing-usage@500", window(0, 0, new Meta.EventWindow(1000, true, 2, true), 2)));
      replies.reply(JobReplies.Reply.ended("standing-usage@500", "too many groups"));
      List<StandingStore.Window> got = store.windows("usage", 0, Long.MAX_VALUE);
      assertThat(got)
          .singleElement()
          .satisfies(
              w -> {
                assertThat(w.records()).isEqualTo("[{\"n\":3}]");
                assertThat(w.late()).isZero();
              });
      assertThat(store.list()).singleElement().extracting(s -> s.error()).isNull();
    }
  }

  private static JobReplies.Reply withId(String jobId, JobReplies.Reply r) {
    return JobReplies.Reply.result(jobId, r.result());
  }

  @Test
  void aQueryThatEndsWithAnErrorIsRecordedAsFailed() throws Exception {
    try (StandingStore store = StandingStore.open(data, null)) {
      store.commit(
          new StandingStore.Commit(0, Map.of(), Map.of(), List.of()),
          new StandingStore.Stored("usage", BQL, "ann", 1_000, null),
          null);
      new JobReplies(store).reply(JobReplies.Reply.ended("standing-usage", "too many groups"));
      assertThat(store.list())
          .singleElement()
          .extracting(s -> s.error())
          .isEqualTo("too many groups");
    }
  }

  private static JobReplies.Reply window(long number, long n, Meta.EventWindow e, long queryLate) {
    long start = number * 1000;
    return JobReplies.Reply.result(
        "standing-usage",
        new Result(
            e.lateUpdate() ? List.of() : List.of(Map.<String, Object>of("n", n)),
            new Meta(
                "standing-usage",
                BQL,
                1_000,
                Optional.empty(),
                Optional.of(
                    new Meta.WindowMeta(
                        number, "TUMBLING(1000, EVENT_TIME)", 5_000, start, 1, Optional.of(e))),
                Map.of(),
                List.of(),
                false,
                Map.of(),
                Optional.of(
                    new Meta.EventTimeMeta(
                        Optional.of(2_500L), Optional.of(2_500L), queryLate, 0)))));
  }
}
