package io.spyglass.service.metering;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.query.QueryCombiner;
import io.spyglass.core.query.QueryStats;
import io.spyglass.core.result.Result;
import io.spyglass.core.run.CheckedQuery;
import io.spyglass.engine.EngineConfig;
import io.spyglass.engine.ingest.Ingestor;
import io.spyglass.service.runtime.CheckpointCut;
import io.spyglass.service.runtime.CheckpointMarker;
import io.spyglass.service.runtime.EmbeddedRuntime;
import io.spyglass.service.runtime.ResultListener;
import io.spyglass.service.runtime.StandingOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A standing query's checkpoint marker on the embedded runtime, over a real ingest log: it comes in
 * the query's result stream after exactly the results its state has seen, and a listener that is
 * not ready holds up its own query only.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CheckpointMarkerTest {
  @TempDir Path data;

  /** Windows of 10 s by the documents' time, final as soon as a later document passes them. */
  static final String COUNT =
      "SELECT COUNT(*) AS docs FROM STREAM(FOREVER)"
          + " WINDOWING TUMBLING(10s, EVENT_TIME(time), LATENESS 0s)";

  static final long T0 = 1767225600000L;

  /** Documents {@code from} to {@code to}, one a second from {@link #T0}. */
  static List<Ingestor.Doc> docs(int from, int to) {
    List<Ingestor.Doc> out = new ArrayList<>();
    for (int i = from; i < to; i++) {
      byte[] b =
          ("{\"id\":\"d" + i + "\",\"time\":" + (T0 + i * 1000L) + "}")
              .getBytes(StandardCharsets.UTF_8);
      out.add(new Ingestor.Doc("d" + i, b, 0, b.length));
    }
    return out;
  }

  /** A standing query's stream as its listener got it: results and markers, in order. */
  static final class Recorder implements ResultListener {
    final List<Object> events = new CopyOnWriteArrayList<>();
    final CompletableFuture<String> end = new CompletableFuture<>();
    volatile boolean ready = true;

    @Override
    public void onResult(Result result) {
      events.add(result);
    }

    @Override
    public void onCheckpoint(CheckpointMarker marker) {
      events.add(marker);
    }

    @Override
    public boolean ready() {
      return ready;
    }

    @Override
    public void onEnd(String error, QueryStats last) {
      end.complete(error == null ? "" : error);
    }

    List<CheckpointMarker> markers() {
      return events.stream()
          .filter(CheckpointMarker.class::isInstance)
          .map(CheckpointMarker.class::cast)
          .toList();
    }

    List<Long> finals() {
      List<Long> out = new ArrayList<>();
      for (Object e : events) {
        if (e instanceof Result r) {
          WindowUpdate w = WindowUpdate.of(r);
          if (w.isFinal() && !w.lateUpdate()) {
            out.add(w.start());
          }
        }
      }
      return out;
    }
  }

  static void await(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("waited 60 s").isLessThan(deadline);
      Thread.sleep(10);
    }
  }

  private static EngineConfig config() {
    return EngineConfig.defaults().withWorkers(2).withTickMs(5);
  }

  @Test
  void eachMarkerComesAfterExactlyTheResultsItsStateHasSeen() throws Exception {
    CheckedQuery q = CheckedQuery.check(COUNT, QueryLimits.DEFAULTS);
    Metering m =
        Metering.open(
            data, new Metering.Settings("id", Ingestor.Options.DEFAULTS, 3_600_000, null));
    try (EmbeddedRuntime runtime = EmbeddedRuntime.startPaused(m.source(), config())) {
      Recorder r = new Recorder();
      runtime.submitStanding("s", q, new StandingOptions(T0, null), r);
      assertThat(runtime.awaitRunning("s", 10, TimeUnit.SECONDS)).isTrue();
      runtime.resume();
      List<CheckpointCut> cuts = new ArrayList<>();
      for (int b = 0; b < 40; b++) {
        m.ingestor().submit(docs(b * 25, (b + 1) * 25)).get(10, TimeUnit.SECONDS);
        // cut wherever the reading is: between two documents, or between two requests
        cuts.add(runtime.checkpoint(List.of("s"), List.of()).get(10, TimeUnit.SECONDS));
      }
      await(() -> r.markers().size() == cuts.size());
      assertThat(r.markers())
          .extracting(CheckpointMarker::checkpoint)
          .containsExactlyElementsOf(cuts.stream().map(CheckpointCut::checkpoint).toList());
      assertThat(cuts).allSatisfy(c -> assertThat(c.saved()).containsExactly("s"));

      // every window final before a marker is closed in its state; every one open in its state
      // is final after it; a window final after it that its state has closed would be one
      // whose result crossed the marker
      int splitBoth = 0;
      List<Object> events = List.copyOf(r.events);
      for (int i = 0; i < events.size(); i++) {
        if (!(events.get(i) instanceof CheckpointMarker marker)) {
          continue;
        }
        Set<Long> before = new HashSet<>(finals(events.subList(0, i)));
        Set<Long> open = openWindows(q, marker.state());
        assertThat(before)
            .as("final before marker %d", marker.checkpoint())
            .noneMatch(open::contains); // open is empty at a cut before any document
        long newest =
            java.util.stream.Stream.concat(before.stream(), open.stream())
                .mapToLong(Long::longValue)
                .max()
                .orElse(Long.MIN_VALUE);
        for (long after : finals(events.subList(i + 1, events.size()))) {
          assertThat(open.contains(after) || after > newest)
              .as("window %d final after marker %d", after, marker.checkpoint())
              .isTrue();
        }
        if (!before.isEmpty() && !open.isEmpty()) {
          splitBoth++;
        }
      }
      assertThat(splitBoth).as("markers between final and open windows").isPositive();
    } finally {
      m.close();
    }
  }

  @Test
  void aCheckpointClosesTheWindowsThatTheDocumentsBeforeItClose() throws Exception {
    CheckedQuery q = CheckedQuery.check(COUNT, QueryLimits.DEFAULTS);
    Metering m =
        Metering.open(
            data, new Metering.Settings("id", Ingestor.Options.DEFAULTS, 3_600_000, null));
    // no tick within the test: only the checkpoint's round can close a window
    EngineConfig noTicks = EngineConfig.defaults().withWorkers(2).withTickMs(3_600_000);
    try (EmbeddedRuntime runtime = EmbeddedRuntime.startPaused(m.source(), noTicks)) {
      Recorder r = new Recorder();
      runtime.submitStanding("s", q, new StandingOptions(T0, null), r);
      assertThat(runtime.awaitRunning("s", 10, TimeUnit.SECONDS)).isTrue();
      runtime.resume();
      m.ingestor().submit(docs(0, 25)).get(10, TimeUnit.SECONDS); // 0 s to 24 s
      long end = m.ingestor().log().committedEnd();
      await(() -> m.ingestor().log().readPosition() == end);
      runtime.checkpoint(List.of("s"), List.of()).get(30, TimeUnit.SECONDS);
      await(() -> r.markers().size() == 1);

      // the document at 24 s closes the windows of 0 s and 10 s (no lateness): in the saved state
      // they are closed, and their results come before the marker, so a run restored from the
      // state counts a document for them late as this run does
      int at = r.events.indexOf(r.markers().get(0));
      assertThat(finals(r.events.subList(0, at))).containsExactly(T0, T0 + 10_000L);
      assertThat(openWindows(q, r.markers().get(0).state())).containsExactly(T0 + 20_000L);
    } finally {
      m.close();
    }
  }

  private static List<Long> finals(List<Object> events) {
    Recorder r = new Recorder();
    r.events.addAll(events);
    return r.finals();
  }

  /** The starts of the windows open in a saved state. */
  private static Set<Long> openWindows(CheckedQuery q, byte[] state) {
    QueryCombiner c =
        QueryCombiner.restore(q.toQuery("s", T0), q.limits(), (x, r) -> {}, () -> T0, state);
    Set<Long> out = new HashSet<>();
    for (Result r : c.peek(T0)) {
      out.add(WindowUpdate.of(r).start());
    }
    return out;
  }

  @Test
  void aStandingListenerThatIsNotReadyHoldsUpItsOwnQueryOnly() throws Exception {
    CheckedQuery q = CheckedQuery.check(COUNT, QueryLimits.DEFAULTS);
    Metering m =
        Metering.open(
            data, new Metering.Settings("id", Ingestor.Options.DEFAULTS, 3_600_000, null));
    try (EmbeddedRuntime runtime = EmbeddedRuntime.startPaused(m.source(), config())) {
      Recorder slow = new Recorder();
      slow.ready = false;
      runtime.submitStanding("slow", q, new StandingOptions(T0, null), slow);
      // on every worker before the first record is read, as a restored standing query is: a query
      // submitted while records are read sees them from when each worker adds it
      assertThat(runtime.awaitRunning("slow", 10, TimeUnit.SECONDS)).isTrue();
      runtime.resume();
      m.ingestor().submit(docs(0, 1000)).get(10, TimeUnit.SECONDS);
      long end = m.ingestor().log().committedEnd();
      await(() -> m.ingestor().log().readPosition() == end);

      // another query gets its results and its end meanwhile
      Recorder other = new Recorder();
      runtime.submit(
          "other", CheckedQuery.check("SELECT COUNT(*) FROM STREAM(300, TIME)", q.limits()), other);
      assertThat(other.end.get(30, TimeUnit.SECONDS)).isEmpty();
      assertThat(other.events).isNotEmpty();
      // a checkpoint is taken too, its marker waiting behind the results before its cut
      CheckpointCut cut = runtime.checkpoint(List.of("slow"), List.of()).get(30, TimeUnit.SECONDS);
      assertThat(cut.saved()).containsExactly("slow");
      assertThat(slow.events).isEmpty();

      // once ready, it gets every result, none dropped, and the marker after those its state has
      // seen (a window the combiner closed after the cut comes after the marker)
      slow.ready = true;
      runtime.resumeDelivery("slow");
      await(() -> slow.markers().size() == 1 && slow.finals().size() == 99);
      List<Long> finals = slow.finals();
      assertThat(finals).hasSize(99); // windows of 10 s over 1000 s; the last is open
      int at = slow.events.indexOf(slow.markers().get(0));
      Set<Long> open = openWindows(q, slow.markers().get(0).state());
      assertThat(finals(slow.events.subList(0, at))).noneMatch(open::contains);
      for (int i = 0; i < finals.size(); i++) {
        assertThat(finals.get(i)).isEqualTo(T0 + i * 10_000L);
      }
      assertThat(slow.end).isNotDone();
    } finally {
      m.close();
    }
  }
}
