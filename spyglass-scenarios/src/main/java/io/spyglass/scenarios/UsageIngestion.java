package io.spyglass.scenarios;

import io.spyglass.engine.source.Source;

/**
 * How metering usage documents reach the engine. Abacus's test posted them to its collector over
 * HTTP; Spyglass has no HTTP ingestion yet, so the scenario feeds them through a {@link Source}. An
 * HTTP path plugs in here: start a server that accepts posted documents, and return a source that
 * hands them to the engine.
 */
enum UsageIngestion {
  /** Documents generated and handed to the engine by a source in the same process. */
  SOURCE {
    @Override
    Source open(UsageDocuments documents) {
      return documents;
    }
  },
  /** Documents posted over HTTP, as Abacus's collector received them: not available yet. */
  HTTP {
    @Override
    Source open(UsageDocuments documents) {
      throw new UnsupportedOperationException(
          "HTTP ingestion of usage documents does not exist yet; use --ingest source");
    }
  };

  abstract Source open(UsageDocuments documents);
}
