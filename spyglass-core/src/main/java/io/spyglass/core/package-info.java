/** Spyglass core: BQL, plans, evaluation, aggregations, windows and partial results. */
package io.spyglass.core;
