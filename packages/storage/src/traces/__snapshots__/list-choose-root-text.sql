      SELECT trace_id, span_count, trace_duration_ms,
        toString(toUnixTimestamp64Nano(trace_start)) AS trace_start_ns, toString(toUnixTimestamp64Nano(trace_end)) AS trace_end_ns
      FROM (
    SELECT trace_id, trace_start, trace_end, span_count, trace_duration_ms, trace_input, trace_output
    FROM (
      SELECT trace_id,
    min(start_time) AS trace_start,
    max(end_time) AS trace_end,
    dateDiff('microsecond', trace_start, trace_end) / 1000 AS trace_duration_ms,
    count() AS span_count, 
    argMinIf(input, bitShiftLeft(toUInt64(parent_span_id != ''), 62) + toUInt64(toUnixTimestamp64Nano(start_time)), notEmpty(input) AND (parent_span_id = '' OR span_type IN ('agent', 'llm'))) AS trace_input,
    argMaxIf(output, bitShiftLeft(toUInt64(parent_span_id = ''), 62) + toUInt64(toUnixTimestamp64Nano(end_time)), notEmpty(output) AND (parent_span_id = '' OR span_type IN ('agent', 'llm'))) AS trace_output
      FROM spans FINAL
      PREWHERE project_id = {projectId:String} AND start_time >= {scanStart:DateTime64(3)} AND start_time < {scanEnd:DateTime64(3)}
      GROUP BY trace_id
    ))
      WHERE trace_start >= {startTime:DateTime64(3)} AND trace_start < {endTime:DateTime64(3)} AND (positionCaseInsensitiveUTF8(trace_input, {q0:String}) > 0)
      ORDER BY trace_duration_ms DESC, trace_id DESC
      LIMIT {limit:UInt32}
