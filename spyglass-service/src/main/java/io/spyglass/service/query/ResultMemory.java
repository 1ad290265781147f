package io.spyglass.service.query;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The memory taken by the results the service keeps, within {@link ResultLimits}: every query's
 * {@link ResultLog} counts its bytes on its owner's {@link Account}, running and ended queries
 * alike, and so do the answers of {@code POST /api/query} while they are gathered.
 *
 * <p>A running raw query holds its records in the engine until it emits them: it counts its {@code
 * LIMIT} times the stream's mean record size on its owner's share while it runs (see {@link
 * #admit}).
 *
 * <p>When a result needs room beyond its owner's share, or beyond the budget of all, room is made
 * in this order: the results of ended queries are forgotten, the longest ended first (they were
 * kept for late readers, and are the first to go, as a cache's oldest entries); then the older
 * results of running queries are dropped, the biggest logs first, each keeping its newest (a stream
 * that had not read them falls behind; the query whose result comes may give up its newest, which
 * the new one replaces). When that is not enough, the result is cut to the room left (see {@link
 * ResultEncoder}), down to its metadata. A new query needs room for what it holds and for one
 * result at the size limit, made the same way (its owner's oldest kept results go first); a user
 * whose running queries' newest results and holds fill their share gets no new query ({@code 429}),
 * as a budget full of everyone's refuses everyone's: the service refuses work it could not keep
 * rather than drop what is being read.
 *
 * <p>Thread-safe: accounts are counted without a lock; making room takes this object's lock, then a
 * log's, never the other way round.
 */
public final class ResultMemory {
  private final ResultLimits limits;
  private final Collection<ServiceQuery> queries;
  private final Consumer<ServiceQuery> forget;
  private final AtomicLong used = new AtomicLong();
  private final Map<String, Account> accounts = new ConcurrentHashMap<>();

  /** One user's share: the bytes of their kept results. */
  public final class Account implements ResultLog.Meter {
    private final AtomicLong bytes = new AtomicLong();

    @Override
    public void add(long delta) {
      bytes.addAndGet(delta);
      used.addAndGet(delta);
    }

    public long used() {
      return bytes.get();
    }
  }

  /**
   * @param queries the service's queries, running and ended but not yet forgotten (a live view)
   * @param forget forgets an ended query: removes it from {@code queries} and releases its log
   */
  ResultMemory(
      ResultLimits limits, Collection<ServiceQuery> queries, Consumer<ServiceQuery> forget) {
    this.limits = limits;
    this.queries = queries;
    this.forget = forget;
  }

  public ResultLimits limits() {
    return limits;
  }

  public Account account(String user) {
    return accounts.computeIfAbsent(user, u -> new Account());
  }

  /** Bytes of results kept now, over all users. */
  public long used() {
    return used.get();
  }

  /** Bytes of {@code user}'s results kept now. */
  public long used(String user) {
    Account a = accounts.get(user);
    return a == null ? 0 : a.used();
  }

  /**
   * Makes room for {@code bytes} more of {@code owner}'s results, for the query {@code self} (null
   * for none), by forgetting ended queries and then dropping older results of running ones ({@code
   * self}'s newest too: the new result takes its place); returns the bytes that may be added now:
   * {@code bytes} when there is room, less (maybe 0) when the owner's share or the budget is full
   * of other running queries' newest results.
   */
  public synchronized long makeRoom(String owner, long bytes, ServiceQuery self) {
    Account mine = account(owner);
    free(owner, mine.used() + bytes - limits.maxBytesPerUser(), self);
    free(null, used() + bytes - limits.maxBytes(), self);
    long room = Math.min(limits.maxBytesPerUser() - mine.used(), limits.maxBytes() - used());
    return Math.max(0, Math.min(bytes, room));
  }

  /** Frees {@code want} bytes of {@code owner}'s (or anyone's) results; returns what is left. */
  private long free(String owner, long want, ServiceQuery self) {
    if (want > 0) {
      want -= forgetEnded(owner, want);
    }
    if (want > 0) {
      want -= trimRunning(owner, want, self);
    }
    return want;
  }

  /**
   * Counts {@code bytes} on {@code owner}'s share if there is room for them (made as {@link
   * #makeRoom} does); false, counting nothing, when there is not.
   */
  public synchronized boolean reserve(String owner, long bytes) {
    if (makeRoom(owner, bytes, null) < bytes) {
      return false;
    }
    account(owner).add(bytes);
    return true;
  }

  /** Gives back bytes counted by {@link #reserve}. */
  public void free(String owner, long bytes) {
    release(owner, bytes);
  }

  /**
   * Admits a query of {@code owner}'s that holds about {@code hold} bytes of records while it runs
   * (a raw query's records, until it emits them; 0 for others): room is made for that, and for one
   * result at the size limit, as for a result ({@link #makeRoom}), and {@code hold} is counted on
   * their share until {@link #release}d. Returns null when admitted, else the limit that refuses
   * it: their running queries' newest results and holds fill their share, or everyone's fill the
   * budget.
   */
  public synchronized String admit(String owner, long hold) {
    long need = Math.max(hold, ResultLog.cost(limits.maxResultBytes()));
    if (free(owner, account(owner).used() + need - limits.maxBytesPerUser(), null) > 0) {
      return "max-result-memory-per-user";
    }
    if (free(null, used() + need - limits.maxBytes(), null) > 0) {
      return "max-result-memory";
    }
    account(owner).add(hold);
    return null;
  }

  /** Gives back what {@link #admit} counted for a query that no longer holds its records. */
  public void release(String owner, long hold) {
    account(owner).add(-hold);
  }

  /** Why a result over {@link ResultLimits#maxResultBytes()} is cut. */
  ResultEncoder.Cut tooLarge() {
    return new ResultEncoder.Cut(
        "its JSON was over the service's limit of "
            + ResultLimits.size(limits.maxResultBytes())
            + " a result",
        "Ask for fewer or smaller records: select the fields you need, a lower LIMIT, a narrower"
            + " WHERE or a shorter window; the operator can raise --max-result-size");
  }

  /** Why a result of {@code owner}'s that got less room than it needed is cut. */
  ResultEncoder.Cut full(String owner) {
    if (limits.maxBytesPerUser() - used(owner) <= limits.maxBytes() - used()) {
      return new ResultEncoder.Cut(
          "the results kept for your queries filled your share of the service's memory ("
              + ResultLimits.size(limits.maxBytesPerUser())
              + ")",
          "Stop queries you no longer read (DELETE /api/queries/{id}) or ask for smaller"
              + " results; the operator can raise --max-result-memory-per-user");
    }
    return new ResultEncoder.Cut(
        "the results kept for every user's queries filled the service's result memory ("
            + ResultLimits.size(limits.maxBytes())
            + ")",
        "Ask for smaller results, or retry later; the operator can raise --max-result-memory");
  }

  /** Forgets ended queries (of {@code owner}, or anyone's), the longest ended first. */
  private long forgetEnded(String owner, long want) {
    List<ServiceQuery> ended = new ArrayList<>();
    for (ServiceQuery q : queries) {
      if (!q.isRunning() && (owner == null || q.owner().equals(owner))) {
        ended.add(q);
      }
    }
    ended.sort(Comparator.comparingLong(ServiceQuery::endedMs));
    long freed = 0;
    for (ServiceQuery q : ended) {
      if (freed >= want) {
        break;
      }
      long before = q.log().keptBytes();
      forget.accept(q);
      freed += before;
    }
    return freed;
  }

  /**
   * Drops older results of running queries (of {@code owner}, or anyone's), the biggest logs first,
   * each keeping its newest but {@code self}, whose next result is coming.
   */
  private long trimRunning(String owner, long want, ServiceQuery self) {
    List<ServiceQuery> running = new ArrayList<>();
    for (ServiceQuery q : queries) {
      if (q.isRunning()
          && (owner == null || q.owner().equals(owner))
          && (q == self ? q.log().keptBytes() > 0 : q.log().keptBytes() > q.log().newestBytes())) {
        running.add(q);
      }
    }
    running.sort(Comparator.comparingLong((ServiceQuery q) -> q.log().keptBytes()).reversed());
    long freed = 0;
    for (ServiceQuery q : running) {
      if (freed >= want) {
        break;
      }
      freed += q.log().trimOldest(want - freed, q == self ? 0 : 1);
    }
    return freed;
  }
}
