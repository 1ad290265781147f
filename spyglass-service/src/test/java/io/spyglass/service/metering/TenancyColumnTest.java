package io.spyglass.service.metering;

import static org.assertj.core.api.Assertions.assertThat;

import io.spyglass.core.plan.Bql;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Which standing queries keep a tenant column, and the rows of a tenant. */
class TenancyColumnTest {
  static boolean column(String bql) {
    return Tenancy.hasTenantColumn(Bql.compile(bql), "org");
  }

  @Test
  void aQueryGroupingByTheTenantFieldAndKeepingItHasATenantColumn() {
    assertThat(column("SELECT org, SUM(quantity) AS t FROM STREAM(FOREVER) GROUP BY org")).isTrue();
    assertThat(
            column(
                "SELECT org, resource, COUNT(*) AS n FROM STREAM(FOREVER) GROUP BY org, resource"
                    + " WINDOWING TUMBLING(1h, EVENT_TIME(time), LATENESS 10m)"))
        .isTrue();
  }

  @Test
  void anyOtherQueryMixesTenants() {
    assertThat(column("SELECT SUM(quantity) AS t FROM STREAM(FOREVER)")).isFalse();
    assertThat(column("SELECT SUM(quantity) AS t FROM STREAM(FOREVER) GROUP BY org")).isFalse();
    assertThat(column("SELECT org AS o, SUM(quantity) AS t FROM STREAM(FOREVER) GROUP BY org"))
        .isFalse();
    assertThat(
            column("SELECT region AS org, SUM(quantity) AS t FROM STREAM(FOREVER) GROUP BY region"))
        .isFalse();
    assertThat(column("SELECT * FROM STREAM(FOREVER) WINDOWING TUMBLING(1h, TIME)")).isFalse();
    assertThat(column("SELECT org, quantity FROM STREAM(FOREVER) WINDOWING TUMBLING(1h, TIME)"))
        .isFalse();
  }

  @Test
  void rowsOfATenant() {
    String rows =
        "[{\"org\":\"acme\",\"t\":1},{\"org\":\"zeta\",\"t\":2},{\"org\":7,\"t\":3},{\"t\":4}]";
    assertThat(Tenancy.rowsOf(rows, "org", Set.of("acme", "7")))
        .isEqualTo("[{\"org\":\"acme\",\"t\":1},{\"org\":7,\"t\":3}]");
  }
}
