package io.spyglass.core.plan;

/** What a clause binder makes of a SELECT: its aggregation and what follows it. */
record Shape(Aggregation aggregation, PostAggregation post) {}
