package io.spyglass.flink;

/**
 * What a filter subtask sends the combiner of one query (the stream is keyed by {@link #queryId}).
 * A Flink POJO. Partials travel in the core's versioned binary format, never as Java objects.
 */
public class FilterMessage {
  /** The subtask installed the query; {@link #payload} is its query message (JSON). */
  public static final byte START = 1;

  /**
   * A partial result; {@link #payload} is the encoded partial. With {@link #sharers}, the partial
   * of every query it names as well: identical queries that started together share one.
   */
  public static final byte PARTIAL = 2;

  /** The query was killed. */
  public static final byte KILL = 3;

  /** The subtask flushed the query and ends it there; the query finishes once all have. */
  public static final byte FINISH = 4;

  /** The subtask refused the query; {@link #payload} is its query message, {@link #error} why. */
  public static final byte REJECTED = 5;

  /** Counters of the query in the subtask. */
  public static final byte STATS = 6;

  /**
   * A sync mark reached the subtask through one partition, after the records before it; {@link
   * #tick} when it is a tick mark.
   */
  public static final byte SYNC = 7;

  /**
   * The subtask's count of bad input since it started ({@link #payload}: a job status holding it),
   * to every combiner subtask.
   */
  public static final byte BAD = 8;

  /**
   * What the subtask has read ({@link #payload}: its {@link io.spyglass.flink.client.JobStatus}),
   * for the status topic; keyed apart from every query ({@link #STATUS_KEY} and the subtask), so
   * that it reaches the status topic through the combiner's sink.
   */
  public static final byte STATUS = 9;

  /**
   * An {@code inspect} control message passed on, after the subtask's partial of the query ({@link
   * #payload}: the message); the combiner answers once every subtask has.
   */
  public static final byte INSPECT = 10;

  /** The key of a subtask's {@link #STATUS}: no query id starts with a NUL. */
  static final String STATUS_KEY = "\u0000status-";

  public byte kind;
  public String queryId;
  public int subtask;
  public int subtasks;

  /** The sending subtask's clock when it sent this, epoch ms. */
  public long clockMs;

  public byte[] payload;
  public String error;
  public long seen;
  public long matched;
  public long errors;
  public long malformed;
  public long sync;
  public int partitions;
  public boolean tick;

  /**
   * Of a {@link #PARTIAL}: the other queries whose partial it is too (identical queries that share
   * one filter), all combined by the same combiner subtask as {@link #queryId}; null for none.
   */
  public String[] sharers;

  public FilterMessage() {}

  static FilterMessage of(byte kind, String queryId, int subtask, int subtasks, byte[] payload) {
    FilterMessage m = new FilterMessage();
    m.kind = kind;
    m.queryId = queryId;
    m.subtask = subtask;
    m.subtasks = subtasks;
    m.payload = payload;
    return m;
  }
}
