package io.spyglass.service.runtime;

import io.spyglass.core.result.Meta;
import io.spyglass.core.result.Result;
import java.util.List;
import java.util.Optional;

/**
 * A look at a running query's merged state ({@link QueryRuntime#inspect}), as of every record read
 * until the look.
 *
 * @param windows its open windows as results, oldest first (not final); empty when not asked for
 * @param eventTime its event time: the watermark and the records read without a readable time
 */
public record OpenWindows(List<Result> windows, Optional<Meta.EventTimeMeta> eventTime) {
  public OpenWindows {
    windows = List.copyOf(windows);
  }
}
