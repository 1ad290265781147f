package io.spyglass.flink.client;

import java.nio.charset.StandardCharsets;

/**
 * Where a standing query starts in a records topic the service writes ({@code serve --runtime flink
 * --kafka HOST:PORT --source http}): the query message goes to the query topic and, in the same
 * Kafka transaction, a start mark to every partition of the records topic, between the documents of
 * the requests committed before and after it. The query counts, in each partition, the documents
 * after its mark: exactly those acknowledged after its definition, however late the job reads the
 * query topic.
 *
 * <ul>
 *   <li>The query message carries the header {@value #PLACED}: {@code N:O0,O1,...}, how many
 *       partitions of the records topic carry its mark and, for each, the end offset the partition
 *       had just before (its mark is there, or after commit markers only). A reader of the job
 *       holds it until each of its records partitions below N has reached the mark (or is past that
 *       offset already: a reader that started after it), and holds each partition at its mark until
 *       then; it then hands the query to its filter and lets the partitions go on.
 *   <li>A start mark is a record with the header {@value #HEADER} whose value is the query
 *       message's place in the query topic, {@code PARTITION:OFFSET}; the record's own value is
 *       empty. A reader that has handed on the query topic past that place passes the mark (a
 *       restore that had already started the query).
 * </ul>
 *
 * @param partition the query message's partition in the query topic
 * @param offset the query message's offset there
 */
public record QueryStart(int partition, long offset) {
  /** The header of a start mark in a records partition. */
  public static final String HEADER = "spyglass-query-start";

  /** The header of a query message that starts at marks. */
  public static final String PLACED = "spyglass-query-placed";

  /** The header's value. */
  public byte[] encode() {
    return (partition + ":" + offset).getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * A start mark's header value.
   *
   * @throws MessageFormatException when it is not {@code PARTITION:OFFSET}
   */
  public static QueryStart parse(byte[] value) {
    String s = value == null ? "" : new String(value, StandardCharsets.US_ASCII);
    int colon = s.indexOf(':');
    try {
      return new QueryStart(
          Integer.parseInt(s.substring(0, colon)), Long.parseLong(s.substring(colon + 1)));
    } catch (RuntimeException e) {
      throw new MessageFormatException("a query start mark is PARTITION:OFFSET, not '" + s + "'");
    }
  }

  /**
   * A placed query message's {@value #PLACED} header: how many partitions carry its marks, and the
   * end offset of each just before (the marks are there or later).
   */
  public record Placed(int partitions, long[] before) {
    public byte[] encode() {
      StringBuilder b = new StringBuilder().append(partitions).append(':');
      for (int p = 0; p < before.length; p++) {
        b.append(p == 0 ? "" : ",").append(before[p]);
      }
      return b.toString().getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * @throws MessageFormatException when it is not {@code N:O0,O1,...} with N offsets
     */
    public static Placed parse(byte[] value) {
      String s = value == null ? "" : new String(value, StandardCharsets.US_ASCII);
      try {
        int colon = s.indexOf(':');
        int n = Integer.parseInt(s.substring(0, colon));
        String[] offsets = s.substring(colon + 1).split(",");
        if (n > 0 && offsets.length == n) {
          long[] before = new long[n];
          for (int p = 0; p < n; p++) {
            before[p] = Long.parseLong(offsets[p]);
          }
          return new Placed(n, before);
        }
      } catch (RuntimeException e) {
        // said below
      }
      throw new MessageFormatException(
          "a placed query names its partitions and their offsets before its marks"
              + " (N:O0,O1,...), not '"
              + s
              + "'");
    }
  }
}
