      SELECT minute_ms, sum(traces), sum(text_bytes)
      FROM (
      SELECT toUnixTimestamp(toStartOfMinute(trace_start)) * 1000 AS minute_ms, count() AS traces,
        sum(length(trace_input) + length(trace_output)) AS text_bytes
      FROM trace_rollups
      WHERE project_id = {projectId:String} AND hour IN {rolledUpHours:Array(DateTime)} AND version IN {rolledUpVersions:Array(UInt64)}
        AND trace_start >= {start:DateTime64(3)} AND trace_start < {end:DateTime64(3)}
      GROUP BY minute_ms UNION ALL 
      SELECT toUnixTimestamp(toStartOfMinute(first_start)) * 1000 AS minute_ms, count() AS traces, sum(text_bytes_of_trace) AS text_bytes
      FROM (
        SELECT min(start_time) AS first_start,
          argMinIf(length(input), bitShiftLeft(toUInt64(parent_span_id != ''), 62) + toUInt64(toUnixTimestamp64Nano(start_time)), notEmpty(input) AND (parent_span_id = '' OR span_type IN ('agent', 'llm'))) + argMaxIf(length(output), bitShiftLeft(toUInt64(parent_span_id = ''), 62) + toUInt64(toUnixTimestamp64Nano(end_time)), notEmpty(output) AND (parent_span_id = '' OR span_type IN ('agent', 'llm'))) AS text_bytes_of_trace
        FROM spans
        WHERE project_id = {projectId:String} AND ((start_time >= {liveFrom0:DateTime64(3)} AND start_time < {liveTo0:DateTime64(3)}) OR (start_time >= {liveFrom1:DateTime64(3)} AND start_time < {liveTo1:DateTime64(3)}))
        GROUP BY trace_id
      )
      GROUP BY minute_ms)
      GROUP BY minute_ms
      ORDER BY minute_ms
