package io.spyglass.service.metering;

import io.spyglass.core.run.CheckedQuery;
import io.spyglass.service.auth.User;
import io.spyglass.sinks.SinkSpec;
import java.util.List;

/** Who may define, read and end standing queries, and what a standing query is: the refusals. */
final class StandingRules {
  private StandingRules() {}

  /** A standing query's name: 1 to 100 letters, digits, '.', '_' or '-'. */
  private static final String NAME = "[A-Za-z0-9][A-Za-z0-9._-]{0,99}";

  /**
   * Whether {@code by} may define a standing query named {@code name} with {@code sinkSpecs}.
   *
   * @param sinks whether the service delivers to sinks
   * @throws StandingQueries.Refused 422, 403 or 400, saying why not
   */
  static void mayDefine(
      String name,
      List<SinkSpec> sinkSpecs,
      User by,
      boolean sinks,
      StandingQueries.Limits standing) {
    if (!sinkSpecs.isEmpty() && !sinks) {
      throw new StandingQueries.Refused(
          422,
          "This service delivers results to no sink",
          "Leave \"sinks\" out, or ask the operator");
    }
    if (by.boundToTenants()) {
      throw new StandingQueries.Refused(
          403,
          "A token bound to tenants ("
              + by.tenants().stream().sorted().toList()
              + ") reads standing queries; it does not define them: a query it defined could"
              + " show other tenants' documents",
          "Ask an admin or a user whose token is bound to no tenant to define it");
    }
    if (standing.adminOnly() && !by.admin()) {
      throw new StandingQueries.Refused(
          403,
          "Only admins define standing queries on this service (--standing-queries-admin-only)",
          "Ask an admin to define it");
    }
    if (!name.matches(NAME)) {
      throw new StandingQueries.Refused(
          400,
          "A standing query's name is 1 to 100 letters, digits, '.', '_' or '-', starting with a"
              + " letter or digit: '"
              + name
              + "' is not",
          "Name it e.g. usage-by-org");
    }
  }

  /**
   * Whether {@code checked} may stand: it runs until it is deleted.
   *
   * @throws StandingQueries.Refused 400 when its stream ends
   */
  static void runsForever(CheckedQuery checked) {
    if (!checked.plan().runsForever()) {
      throw new StandingQueries.Refused(
          400,
          "A standing query runs until it is deleted: its stream is STREAM(FOREVER), e.g. SELECT"
              + " org, SUM(quantity) AS total FROM STREAM(FOREVER) GROUP BY org WINDOWING"
              + " TUMBLING(1h, EVENT_TIME(time), LATENESS 10m)",
          "Write FROM STREAM(FOREVER): a standing query has no end of its own");
    }
  }

  /**
   * Whether {@code by}, who has {@code mine} standing queries, may define another.
   *
   * @throws StandingQueries.Refused 403 when it has as many as one user may
   */
  static void mayDefineAnother(User by, long mine, StandingQueries.Limits standing) {
    if (!by.admin() && mine >= standing.maxPerUser()) {
      throw new StandingQueries.Refused(
          403,
          by.name()
              + " has "
              + mine
              + " standing queries, the most one user defines here ("
              + standing.maxPerUser()
              + ", --max-standing-queries-per-user)",
          "Delete one of yours first (DELETE /api/standing-queries/NAME), or ask an admin",
          "max-standing-queries-per-user");
    }
  }

  /**
   * Whether {@code by} may end {@code q}: its owner or an admin.
   *
   * @throws StandingQueries.Refused 403 when not
   */
  static void mayEnd(StandingQuery q, User by) {
    if (!by.canSee(q.stored.owner())) {
      throw new StandingQueries.Refused(
          403,
          "Standing query "
              + q.name()
              + " belongs to "
              + q.stored.owner()
              + "; only its owner or an admin ends it");
    }
  }

  /**
   * Whether {@code by} may read {@code q}'s windows: a token bound to tenants reads only queries
   * whose rows each name their tenant.
   *
   * @throws StandingQueries.Refused 403 when not
   */
  static void mayRead(StandingQuery q, User by, StandingQueries.Limits standing) {
    if (by.boundToTenants() && !q.tenantColumn) {
      throw new StandingQueries.Refused(
          403,
          "Standing query "
              + q.name()
              + " has no column \""
              + standing.tenantField()
              + "\" grouping its rows by tenant: its rows mix tenants, and a token"
              + " bound to tenants reads only its tenants' rows",
          "Read a standing query that groups by "
              + standing.tenantField()
              + " and selects it (GET /api/standing-queries lists those you may read),"
              + " or ask for one");
    }
  }
}
