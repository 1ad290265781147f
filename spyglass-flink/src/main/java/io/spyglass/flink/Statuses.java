package io.spyglass.flink;

import io.spyglass.core.record.BadRecord;
import io.spyglass.flink.client.JobStatus;
import io.spyglass.sources.BadInput;
import java.util.Collection;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Bad input between the engine's tallies and the job's status messages. */
final class Statuses {
  private Statuses() {}

  /** A status holding only {@code bad} (the rest zero). */
  static JobStatus of(BadInput.Snapshot bad) {
    return status(0, 1, 0, 0, 0, bad, false, null);
  }

  static JobStatus status(
      int subtask,
      int subtasks,
      long timeMs,
      long records,
      int queries,
      BadInput.Snapshot bad,
      boolean ended,
      byte[] sample) {
    Map<String, Long> counts = new LinkedHashMap<>();
    Map<String, List<String>> places = new LinkedHashMap<>();
    for (BadRecord r : BadRecord.values()) {
      Long n = bad.counts().get(r);
      if (n != null) {
        counts.put(r.key(), n);
        places.put(r.key(), bad.places().getOrDefault(r, List.of()));
      }
    }
    return new JobStatus(
        subtask, subtasks, timeMs, records, queries, counts, places, ended, sample);
  }

  /** The bad input of a status; reasons this version does not know are left out. */
  static BadInput.Snapshot bad(JobStatus s) {
    Map<BadRecord, Long> counts = new EnumMap<>(BadRecord.class);
    Map<BadRecord, List<String>> places = new EnumMap<>(BadRecord.class);
    for (BadRecord r : BadRecord.values()) {
      Long n = s.badCounts().get(r.key());
      if (n != null) {
        counts.put(r, n);
        places.put(r, s.badPlaces().getOrDefault(r.key(), List.of()));
      }
    }
    return counts.isEmpty() ? BadInput.Snapshot.EMPTY : new BadInput.Snapshot(counts, places);
  }

  /** The bad input of every subtask's latest status. */
  static BadInput.Snapshot bad(Collection<JobStatus> latest) {
    BadInput.Snapshot sum = BadInput.Snapshot.EMPTY;
    for (JobStatus s : latest) {
      sum = sum.plus(bad(s));
    }
    return sum;
  }
}
