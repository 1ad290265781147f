/**
 * Talking to a Spyglass job on Flink over Kafka, without Flink: the JSON messages of the query
 * topic ({@link io.spyglass.flink.client.ControlMessage}), the binary replies of a result topic
 * ({@link io.spyglass.flink.client.Reply}), clock and sync marks for a records topic ({@link
 * io.spyglass.flink.client.Marks}) and a client that submits queries and reads their results
 * ({@link io.spyglass.flink.client.FlinkQueryClient}). See {@code docs/flink.md}.
 */
package io.spyglass.flink.client;
