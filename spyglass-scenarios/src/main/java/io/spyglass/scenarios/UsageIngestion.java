package io.spyglass.scenarios;

import io.spyglass.sources.Source;

/**
 * How metering usage documents reach the engine: through a {@link Source} in the same process, or
 * POSTed over HTTP to a real service, as Abacus's test posted them to its collector (see {@link
 * HttpMetering}, which runs that case).
 */
enum UsageIngestion {
  /** Documents generated and handed to the engine by a source in the same process. */
  SOURCE {
    @Override
    Source open(UsageDocuments documents) {
      return documents;
    }
  },
  /** Documents POSTed to {@code /api/ingest}: the service's ingest log is the engine's source. */
  HTTP {
    @Override
    Source open(UsageDocuments documents) {
      throw new UnsupportedOperationException("over HTTP the service reads its ingest log");
    }
  };

  abstract Source open(UsageDocuments documents);
}
