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
 *   <li>The query message carries the header {@value #PLACED} (its value: how many partitions of
 *       the records topic carry its mark, decimal). A reader of the job holds it until each of its
 *       records partitions below that number has reached the mark, and holds each partition at its
 *       mark until then; it then hands the query to its filter and lets the partitions go on.
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
   * The number of partitions a placed query message's {@value #PLACED} header names.
   *
   * @throws MessageFormatException when it is not a positive number
   */
  public static int partitions(byte[] value) {
    String s = value == null ? "" : new String(value, StandardCharsets.US_ASCII);
    try {
      int n = Integer.parseInt(s);
      if (n > 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // said below
    }
    throw new MessageFormatException(
        "a placed query names how many partitions carry its mark, not '" + s + "'");
  }
}
