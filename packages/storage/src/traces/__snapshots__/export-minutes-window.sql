      SELECT minute_ms, sum(traces), sum(text_bytes)
      FROM (
      SELECT toUnixTimestamp(toStartOfMinute(first_start)) * 1000 AS minute_ms, count() AS traces, sum(text_bytes_of_trace) AS text_bytes
      FROM (
        SELECT min(start_time) AS first_start,
          if(if(countIf(parent_span_id = '') > 0, argMinIf(length(input), start_time, parent_span_id = ''), argMin(length(input), start_time)) > 0, if(countIf(parent_span_id = '') > 0, argMinIf(length(input), start_time, parent_span_id = ''), argMin(length(input), start_time)), argMinIf(length(input), start_time, span_type IN ('agent', 'llm') AND notEmpty(input))) + if(if(countIf(parent_span_id = '') > 0, argMinIf(length(output), start_time, parent_span_id = ''), argMin(length(output), start_time)) > 0, if(countIf(parent_span_id = '') > 0, argMinIf(length(output), start_time, parent_span_id = ''), argMin(length(output), start_time)), argMaxIf(length(output), end_time, span_type IN ('agent', 'llm') AND notEmpty(output))) AS text_bytes_of_trace
        FROM spans
        WHERE project_id = {projectId:String} AND ((start_time >= {liveFrom0:DateTime64(3)} AND start_time < {liveTo0:DateTime64(3)}))
        GROUP BY trace_id
      )
      GROUP BY minute_ms)
      GROUP BY minute_ms
      ORDER BY minute_ms
