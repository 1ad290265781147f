/**
 * Mergeable aggregation states ("partials"): fed by the executor, merged in any order, encoded to a
 * versioned binary form ({@link io.spyglass.core.partial.Partials}) and turned into result rows and
 * sketch metadata. Imports only the plan and record packages.
 */
package io.spyglass.core.partial;
