package io.spyglass.core.query;

import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * The filters of a {@link FilterSet} by their query's id: open addressing with linear probing over
 * the filters themselves (each filter's key is its query's id), with deletion by backward shift.
 * Every worker keeps one filter for each query, so the table keeps no entry object for each of ten
 * thousand: a slot or two of an array. Iterates in no particular order. Not thread-safe.
 */
final class FilterTable implements Iterable<QueryFilter> {
  private QueryFilter[] slots = new QueryFilter[16];
  private int size;

  int size() {
    return size;
  }

  /** The filter of query {@code id}, or null. */
  QueryFilter get(String id) {
    QueryFilter[] s = slots;
    int mask = s.length - 1;
    for (int i = home(id, mask); ; i = (i + 1) & mask) {
      QueryFilter f = s[i];
      if (f == null || f.query.id().equals(id)) {
        return f;
      }
    }
  }

  /** Files {@code f} under its query's id, in place of any filter filed there. */
  void put(QueryFilter f) {
    if ((size + 1) * 2 > slots.length) {
      grow();
    }
    String id = f.query.id();
    int mask = slots.length - 1;
    int i = home(id, mask);
    while (slots[i] != null) {
      if (slots[i].query.id().equals(id)) {
        slots[i] = f;
        return;
      }
      i = (i + 1) & mask;
    }
    slots[i] = f;
    size++;
  }

  /** Removes and returns the filter of query {@code id}, or null when there is none. */
  QueryFilter remove(String id) {
    QueryFilter[] s = slots;
    int mask = s.length - 1;
    int i = home(id, mask);
    while (s[i] != null && !s[i].query.id().equals(id)) {
      i = (i + 1) & mask;
    }
    QueryFilter removed = s[i];
    if (removed == null) {
      return null;
    }
    size--;
    // backward shift: move later filters of the run into the hole when their home allows it
    int hole = i;
    for (int j = (i + 1) & mask; s[j] != null; j = (j + 1) & mask) {
      int home = home(s[j].query.id(), mask);
      if (((j - home) & mask) >= ((j - hole) & mask)) {
        s[hole] = s[j];
        hole = j;
      }
    }
    s[hole] = null;
    return removed;
  }

  private void grow() {
    QueryFilter[] old = slots;
    slots = new QueryFilter[old.length * 2];
    int mask = slots.length - 1;
    for (QueryFilter f : old) {
      if (f != null) {
        int i = home(f.query.id(), mask);
        while (slots[i] != null) {
          i = (i + 1) & mask;
        }
        slots[i] = f;
      }
    }
  }

  private static int home(String id, int mask) {
    int x = id.hashCode() * 0x9E3779B9;
    return (x ^ (x >>> 16)) & mask;
  }

  @Override
  public Iterator<QueryFilter> iterator() {
    QueryFilter[] s = slots;
    return new Iterator<>() {
      private int i = advance(0);

      private int advance(int from) {
        while (from < s.length && s[from] == null) {
          from++;
        }
        return from;
      }

      @Override
      public boolean hasNext() {
        return i < s.length;
      }

      @Override
      public QueryFilter next() {
        if (i >= s.length) {
          throw new NoSuchElementException();
        }
        QueryFilter f = s[i];
        i = advance(i + 1);
        return f;
      }
    };
  }
}
