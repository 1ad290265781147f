/**
 * Sinks: a query's results delivered to webhooks, files and Kafka topics, one JSON document per
 * result and sink ({@link io.spyglass.sinks.SinkDocument}), at least once. {@link
 * io.spyglass.sinks.SinkSpec} is a sink as written, {@link io.spyglass.sinks.SinkPolicy} what a
 * process may deliver to, {@link io.spyglass.sinks.Sinks} the threads and clients every sink
 * shares, {@link io.spyglass.sinks.Delivery} one sink's bounded buffer and retries, {@link
 * io.spyglass.sinks.QuerySinks} one query's sinks. Depends on the core only (results and their
 * JSON); the service, the command line and the Flink job use it.
 */
package io.spyglass.sinks;
