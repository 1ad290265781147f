package io.spyglass.flink;

import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.OutputTag;

/**
 * Chained to the source where records travel apart from the queries: passes the records on, and the
 * query messages, each with its place in the query topic, to {@link #QUERIES}, from the first
 * subtask only (every subtask reads the whole query topic; the filters get it broadcast).
 */
final class QueriesApart extends AbstractStreamOperator<RecordBatch>
    implements OneInputStreamOperator<RecordBatch, RecordBatch> {
  private static final long serialVersionUID = 1L;

  static final OutputTag<byte[]> QUERIES =
      new OutputTag<>("spyglass-queries", PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO);

  @Override
  public void processElement(StreamRecord<RecordBatch> element) {
    RecordBatch b = element.getValue();
    if (!b.isQuery()) {
      output.collect(element);
    } else if (getRuntimeContext().getTaskInfo().getIndexOfThisSubtask() == 0) {
      output.collect(
          QUERIES,
          new StreamRecord<>(FilterOperator.placed(b.query, (int) b.positions[0], b.positions[1])));
    }
  }
}
