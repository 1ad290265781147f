package io.spyglass.service;

import io.spyglass.service.metering.StandingQueries;

/**
 * What each user may keep on the service: tenancy of ingestion and standing queries, standing
 * queries' bounds, saved queries and history, and the free disk kept under the data folder.
 *
 * @param tenantField the top-level field of a document that names its tenant: a token bound to
 *     tenants ingests only documents whose field holds one of them, and reads only the rows of
 *     standing queries whose column of that name does
 * @param maxStandingQueriesPerUser most standing queries one user (not an admin) defines
 * @param standingQueriesAdminOnly whether only admins define standing queries
 * @param maxStandingGroups most exact groups per window of a standing query
 * @param maxStandingStateBytes most bytes of a standing query's saved state; checked at each
 *     checkpoint, a query over it fails with an error saying so
 * @param maxSavedPerUser most saved queries one user keeps
 * @param maxSavedBytesPerUser most bytes of names and text of one user's saved queries
 * @param maxHistoryPerUser past queries kept per user; older ones are deleted as new ones come
 * @param minFreeDiskBytes free bytes the disk of the data folder keeps: below them, saved queries
 *     are refused (507)
 */
public record UsageLimits(
    String tenantField,
    int maxStandingQueriesPerUser,
    boolean standingQueriesAdminOnly,
    int maxStandingGroups,
    long maxStandingStateBytes,
    int maxSavedPerUser,
    long maxSavedBytesPerUser,
    int maxHistoryPerUser,
    long minFreeDiskBytes) {

  /**
   * Tenants in {@code org}; 10 standing queries per user, anyone may define them, 100,000 exact
   * groups a window and 64 MiB of state each; 1,000 saved queries or 16 MiB per user; 1,000 past
   * queries per user; 256 MiB kept free.
   */
  public static final UsageLimits DEFAULTS =
      new UsageLimits("org", 10, false, 100_000, 64L << 20, 1_000, 16L << 20, 1_000, 256L << 20);

  public UsageLimits {
    require(tenantField != null && !tenantField.isBlank(), "--tenant-field must name a field");
    require(
        maxStandingQueriesPerUser >= 0,
        "--max-standing-queries-per-user must not be negative: " + maxStandingQueriesPerUser);
    require(maxStandingGroups >= 1, "--max-standing-groups must be at least 1");
    require(maxStandingStateBytes >= 1024, "--max-standing-state must be at least 1KiB");
    require(maxSavedPerUser >= 0, "--max-saved-per-user must not be negative");
    require(maxSavedBytesPerUser >= 0, "--max-saved-bytes-per-user must not be negative");
    require(maxHistoryPerUser >= 1, "--max-history-per-user must be at least 1");
    require(minFreeDiskBytes >= 0, "--min-free-disk must not be negative");
  }

  private static void require(boolean ok, String message) {
    if (!ok) {
      throw new IllegalArgumentException(message);
    }
  }

  /** What the standing queries need of these. */
  public StandingQueries.Limits standing() {
    return new StandingQueries.Limits(
        tenantField,
        maxStandingQueriesPerUser,
        standingQueriesAdminOnly,
        maxStandingGroups,
        maxStandingStateBytes);
  }
}
