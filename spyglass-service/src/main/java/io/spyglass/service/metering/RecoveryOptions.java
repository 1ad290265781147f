package io.spyglass.service.metering;

/**
 * How {@code serve} goes on when the data folder shows something was lost ({@code
 * docs/metering.md}, "Recovery"). By default it refuses to start and says what is missing.
 *
 * @param resetStandingQueries start although the standing queries' database has no checkpoint while
 *     the ingest log shows it had some (the database was lost or replaced): the standing queries
 *     start afresh, none defined ({@code --reset-standing-queries})
 * @param acceptMissingIds start although ids files of the ingest log within the id horizon are
 *     missing: repeats of those documents are counted again ({@code --accept-missing-ids})
 */
public record RecoveryOptions(boolean resetStandingQueries, boolean acceptMissingIds) {
  /** Refuse in both cases. */
  public static final RecoveryOptions DEFAULTS = new RecoveryOptions(false, false);
}
