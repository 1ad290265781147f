package io.spyglass.core.plan;

/** What a clause binder makes of a SELECT: its aggregation and what follows it. */
record BoundAggregation(Aggregation aggregation, PostAggregation post) {}
