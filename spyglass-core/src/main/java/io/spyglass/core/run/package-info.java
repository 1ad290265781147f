/**
 * Running a query, whatever the runtime: the {@link io.spyglass.core.run.CheckedQuery} a runtime
 * takes (compiled once, with its limits), the {@link io.spyglass.core.run.RunningQuery} it hands
 * back, and the result queue both runtimes share. The last layer of the core: nothing else in it
 * imports this package, and it names no runtime.
 */
package io.spyglass.core.run;
