package io.spyglass.service.metering;

import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.result.Meta;
import io.spyglass.core.result.Result;
import io.spyglass.core.run.CheckedQuery;
import io.spyglass.sinks.QuerySinks;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;

/**
 * One standing query as it runs, and its window bookkeeping: the results taken from it that no
 * checkpoint has written yet (final windows and late counts, each with its index among the results)
 * beside its open windows, as its listener ({@link StandingActor}) hands them over in order with
 * its checkpoint markers.
 *
 * <p>Confined to the thread that owns the standing queries, but for its volatile fields.
 */
final class StandingQuery {
  static final String ID_PREFIX = "standing-";

  /** A result's content with its index among the query's results (1 for the first). */
  record Indexed<T>(long index, T value) {}

  final StandingStore.Stored stored;

  /** Whether it was started on the runtime (it may have ended since: {@link #ended}). */
  volatile boolean started;

  /** Whether the runtime ended it; {@link #endError} says why. */
  volatile boolean ended;

  /** Why the runtime ended it, or null (see {@link #ended}). */
  volatile String endError;

  /** Whether it was deleted: what still comes from it is dropped. */
  boolean deleted;

  /** The results taken from it (the index of the last). */
  long consumed;

  final TreeMap<Long, WindowUpdate> open = new TreeMap<>();
  final List<Indexed<WindowUpdate>> finals = new ArrayList<>();
  final List<Indexed<WindowUpdate>> late = new ArrayList<>();
  volatile String error;

  /** Where its results go besides its windows; null when nowhere. */
  volatile QuerySinks sinks;

  /**
   * Documents it read without a readable event time (missing, or not a number), as of the last look
   * at it: counted in no window. 0 for a query without event-time windows.
   */
  volatile long withoutTime;

  /** The bytes of its state at the last checkpoint. */
  volatile long stateBytes;

  /** What it runs under: its own limit of exact groups, fixed when it was defined. */
  final QueryLimits limits;

  /** Whether its rows each belong to one tenant, named in a column: see {@link Tenancy}. */
  final boolean tenantColumn;

  /**
   * Its text checked under {@link #limits}, once: what the engine runs; null when it does not
   * compile (a query stored by an older version), then {@link #checkError} says why.
   */
  private final CheckedQuery checked;

  private final RuntimeException checkError;

  /**
   * @param engineLimits the limits of other queries; the query keeps {@link
   *     StandingStore.Stored#maxGroups()} exact groups (those of the engine when null)
   * @param tenantField the field that names a document's tenant
   * @param checked its text checked under those limits already; null to check it here
   */
  StandingQuery(
      StandingStore.Stored stored,
      QueryLimits engineLimits,
      String tenantField,
      CheckedQuery checked) {
    this.stored = stored;
    this.limits =
        stored.maxGroups() == null
            ? engineLimits
            : engineLimits.withMaxExactGroups(stored.maxGroups());
    RuntimeException error = null;
    if (checked == null) {
      try {
        checked = CheckedQuery.check(stored.query(), limits);
      } catch (RuntimeException e) {
        error = e; // it cannot run: it says so
      }
    }
    this.checked = checked;
    this.checkError = error;
    this.tenantColumn = checked != null && Tenancy.hasTenantColumn(checked.plan(), tenantField);
  }

  StandingQuery(StandingStore.Stored stored, QueryLimits engineLimits, String tenantField) {
    this(stored, engineLimits, tenantField, null);
  }

  /**
   * Its checked text, under {@link #limits}.
   *
   * @throws RuntimeException why its text does not compile (a {@code BqlException})
   */
  CheckedQuery checked() {
    if (checked == null) {
      throw checkError;
    }
    return checked;
  }

  String name() {
    return stored.name();
  }

  String owner() {
    return stored.owner();
  }

  /** Its id in the engine. */
  String id() {
    return ID_PREFIX + stored.name();
  }

  /** Whether it runs: started, not ended, not stopped. */
  boolean running() {
    return started && !ended && error == null;
  }

  /** What a look at the query's combiner says of its event time. */
  void saw(Optional<Meta.EventTimeMeta> eventTime) {
    eventTime.ifPresent(e -> withoutTime = Math.max(withoutTime, e.withoutTime()));
  }

  /** Takes its next result, in order. */
  void apply(Result r) {
    if (deleted) {
      return;
    }
    QuerySinks out = sinks;
    if (out != null) {
      out.offer(r); // buffered: delivered on the sinks' threads, again after a replay (same keys)
    }
    saw(r.meta().eventTime());
    long index = ++consumed;
    WindowUpdate w = WindowUpdate.of(r);
    if (w.lateUpdate()) {
      late.add(new Indexed<>(index, w));
    } else if (w.isFinal()) {
      open.remove(w.start());
      finals.add(new Indexed<>(index, w));
    } else {
      open.put(w.start(), w);
    }
  }

  /** The final windows among its first {@code emitted} results, to write. */
  List<StandingStore.Window> finalsUpTo(long emitted) {
    List<StandingStore.Window> out = new ArrayList<>();
    for (Indexed<WindowUpdate> i : finals) {
      if (i.index() <= emitted) {
        WindowUpdate w = i.value();
        out.add(new StandingStore.Window(w.start(), w.end(), w.records(), w.late(), w.error()));
      }
    }
    return out;
  }

  /** The late counts among its first {@code emitted} results, to write. */
  List<StandingStore.Late> lateUpTo(long emitted) {
    List<StandingStore.Late> out = new ArrayList<>();
    for (Indexed<WindowUpdate> i : late) {
      if (i.index() <= emitted) {
        out.add(new StandingStore.Late(stored.name(), i.value().start(), i.value().late()));
      }
    }
    return out;
  }

  /** Forgets the final windows and late counts among its first {@code emitted}: written. */
  void written(long emitted) {
    finals.removeIf(i -> i.index() <= emitted);
    late.removeIf(i -> i.index() <= emitted);
  }
}
