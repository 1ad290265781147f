package io.spyglass.service.runtime;

import java.util.Set;

/**
 * A checkpoint taken ({@link QueryRuntime#checkpoint}): where the stream was cut, and the queries
 * whose state was taken there. Each of them gets a {@link CheckpointMarker} of this checkpoint in
 * its result stream (unless it ends before its listener reaches the marker).
 *
 * @param checkpoint its number in this runtime (1 for the first)
 * @param position the source's position at the cut; -1 for a source that has none
 * @param saved the ids of the queries whose state was taken: those asked for that still ran, and
 *     those started at the cut
 */
public record CheckpointCut(long checkpoint, long position, Set<String> saved) {
  public CheckpointCut {
    saved = Set.copyOf(saved);
  }
}
