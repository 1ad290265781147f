package io.spyglass.flink.client;

import io.spyglass.core.partial.PartialFormatException;
import io.spyglass.core.partial.PartialReader;
import io.spyglass.core.partial.PartialWriter;
import io.spyglass.core.partial.ValueCodec;
import io.spyglass.core.record.RawJson;
import io.spyglass.core.result.Meta;
import io.spyglass.core.result.Result;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A message of a result topic, from the job to the instance that submitted the query: keyed by the
 * query id, with the instance in the {@code spyglass-instance} header. Binary, so that results
 * arrive with the exact types the query computed (a FLOAT stays a FLOAT):
 *
 * <pre>
 * magic 'S' 'G' 'R' 'P', version 1 (one byte), kind (one byte), query id (varint length + UTF-8)
 * RUNNING   every filter subtask has the query: records from now on reach it
 * RESULT    a result: records (varint count, each a map in the value format of the partials, or from
 *           version 3 a record kept as its JSON: its bytes and the fields set over it), then
 *           the meta: text, receive time, finish time (flag + 8 bytes), window (flag + number,
 *           name, emit time, start time, size, then from version 2 the event-time window: flag +
 *           end time, final, late, late update), sketch metadata (a map), errors, final, bad input
 *           since the query's previous result (varint count, then reason and count each), then
 *           from version 2 the query's event time (flag + largest time (flag + 8 bytes),
 *           watermark (flag + 8 bytes), late, without time)
 * ENDED     the query ended: flag + error message (a fatal error, or none)
 * REJECTED  the query was refused: error message (invalid BQL, too many queries)
 * PROGRESS  seen, matched, evaluation errors, malformed records since it started (varints)
 * SYNCED    sync number (varint) then progress: every record before that sync mark has reached it
 * OPEN      an open window as a look at it shows it, in the form of a RESULT (answering an
 *           {@code inspect} control message: not a result of the query)
 * INSPECTED the request's number (varint) then progress: the answer to an {@code inspect} control
 *           message, after the open windows it asked for (OPEN replies)
 * SAVED     bytes of the query's state as last written for a checkpoint (varint) then progress
 * </pre>
 *
 * Numbers are little-endian or varints, as in {@link PartialWriter}. Version 2 carries the whole
 * {@link Meta} of a result (version 1 lacked its event-time parts); replies of version 1 are still
 * read. Version 3 is version 2 where a result's records may be kept as their JSON ({@link
 * ValueCodec#writeRecord}): the records of a {@code SELECT *} travel as the bytes the job read,
 * never decoded, and the reader writes them out as they are ({@link
 * io.spyglass.core.result.ResultJson}). A reply is written in version 3 only when it holds such a
 * record, in version 2 otherwise.
 *
 * <p>Version 4 ({@link #encodeEndedTogether}) is one message for several queries that ended with
 * the same records (identical queries that started together): kind RESULT, the first query's id,
 * the records once (as in version 3), then the number of queries (varint) and for each its id, the
 * meta of its result (as above) and its end (as ENDED). {@link #decodeAll} gives each query's
 * RESULT then ENDED; {@link #decode} refuses it.
 */
public record Reply(
    Reply.Kind kind, String queryId, Result result, String error, long sync, Progress progress) {
  private static final byte[] MAGIC = {'S', 'G', 'R', 'P'};
  public static final int VERSION = 3;

  /** The version of a message for several queries that ended together ({@link #decodeAll}). */
  public static final int SHARED_VERSION = 4;

  /** The version of replies that hold no record kept as its JSON. */
  static final int MAP_VERSION = 2;

  /** The oldest version {@link #decode} reads. */
  public static final int OLDEST_VERSION = 1;

  /** What the reply says. */
  public enum Kind {
    RUNNING,
    RESULT,
    ENDED,
    REJECTED,
    PROGRESS,
    SYNCED,
    INSPECTED,
    SAVED,
    OPEN
  }

  /**
   * Counters of one query, summed over the job's filter subtasks.
   *
   * @param seen records offered while the query ran (routed to it or not)
   * @param matched records that passed its filter
   * @param evaluationErrors values that could not be evaluated and were taken as NULL
   * @param malformed records skipped as malformed while the query ran
   */
  public record Progress(long seen, long matched, long evaluationErrors, long malformed) {
    public static final Progress NONE = new Progress(0, 0, 0, 0);

    public Progress plus(Progress o) {
      return new Progress(
          seen + o.seen,
          matched + o.matched,
          evaluationErrors + o.evaluationErrors,
          malformed + o.malformed);
    }
  }

  public Reply {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(queryId, "queryId");
  }

  public static Reply running(String id) {
    return new Reply(Kind.RUNNING, id, null, null, 0, null);
  }

  public static Reply result(String id, Result result) {
    return new Reply(Kind.RESULT, id, Objects.requireNonNull(result), null, 0, null);
  }

  /** The query ended; {@code error} is null unless a fatal error ended it. */
  public static Reply ended(String id, String error) {
    return new Reply(Kind.ENDED, id, null, error, 0, null);
  }

  public static Reply rejected(String id, String error) {
    return new Reply(Kind.REJECTED, id, null, Objects.requireNonNull(error), 0, null);
  }

  public static Reply progress(String id, Progress p) {
    return new Reply(Kind.PROGRESS, id, null, null, 0, Objects.requireNonNull(p));
  }

  public static Reply synced(String id, long sync, Progress p) {
    return new Reply(Kind.SYNCED, id, null, null, sync, Objects.requireNonNull(p));
  }

  /** An open window, as a look at it shows it (answering an {@code inspect} message). */
  public static Reply open(String id, Result result) {
    return new Reply(Kind.OPEN, id, Objects.requireNonNull(result), null, 0, null);
  }

  /** The answer to the {@code inspect} message numbered {@code request}. */
  public static Reply inspected(String id, long request, Progress p) {
    return new Reply(Kind.INSPECTED, id, null, null, request, Objects.requireNonNull(p));
  }

  /** The query's state was written for a checkpoint: {@code bytes} of it. */
  public static Reply saved(String id, long bytes, Progress p) {
    return new Reply(Kind.SAVED, id, null, null, bytes, Objects.requireNonNull(p));
  }

  public byte[] encode() {
    int json = kind == Kind.RESULT || kind == Kind.OPEN ? keptJsonBytes(result) : 0;
    PartialWriter out = new PartialWriter(result == null ? 64 : 512 + json);
    out.writeRaw(MAGIC, 0, MAGIC.length).writeByte(json > 0 ? VERSION : MAP_VERSION);
    out.writeByte(kind.ordinal());
    out.keepJson(json > 0);
    out.writeString(queryId);
    switch (kind) {
      case RESULT, OPEN -> writeResult(out, result);
      case ENDED -> {
        out.writeBoolean(error != null);
        if (error != null) {
          out.writeString(error);
        }
      }
      case REJECTED -> out.writeString(error);
      case PROGRESS -> writeProgress(out, progress);
      case SYNCED, INSPECTED, SAVED -> {
        out.writeVarLong(sync);
        writeProgress(out, progress);
      }
      default -> {}
    }
    return out.toByteArray();
  }

  /**
   * @throws MessageFormatException when the bytes are not a reply of a version from {@value
   *     #OLDEST_VERSION} to {@value #VERSION} (a message of several queries' replies, version
   *     {@value #SHARED_VERSION}, is read by {@link #decodeAll})
   */
  public static Reply decode(byte[] bytes) {
    List<Reply> all = decodeAll(bytes);
    if (all.size() != 1) {
      throw new MessageFormatException(
          "a message of " + all.size() + " replies: read it with Reply.decodeAll");
    }
    return all.get(0);
  }

  /**
   * The replies in a message of the result topic: one, or (version {@value #SHARED_VERSION}) the
   * RESULT then ENDED of each query that ended together with the same records, in order.
   *
   * @throws MessageFormatException when the bytes are not a reply of a version from {@value
   *     #OLDEST_VERSION} to {@value #SHARED_VERSION}
   */
  public static List<Reply> decodeAll(byte[] bytes) {
    if (bytes == null || bytes.length < MAGIC.length + 2) {
      throw new MessageFormatException("not a reply: too short");
    }
    try {
      PartialReader in = new PartialReader(bytes);
      for (byte b : MAGIC) {
        if (in.readByte() != b) {
          throw new MessageFormatException("not a reply: wrong magic bytes");
        }
      }
      int version = in.readByte();
      if (version < OLDEST_VERSION || version > SHARED_VERSION) {
        throw new MessageFormatException(
            "reply version "
                + version
                + " is not supported (supported: "
                + OLDEST_VERSION
                + " to "
                + SHARED_VERSION
                + ")");
      }
      int tag = in.readByte();
      if (tag >= Kind.values().length) {
        throw new MessageFormatException("unknown reply kind " + tag);
      }
      Kind kind = Kind.values()[tag];
      String id = in.readString();
      if (version == SHARED_VERSION) {
        if (kind != Kind.RESULT) {
          throw new MessageFormatException("a shared reply of kind " + kind);
        }
        List<Reply> all = readEndedTogether(in);
        in.requireEnd();
        return all;
      }
      Reply r =
          switch (kind) {
            case RUNNING -> running(id);
            case RESULT -> result(id, readResult(in, id, version));
            case ENDED -> ended(id, in.readBoolean() ? in.readString() : null);
            case REJECTED -> rejected(id, in.readString());
            case PROGRESS -> progress(id, readProgress(in));
            case SYNCED -> synced(id, in.readVarLong(), readProgress(in));
            case INSPECTED -> inspected(id, in.readVarLong(), readProgress(in));
            case SAVED -> saved(id, in.readVarLong(), readProgress(in));
            case OPEN -> open(id, readResult(in, id, version));
          };
      in.requireEnd();
      return List.of(r);
    } catch (PartialFormatException e) {
      throw new MessageFormatException("malformed reply: " + e.getMessage(), e);
    }
  }

  private static void writeProgress(PartialWriter out, Progress p) {
    out.writeVarLong(p.seen()).writeVarLong(p.matched());
    out.writeVarLong(p.evaluationErrors()).writeVarLong(p.malformed());
  }

  private static Progress readProgress(PartialReader in) {
    return new Progress(in.readVarLong(), in.readVarLong(), in.readVarLong(), in.readVarLong());
  }

  /** The bytes of the records of {@code r} kept as their JSON, which go as they are; 0 if none. */
  private static int keptJsonBytes(Result r) {
    int n = 0;
    for (Map<String, Object> row : r.records()) {
      if (row instanceof RawJson j) {
        RawJson.Kept k = j.kept();
        if (k != null) {
          n += k.json().length + 1;
        }
      }
    }
    return n;
  }

  /**
   * One message for queries that ended with the same records (their RESULT replies, each then ended
   * with the error at the same place in {@code errors}, null for none): the records once, each
   * query's meta and end (version {@value #SHARED_VERSION}).
   */
  public static byte[] encodeEndedTogether(List<Reply> results, List<String> errors) {
    if (results.isEmpty() || results.size() != errors.size()) {
      throw new IllegalArgumentException("one error (or null) for each result");
    }
    Result first = results.get(0).result();
    int json = keptJsonBytes(first);
    PartialWriter out = new PartialWriter(512 + json + 256 * results.size());
    out.writeRaw(MAGIC, 0, MAGIC.length).writeByte(SHARED_VERSION);
    out.writeByte(Kind.RESULT.ordinal());
    out.keepJson(true);
    out.writeString(results.get(0).queryId());
    writeRecords(out, first);
    out.writeVarInt(results.size());
    for (int i = 0; i < results.size(); i++) {
      Reply r = results.get(i);
      if (r.kind() != Kind.RESULT) {
        throw new IllegalArgumentException("not a result: " + r.kind());
      }
      out.writeString(r.queryId());
      writeMeta(out, r.result().meta());
      String error = errors.get(i);
      out.writeBoolean(error != null);
      if (error != null) {
        out.writeString(error);
      }
    }
    return out.toByteArray();
  }

  /**
   * The records of a result as a reply writes them (kept JSON as its bytes): equal bytes, equal
   * records, for telling which queries' results can go as one ({@link #encodeEndedTogether}).
   */
  public static byte[] recordBytes(Result r) {
    PartialWriter out = new PartialWriter(256 + keptJsonBytes(r));
    out.keepJson(true);
    writeRecords(out, r);
    return out.toByteArray();
  }

  private static List<Reply> readEndedTogether(PartialReader in) {
    List<Map<String, Object>> rows = readRecords(in, SHARED_VERSION);
    int n = in.readCount(2);
    List<Reply> all = new ArrayList<>(2 * n);
    for (int i = 0; i < n; i++) {
      String id = in.readString();
      // each query its own copy of the list: a reader may change what it is handed
      all.add(result(id, new Result(new ArrayList<>(rows), readMeta(in, id, SHARED_VERSION))));
      all.add(ended(id, in.readBoolean() ? in.readString() : null));
    }
    return all;
  }

  private static void writeResult(PartialWriter out, Result r) {
    writeRecords(out, r);
    writeMeta(out, r.meta());
  }

  private static void writeRecords(PartialWriter out, Result r) {
    out.writeVarInt(r.records().size());
    boolean keepJson = out.keepsJson();
    for (Map<String, Object> row : r.records()) {
      ValueCodec.writeRecord(out, row, keepJson);
    }
  }

  private static void writeMeta(PartialWriter out, Meta m) {
    out.writeString(m.queryText()).writeLong(m.receiveTimeMs());
    writeOptionalLong(out, m.finishTimeMs());
    out.writeBoolean(m.window().isPresent());
    m.window()
        .ifPresent(
            w ->
                out.writeVarLong(w.number())
                    .writeString(w.name())
                    .writeLong(w.emitTimeMs())
                    .writeLong(w.startTimeMs())
                    .writeVarLong(w.size()));
    m.window().ifPresent(w -> writeEventWindow(out, w.eventWindow()));
    ValueCodec.write(out, m.sketch());
    out.writeVarInt(m.errors().size());
    for (Meta.QueryError e : m.errors()) {
      out.writeString(e.message()).writeString(e.resolution()).writeBoolean(e.fatal());
    }
    out.writeBoolean(m.isFinal());
    out.writeVarInt(m.badInput().size());
    for (Map.Entry<String, Long> e : m.badInput().entrySet()) {
      out.writeString(e.getKey()).writeVarLong(e.getValue());
    }
    out.writeBoolean(m.eventTime().isPresent());
    m.eventTime()
        .ifPresent(
            t -> {
              writeOptionalLong(out, t.maxTimeMs());
              writeOptionalLong(out, t.watermarkMs());
              out.writeVarLong(t.late()).writeVarLong(t.withoutTime());
            });
  }

  private static void writeEventWindow(PartialWriter out, Optional<Meta.EventWindow> w) {
    out.writeBoolean(w.isPresent());
    w.ifPresent(
        e ->
            out.writeLong(e.endTimeMs())
                .writeBoolean(e.isFinal())
                .writeVarLong(e.late())
                .writeBoolean(e.lateUpdate()));
  }

  private static Optional<Meta.EventWindow> readEventWindow(PartialReader in) {
    if (!in.readBoolean()) {
      return Optional.empty();
    }
    return Optional.of(
        new Meta.EventWindow(in.readLong(), in.readBoolean(), in.readVarLong(), in.readBoolean()));
  }

  private static void writeOptionalLong(PartialWriter out, Optional<Long> v) {
    out.writeBoolean(v.isPresent());
    v.ifPresent(out::writeLong);
  }

  private static Optional<Long> readOptionalLong(PartialReader in) {
    return in.readBoolean() ? Optional.of(in.readLong()) : Optional.empty();
  }

  private static Result readResult(PartialReader in, String id, int version) {
    List<Map<String, Object>> rows = readRecords(in, version);
    return new Result(rows, readMeta(in, id, version));
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> readRecords(PartialReader in, int version) {
    int n = in.readCount(1);
    List<Map<String, Object>> rows = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      if (version < VERSION) {
        Object row = ValueCodec.read(in);
        if (!(row instanceof Map)) {
          throw new MessageFormatException("a result record is not a map");
        }
        rows.add((Map<String, Object>) row);
      } else {
        // a record kept as its JSON stays so: written out as its bytes, decoded only if read
        rows.add(ValueCodec.readRecord(in));
      }
    }
    return rows;
  }

  @SuppressWarnings("unchecked")
  private static Meta readMeta(PartialReader in, String id, int version) {
    String text = in.readString();
    long receive = in.readLong();
    Optional<Long> finish = readOptionalLong(in);
    Optional<Meta.WindowMeta> window = Optional.empty();
    if (in.readBoolean()) {
      long number = in.readVarLong();
      String name = in.readString();
      long emit = in.readLong();
      long start = in.readLong();
      long size = in.readVarLong();
      Optional<Meta.EventWindow> event = version >= 2 ? readEventWindow(in) : Optional.empty();
      window = Optional.of(new Meta.WindowMeta(number, name, emit, start, size, event));
    }
    Object sketch = ValueCodec.read(in);
    if (!(sketch instanceof Map)) {
      throw new MessageFormatException("the sketch metadata of a result is not a map");
    }
    int errorCount = in.readCount(3);
    List<Meta.QueryError> errors = new ArrayList<>(errorCount);
    for (int i = 0; i < errorCount; i++) {
      errors.add(new Meta.QueryError(in.readString(), in.readString(), in.readBoolean()));
    }
    boolean isFinal = in.readBoolean();
    int badCount = in.readCount(2);
    Map<String, Long> bad = new LinkedHashMap<>();
    for (int i = 0; i < badCount; i++) {
      bad.put(in.readString(), in.readVarLong());
    }
    Optional<Meta.EventTimeMeta> eventTime = Optional.empty();
    if (version >= 2 && in.readBoolean()) {
      eventTime =
          Optional.of(
              new Meta.EventTimeMeta(
                  readOptionalLong(in), readOptionalLong(in), in.readVarLong(), in.readVarLong()));
    }
    return new Meta(
        id,
        text,
        receive,
        finish,
        window,
        (Map<String, Object>) sketch,
        errors,
        isFinal,
        bad,
        eventTime);
  }
}
