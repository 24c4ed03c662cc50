      SELECT trace_id, span_count,
        toString(toUnixTimestamp64Nano(trace_start)) AS trace_start_ns, toString(toUnixTimestamp64Nano(trace_end)) AS trace_end_ns
      FROM (
    SELECT trace_id, trace_start, trace_end, span_count
    FROM trace_rollups
    WHERE project_id = {projectId:String} AND hour IN {rolledUpHours:Array(DateTime)} AND version IN {rolledUpVersions:Array(UInt64)}
    UNION ALL
    SELECT * FROM (
    SELECT trace_id, trace_start, trace_end, span_count
    FROM (
      SELECT trace_id,
    min(start_time) AS trace_start,
    max(end_time) AS trace_end,
    count() AS span_count
      FROM spans FINAL
      PREWHERE project_id = {projectId:String} AND ((start_time >= {liveFrom0:DateTime64(3)} AND start_time < {liveTo0:DateTime64(3)}) OR (start_time >= {liveFrom1:DateTime64(3)} AND start_time < {liveTo1:DateTime64(3)}))
      GROUP BY trace_id
    )) WHERE toStartOfHour(trace_start) NOT IN {rolledUpHours:Array(DateTime)} AND trace_id NOT IN (SELECT trace_id FROM trace_rollups WHERE project_id = {projectId:String} AND hour IN {crossingHours:Array(DateTime)} AND version IN {crossingVersions:Array(UInt64)} AND trace_end >= addHours(hour, 1)))
      WHERE trace_start >= {startTime:DateTime64(3)} AND trace_start < {endTime:DateTime64(3)} AND (trace_start, trace_id) < ({afterValue:DateTime64(9)}, {afterTrace:String})
      ORDER BY trace_start DESC, trace_id DESC
      LIMIT {limit:UInt32}
