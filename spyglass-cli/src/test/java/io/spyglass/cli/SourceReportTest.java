package io.spyglass.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.SpyglassClock;
import io.spyglass.core.record.BadRecord;
import io.spyglass.sources.BadInput;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The lines on stderr about the input that could not be read: while queries run, at most every 10 s
 * on the command's clock (a test's, moved instead of waited for), and at the end if anything is
 * new.
 */
class SourceReportTest {
  @Test
  void badInputIsSaidAtMostEveryTenSecondsOnTheCommandsClockAndAtTheEnd() {
    AtomicLong nanos = new AtomicLong(1_000);
    SpyglassClock clock = new SpyglassClock(() -> 1_700_000_000_000L, nanos::get);
    BadInput bad = new BadInput();
    StringWriter err = new StringWriter();
    QueryCommand.SourceReport report =
        new QueryCommand.SourceReport(
            () -> null,
            () -> null,
            bad::snapshot,
            "file:x.json",
            QueryCommand.Progress.NONE,
            new PrintWriter(err),
            clock);

    bad.add(BadRecord.MALFORMED_JSON, "line 3");
    report.report(false);
    assertThat(err.toString()).isEmpty(); // not 10 s since the report began

    nanos.addAndGet(TimeUnit.SECONDS.toNanos(10));
    report.report(false);
    assertThat(err.toString().lines()).hasSize(1).first().asString().contains("line 3");

    bad.add(BadRecord.MALFORMED_JSON, "line 9");
    nanos.addAndGet(TimeUnit.SECONDS.toNanos(9));
    report.report(false);
    assertThat(err.toString().lines()).hasSize(1); // 9 s after the last: not yet

    nanos.addAndGet(TimeUnit.SECONDS.toNanos(1));
    report.report(false);
    assertThat(err.toString().lines()).hasSize(2);

    report.report(true); // nothing new at the end: nothing more said
    assertThat(err.toString().lines()).hasSize(2);
  }
}
