      SELECT minute_ms, sum(traces), sum(text_bytes)
      FROM (
      SELECT toUnixTimestamp(toStartOfMinute(trace_start)) * 1000 AS minute_ms, count() AS traces,
        sum(length(trace_input) + length(trace_output)) AS text_bytes
      FROM trace_rollups
      WHERE project_id = {projectId:String} AND hour IN {rolledUpHours:Array(DateTime)} AND version IN {rolledUpVersions:Array(UInt64)}
        AND trace_start >= {start:DateTime64(3)} AND trace_start < {end:DateTime64(3)}
      GROUP BY minute_ms UNION ALL 
      SELECT toUnixTimestamp(toStartOfMinute(start_time)) * 1000 AS minute_ms, uniq(trace_id) AS traces,
        sumIf(length(input) + length(output), parent_span_id = '') AS text_bytes
      FROM spans
      WHERE project_id = {projectId:String} AND ((start_time >= {liveFrom0:DateTime64(3)} AND start_time < {liveTo0:DateTime64(3)}) OR (start_time >= {liveFrom1:DateTime64(3)} AND start_time < {liveTo1:DateTime64(3)}))
      GROUP BY minute_ms)
      GROUP BY minute_ms
      ORDER BY minute_ms
