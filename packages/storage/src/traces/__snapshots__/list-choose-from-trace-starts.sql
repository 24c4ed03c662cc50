      SELECT trace_id, toString(span_rows) AS span_count,
        toString(toUnixTimestamp64Nano(trace_start)) AS trace_start_ns, toString(toUnixTimestamp64Nano(trace_end)) AS trace_end_ns
      FROM (
        SELECT trace_id, min(trace_start) AS trace_start, max(trace_end) AS trace_end, sum(span_rows) AS span_rows
        FROM trace_starts
        WHERE project_id = {projectId:String} AND hour >= toStartOfHour({scanStart:DateTime64(3)}) AND hour < {scanEnd:DateTime64(3)}
        GROUP BY trace_id
      )
      WHERE trace_start >= {startTime:DateTime64(3)} AND trace_start < {endTime:DateTime64(3)} AND (trace_start, trace_id) > ({afterValue:DateTime64(9)}, {afterTrace:String})
      ORDER BY trace_start ASC, trace_id ASC
      LIMIT {limit:UInt32}
