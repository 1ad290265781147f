package io.spyglass.core.query;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * The statistics of every query of a {@link FilterSet}, by query id, as {@link FilterSet#stats()}
 * hands them out: the arrays are never changed once the snapshot has them, so it is safe to read
 * from other threads. Each query's {@link QueryStats} is made only when read.
 */
final class StatsSnapshot extends AbstractMap<String, QueryStats> {
  private final String[] ids;
  private final long[] bases;
  private final long processed;
  private final long[] matched;
  private final long[] errors;

  /**
   * Index by id, made on the first {@link #get}: open addressing over {@link #ids}, each slot the
   * position of an id plus one, 0 when empty (no entry and no boxed position for each of ten
   * thousand queries).
   */
  private int[] index;

  StatsSnapshot(String[] ids, long[] bases, long processed, long[] matched, long[] errors) {
    this.ids = ids;
    this.bases = bases;
    this.processed = processed;
    this.matched = matched;
    this.errors = errors;
  }

  @Override
  public QueryStats get(Object id) {
    int[] at = index;
    if (at == null) {
      at = new int[Integer.highestOneBit(Math.max(4, ids.length * 2 - 1)) << 1];
      int mask = at.length - 1;
      for (int i = 0; i < ids.length; i++) {
        int k = home(ids[i], mask);
        while (at[k] != 0) {
          k = (k + 1) & mask;
        }
        at[k] = i + 1;
      }
      index = at; // a racing reader builds its own: the same table
    }
    if (!(id instanceof String)) {
      return null;
    }
    int mask = at.length - 1;
    for (int k = home((String) id, mask); at[k] != 0; k = (k + 1) & mask) {
      if (ids[at[k] - 1].equals(id)) {
        return stats(at[k] - 1);
      }
    }
    return null;
  }

  private static int home(String id, int mask) {
    int x = id.hashCode() * 0x9E3779B9;
    return (x ^ (x >>> 16)) & mask;
  }

  private QueryStats stats(int i) {
    return new QueryStats(processed - bases[i], matched[i], errors[i]);
  }

  @Override
  public boolean containsKey(Object id) {
    return get(id) != null;
  }

  @Override
  public Set<Entry<String, QueryStats>> entrySet() {
    return new AbstractSet<>() {
      @Override
      public Iterator<Entry<String, QueryStats>> iterator() {
        return new Iterator<>() {
          private int i;

          @Override
          public boolean hasNext() {
            return i < ids.length;
          }

          @Override
          public Entry<String, QueryStats> next() {
            if (i >= ids.length) {
              throw new NoSuchElementException();
            }
            int at = i++;
            return Map.entry(ids[at], stats(at));
          }
        };
      }

      @Override
      public int size() {
        return ids.length;
      }
    };
  }
}
