      SELECT minute_ms, sum(traces), sum(text_bytes)
      FROM (
      SELECT toUnixTimestamp(toStartOfMinute(start_time)) * 1000 AS minute_ms, uniq(trace_id) AS traces,
        sumIf(length(input) + length(output), parent_span_id = '') AS text_bytes
      FROM spans
      WHERE project_id = {projectId:String} AND ((start_time >= {liveFrom0:DateTime64(3)} AND start_time < {liveTo0:DateTime64(3)}))
      GROUP BY minute_ms)
      GROUP BY minute_ms
      ORDER BY minute_ms
