package io.spyglass.flink;

import io.spyglass.core.partial.PartialFormatException;
import io.spyglass.core.partial.PartialReader;
import io.spyglass.core.partial.PartialWriter;
import io.spyglass.flink.client.ControlMessage;
import io.spyglass.flink.client.Reply;
import io.spyglass.sources.BadInput;
import java.util.BitSet;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;

/**
 * The format of a query's state in the combiner's checkpoints and savepoints (keyed state {@code
 * spyglass-query}): {@link #encode} writes a {@link CombinerQuery}, {@link #decode} reads it back.
 */
final class CombinerState {
  private CombinerState() {}

  /** Each query's state (keyed by its id): {@link #VERSION}'s format, see {@link #encode}. */
  static final ValueStateDescriptor<byte[]> DESCRIPTOR =
      new ValueStateDescriptor<>(
          "spyglass-query", PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO);

  /**
   * The version of a query's state in checkpoints and savepoints; golden files in the tests hold it
   * (state/combiner-state-v3*.hex, and those of the versions before), and docs/flink.md names it.
   * Version 2 is version 1 where the partials of a raw query (its window, the partials waiting) may
   * hold records as their JSON (partial format 2); version 3 is version 2 with the query's message
   * packed ({@link QueryMessages}: about a sixth of its JSON, which was most of a query's state).
   * States of versions 1 and 2 are read too.
   */
  static final int VERSION = 3;

  /** The oldest version of a query's state this job restores. */
  static final int OLDEST_VERSION = 1;

  /**
   * A query's state, version {@value #VERSION} (in the core's partial writer's encoding: varints,
   * little-endian longs, byte strings with their length first): the version (a byte), the query's
   * message (packed, {@link QueryMessages}; JSON in versions 1 and 2), the subtasks, the subtasks
   * that started it and those finishing it (bit sets: a count of longs, the longs), whether RUNNING
   * was sent, whether it ended, its fatal error (a flag, the text), when it is forgotten (epoch
   * ms), its combiner's snapshot ({@code SGQC}, a flag first), each subtask's counters (seen,
   * matched, evaluation errors, malformed), the subtasks of the counters' current round, the sync
   * marks in flight (mark, partitions seen) and, with clock marks, the partials waiting for the
   * watermark (time, partial {@code SGPS}).
   */
  static byte[] encode(CombinerQuery a) {
    PartialWriter out = new PartialWriter(256);
    out.writeByte(VERSION);
    out.writeBytes(a.packedMessage());
    out.writeVarInt(a.subtasks);
    writeBits(out, a.started);
    writeBits(out, a.finishing);
    out.writeBoolean(a.runningSent).writeBoolean(a.ended);
    out.writeBoolean(a.fatalError != null);
    if (a.fatalError != null) {
      out.writeString(a.fatalError);
    }
    out.writeLong(a.forgetAtMs);
    out.writeBoolean(a.combiner != null);
    if (a.combiner != null) {
      out.writeBytes(a.combiner.snapshot(true)); // records of SELECT * as their JSON
    }
    out.writeVarInt(a.stats.length);
    for (Reply.Progress p : a.stats) {
      Reply.Progress q = p == null ? Reply.Progress.NONE : p;
      out.writeVarLong(q.seen()).writeVarLong(q.matched());
      out.writeVarLong(q.evaluationErrors()).writeVarLong(q.malformed());
    }
    writeBits(out, a.statsRound);
    out.writeVarInt(a.syncs.size());
    a.syncs.forEach((s, n) -> out.writeVarLong(s).writeVarInt(n));
    out.writeVarInt(a.pending.size());
    for (CombinerQuery.Pending p : a.pending) {
      out.writeLong(p.timeMs()).writeBytes(p.partial());
    }
    return out.toByteArray();
  }

  /** A query's state as {@link #encode} wrote it (or versions 1 and 2), its combiner restored. */
  static CombinerQuery decode(byte[] bytes, CombinerQuery.Host host) {
    PartialReader in = new PartialReader(bytes);
    int version = in.readByte();
    if (version < OLDEST_VERSION || version > VERSION) {
      throw new PartialFormatException(
          "a query's combiner state is of version "
              + version
              + ", this job reads versions "
              + OLDEST_VERSION
              + " to "
              + VERSION
              + ": restore the checkpoint or savepoint with the version of the job that wrote it");
    }
    byte[] message = in.readBytes();
    CombinerQuery a =
        new CombinerQuery(
            host,
            ControlMessage.parse(version >= 3 ? QueryMessages.unpack(message) : message),
            null);
    a.subtasks = in.readVarInt();
    readBits(in, a.started);
    // the filters count bad input again from zero after a restore, as does this operator
    a.started.stream().forEach(i -> a.badBase.put(i, BadInput.Snapshot.EMPTY));
    readBits(in, a.finishing);
    a.runningSent = in.readBoolean();
    a.ended = in.readBoolean();
    a.fatalError = in.readBoolean() ? in.readString() : null;
    a.forgetAtMs = in.readLong();
    if (in.readBoolean()) {
      a.query = CombinerQuery.parse(a.message);
      a.combiner = a.restoreCombiner(in.readBytes());
    }
    int n = in.readCount(4);
    a.stats = new Reply.Progress[n];
    for (int i = 0; i < n; i++) {
      a.stats[i] =
          new Reply.Progress(
              in.readVarLong(), in.readVarLong(), in.readVarLong(), in.readVarLong());
    }
    readBits(in, a.statsRound);
    int syncs = in.readCount(2);
    for (int i = 0; i < syncs; i++) {
      a.syncs.put(in.readVarLong(), in.readVarInt());
    }
    int pending = in.readCount(9);
    for (int i = 0; i < pending; i++) {
      a.pending.add(new CombinerQuery.Pending(in.readLong(), in.readBytes()));
    }
    in.requireEnd();
    return a;
  }

  private static void writeBits(PartialWriter out, BitSet bits) {
    long[] words = bits.toLongArray();
    out.writeVarInt(words.length);
    for (long w : words) {
      out.writeLong(w);
    }
  }

  private static void readBits(PartialReader in, BitSet into) {
    int n = in.readCount(8);
    long[] words = new long[n];
    for (int i = 0; i < n; i++) {
      words[i] = in.readLong();
    }
    into.or(BitSet.valueOf(words));
  }
}
