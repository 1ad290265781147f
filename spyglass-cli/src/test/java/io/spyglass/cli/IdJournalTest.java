package io.spyglass.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spyglass.engine.ingest.IdIndex;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journal of the ids written to Kafka, on real files: committed groups' ids come back at the
 * opening, aborted ones' do not, a group without its outcome comes back unresolved, a group torn at
 * the end is cut off, a damaged file before the last stops the opening, and files past the horizon
 * go with their ids.
 */
class IdJournalTest {
  static final long T = 1_767_225_600_000L;

  @TempDir Path dir;

  static IdJournal.Group group(long number, long ms, String... ids) {
    long[] h = new long[2 * ids.length];
    for (int i = 0; i < ids.length; i++) {
      long[] x = IdIndex.hash(ids[i]);
      h[2 * i] = x[0];
      h[2 * i + 1] = x[1];
    }
    return new IdJournal.Group(number, 1, 100 + number, ms, h);
  }

  static long seen(IdIndex ids, String id) {
    long[] h = IdIndex.hash(id);
    return ids.get(h[0], h[1]);
  }

  List<Path> files() throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.sorted().toList();
    }
  }

  @Test
  void committedIdsComeBackAbortedOnesDoNotUnresolvedOnesAreReturned() throws Exception {
    IdJournal.Opened o = IdJournal.open(dir, new IdIndex(), 0);
    assertThat(o.unresolved()).isEmpty();
    try (IdJournal j = o.journal()) {
      j.pending(group(0, T, "a", "b"));
      j.resolved(0, true);
      j.pending(group(1, T + 1, "c"));
      j.resolved(1, false);
      j.pending(group(2, T + 2, "d")); // its outcome never written
      assertThat(j.nextNumber()).isEqualTo(3);
    }
    IdIndex ids = new IdIndex();
    IdJournal.Opened again = IdJournal.open(dir, ids, 0);
    try (IdJournal j = again.journal()) {
      assertThat(seen(ids, "a")).isEqualTo(T);
      assertThat(seen(ids, "b")).isEqualTo(T);
      assertThat(seen(ids, "c")).as("aborted").isEqualTo(-1);
      assertThat(seen(ids, "d")).as("unresolved").isEqualTo(-1);
      assertThat(again.unresolved()).extracting(IdJournal.Group::number).containsExactly(2L);
      assertThat(again.unresolved().get(0).offset()).isEqualTo(102);
      assertThat(j.nextNumber()).isEqualTo(3);
      j.resolved(2, true);
    }
    IdIndex third = new IdIndex();
    assertThat(IdJournal.open(dir, third, 0).unresolved()).isEmpty();
    assertThat(seen(third, "d")).as("its outcome written after the opening").isEqualTo(T + 2);
    // ids older than the horizon are not kept in memory
    IdIndex recent = new IdIndex();
    IdJournal.open(dir, recent, T + 1).journal().close();
    assertThat(seen(recent, "a")).isEqualTo(-1);
    assertThat(seen(recent, "d")).isEqualTo(T + 2);
  }

  @Test
  void aGroupTornAtTheEndIsCutOffAndTheJournalGoesOn() throws Exception {
    try (IdJournal j = IdJournal.open(dir, new IdIndex(), 0).journal()) {
      j.pending(group(0, T, "a"));
      j.resolved(0, true);
      j.pending(group(1, T, "b", "c"));
    }
    Path file = files().get(0);
    long size = Files.size(file);
    try (FileChannel c = FileChannel.open(file, StandardOpenOption.WRITE)) {
      c.truncate(size - 10); // the process died while the group was forced
    }
    IdIndex ids = new IdIndex();
    IdJournal.Opened o = IdJournal.open(dir, ids, 0);
    try (IdJournal j = o.journal()) {
      assertThat(o.unresolved()).isEmpty();
      assertThat(seen(ids, "a")).isEqualTo(T);
      assertThat(seen(ids, "b")).isEqualTo(-1);
      j.pending(group(j.nextNumber(), T + 5, "b"));
      j.resolved(1, true);
    }
    IdIndex after = new IdIndex();
    IdJournal.open(dir, after, 0).journal().close();
    assertThat(seen(after, "b")).isEqualTo(T + 5);
    assertThat(seen(after, "c")).isEqualTo(-1);
  }

  @Test
  void filesRollHourlyAndGoWithTheirIdsPastTheHorizon() throws Exception {
    IdIndex ids = new IdIndex();
    try (IdJournal j = IdJournal.open(dir, ids, 0).journal()) {
      j.pending(group(0, T, "old"));
      j.resolved(0, true);
      IdJournal.put(group(0, T, "old"), ids);
      j.pending(group(1, T + IdJournal.ROLL_MS, "new"));
      j.resolved(1, true);
      IdJournal.put(group(1, T + IdJournal.ROLL_MS, "new"), ids);
      assertThat(files()).hasSize(2);
      assertThat(j.retire(T, ids)).as("not yet past").isZero();
      assertThat(j.retire(T + 1, ids)).isEqualTo(1);
      assertThat(seen(ids, "old")).isEqualTo(-1);
      assertThat(seen(ids, "new")).isEqualTo(T + IdJournal.ROLL_MS);
      assertThat(j.retire(Long.MAX_VALUE, ids)).as("the current file stays").isZero();
    }
    assertThat(files()).hasSize(1);
  }

  @Test
  void aDamagedFileBeforeTheLastStopsTheOpening() throws Exception {
    try (IdJournal j = IdJournal.open(dir, new IdIndex(), 0).journal()) {
      j.pending(group(0, T, "a"));
      j.resolved(0, true);
      j.pending(group(1, T + IdJournal.ROLL_MS, "b"));
    }
    Path first = files().get(0);
    byte[] b = Files.readAllBytes(first);
    b[12] ^= 1;
    Files.write(first, b);
    assertThatThrownBy(() -> IdJournal.open(dir, new IdIndex(), 0))
        .isInstanceOf(IOException.class)
        .hasMessageContaining(first.toString())
        .hasMessageContaining("move it away");
  }
}
