package io.spyglass.core.plan;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The text written for people: defaults left out, durations with units. */
class BqlFormatTest {

  private static String format(String query) {
    return Bql.format(Bql.compile(query), QueryLimits.DEFAULTS);
  }

  @Test
  void defaultNamesAndLimitsAreLeftOutAndDurationsKeepTheirUnit() {
    assertThat(format("select count(*) from stream(10s, time)"))
        .isEqualTo("SELECT COUNT(*) FROM STREAM(10s, TIME)");
    assertThat(
            format(
                "SELECT device, COUNT(*) AS n FROM STREAM(60000, TIME) GROUP BY device"
                    + " WINDOWING TUMBLING(5000, TIME)"))
        .isEqualTo(
            "SELECT device, COUNT(*) AS n FROM STREAM(1m, TIME) GROUP BY device"
                + " WINDOWING TUMBLING(5s, TIME)");
    assertThat(format("SELECT id FROM STREAM(1500, TIME) LIMIT 5"))
        .isEqualTo("SELECT id FROM STREAM(1500ms, TIME) LIMIT 5");
    assertThat(
            format(
                "SELECT COUNT(*) AS n FROM STREAM(FOREVER) WINDOWING TUMBLING(1h, EVENT_TIME(ts),"
                    + " LATENESS 10m)"))
        .isEqualTo(
            "SELECT COUNT(*) AS n FROM STREAM(FOREVER) WINDOWING TUMBLING(1h, EVENT_TIME(ts),"
                + " LATENESS 10m)");
    assertThat(
            format("SELECT * FROM STREAM(2h, TIME) WINDOWING EVERY(10, RECORD, FIRST, 10, RECORD)"))
        .isEqualTo("SELECT * FROM STREAM(2h, TIME) WINDOWING EVERY(10, RECORD, FIRST, 10, RECORD)");
  }

  @Test
  void aLimitOtherThanTheDefaultIsKept() {
    assertThat(format("SELECT device, COUNT(*) FROM STREAM(10s, TIME) GROUP BY device LIMIT 20"))
        .isEqualTo("SELECT device, COUNT(*) FROM STREAM(10s, TIME) GROUP BY device LIMIT 20");
    assertThat(format("SELECT * FROM STREAM(10s, TIME) LIMIT 100"))
        .isEqualTo("SELECT * FROM STREAM(10s, TIME)");
  }
}
