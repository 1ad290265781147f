package io.spyglass.core.partial;

import java.util.List;
import java.util.Map;

/**
 * The mergeable state of one aggregation of one query over one window: fed by the executor, merged
 * with the states of other workers or batches of the same query in any order, encoded with {@link
 * Partials#encode} and turned into result rows.
 *
 * <p>Merging is associative and commutative: exactly for exact states (raw records under their
 * limit, groups under their capacity, sketches not yet in estimation mode), and within the sketch's
 * stated error otherwise. Instances are not thread-safe; confine each to one thread.
 */
public sealed interface Partial
    permits RawPartial,
        GroupPartial,
        CountDistinctPartial,
        DistributionPartial,
        TopKPartial,
        EventTimePartial {

  /** Which state this is; also the kind tag of its encoding. */
  PartialKind kind();

  /**
   * Folds {@code other} into this state; {@code other} is not changed.
   *
   * @throws IllegalArgumentException if {@code other} is not of the same kind with the same
   *     parameters
   */
  void merge(Partial other);

  /** Writes the parameters and the body of this state (not the envelope: see {@link Partials}). */
  void writeTo(PartialWriter out);

  /**
   * The result records: column name to value, values being null, Boolean, Integer, Long, Float,
   * Double, String, {@code Map<String,Object>} or {@code List<Object>}. A new list each call.
   */
  List<Map<String, Object>> rows();

  /**
   * Sketch metadata under Bullet's names in camelCase (see {@link MetadataKeys}); empty for exact
   * states. A new map each call.
   */
  Map<String, Object> metadata();

  /** True when nothing has been added or merged since creation or the last {@link #reset()}. */
  boolean isEmpty();

  /** Empties this state in place, keeping its parameters (a window reset). */
  void reset();

  /** A new empty state with the same parameters. */
  Partial emptyCopy();
}
