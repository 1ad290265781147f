package io.spyglass.engine;

import io.spyglass.core.SpyglassClock;

/**
 * What a query's {@link QueryHandle} reaches of the engine, one for every handle: the combiner's
 * inbox (to kill or finish its query), the running queries (its counters; its end), the
 * back-pressure its subscriber may put on the reader, and the engine clock.
 */
record QueryContext(
    CombinerInbox combiner, RunningQueries queries, Backlog backlog, SpyglassClock clock) {}
