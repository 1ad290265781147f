package io.spyglass.scenarios;

import io.spyglass.sources.RawBatch;
import io.spyglass.sources.Source;

/**
 * Abacus-style usage documents, {@code orgs x instances x docs} of them, made as they are read:
 * {@code {"id", "org", "space", "app", "instance", "resource", "quantity", "time"}}, one resource
 * and an integer quantity each. The source keeps the exact totals of what it emitted, per org and
 * resource, to check the queries' answers against. Bounded: it ends after the last document.
 *
 * <p>Polled from one thread; the totals may be read once the engine has stopped.
 */
final class UsageDocuments implements Source {
  static final String[] RESOURCES = {"memory", "storage", "light_api_calls", "heavy_api_calls"};

  final int orgs;
  final int instances;
  final int docs;
  private final long[] counts;
  private final long[] sums;
  private final long startMs = 1_700_000_000_000L;
  private final StringBuilder sb = new StringBuilder(256);
  private byte[] bytes = new byte[512];
  private long next;
  private volatile boolean closed;

  UsageDocuments(int orgs, int instances, int docs) {
    this.orgs = orgs;
    this.instances = instances;
    this.docs = docs;
    this.counts = new long[orgs * RESOURCES.length];
    this.sums = new long[orgs * RESOURCES.length];
  }

  long total() {
    return (long) orgs * instances * docs;
  }

  static String org(int i) {
    return "org-" + i;
  }

  long expectedCount(int org, int resource) {
    return counts[org * RESOURCES.length + resource];
  }

  long expectedSum(int org, int resource) {
    return sums[org * RESOURCES.length + resource];
  }

  @Override
  public boolean poll(RawBatch batch, int maxRecords, long maxWaitMs) {
    if (closed) {
      return false;
    }
    long total = total();
    for (int n = 0; n < maxRecords && next < total; n++, next++) {
      // document d of instance i of org o, in the order Abacus's test submits them: per org
      int o = (int) (next % orgs);
      long rest = next / orgs;
      int i = (int) (rest % instances);
      int d = (int) (rest / instances);
      int resource = (int) ((o * 7L + i * 3L + d) % RESOURCES.length);
      long quantity = 1 + Math.floorMod(next * 2_654_435_761L >>> 7, 1_000L);
      counts[o * RESOURCES.length + resource]++;
      sums[o * RESOURCES.length + resource] += quantity;
      sb.setLength(0);
      sb.append("{\"id\":\"u")
          .append(next)
          .append("\",\"org\":\"org-")
          .append(o)
          .append("\",\"space\":\"space-")
          .append(o)
          .append('-')
          .append(i % 2)
          .append("\",\"app\":\"app-")
          .append(o)
          .append('-')
          .append(i)
          .append("\",\"instance\":\"inst-")
          .append(o)
          .append('-')
          .append(i)
          .append("\",\"resource\":\"")
          .append(RESOURCES[resource])
          .append("\",\"quantity\":")
          .append(quantity)
          .append(",\"time\":")
          .append(startMs + next)
          .append(",\"doc\":")
          .append(d)
          .append('}');
      int len = sb.length();
      if (bytes.length < len) {
        bytes = new byte[len * 2];
      }
      for (int k = 0; k < len; k++) {
        bytes[k] = (byte) sb.charAt(k);
      }
      batch.add(bytes, 0, len);
    }
    return next < total;
  }

  @Override
  public String describe() {
    return "usage?orgs=" + orgs + "&instances=" + instances + "&docs=" + docs;
  }

  @Override
  public void close() {
    closed = true;
  }
}
