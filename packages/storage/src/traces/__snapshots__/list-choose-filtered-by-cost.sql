      SELECT trace_id, span_count, trace_cost,
        toString(toUnixTimestamp64Nano(trace_start)) AS trace_start_ns, toString(toUnixTimestamp64Nano(trace_end)) AS trace_end_ns
      FROM (
    SELECT trace_id, trace_start, trace_end, span_count, trace_cost, trace_duration_ms, trace_status
    FROM (
      SELECT trace_id,
    min(start_time) AS trace_start,
    max(end_time) AS trace_end,
    dateDiff('microsecond', trace_start, trace_end) / 1000 AS trace_duration_ms,
    count() AS span_count,
    countIf(status = 'error') AS error_count,
    multiIf(error_count > 0, 'error', countIf(status = 'ok') > 0, 'ok', 'unset') AS trace_status,
    if(countIf(span_type IN ('llm', 'embedding')) > 0, sumIf(cost, span_type IN ('llm', 'embedding')), sum(cost)) AS trace_cost
      FROM spans FINAL
      PREWHERE project_id = {projectId:String} AND start_time >= {scanStart:DateTime64(3)} AND start_time < {scanEnd:DateTime64(3)} AND trace_id IN (SELECT trace_id FROM scores FINAL WHERE project_id = {projectId:String} AND trace_id != '' AND name = {scoreName:String} AND value >= {scoreMin:Float64} AND value <= {scoreMax:Float64} AND string_value = {scoreLabel:String}) AND trace_id IN (
    SELECT trace_id FROM spans
    WHERE project_id = {projectId:String} AND start_time >= {scanStart:DateTime64(3)} AND start_time < {scanEnd:DateTime64(3)}
      AND (positionCaseInsensitiveUTF8(name, {search:String}) > 0 OR positionCaseInsensitiveUTF8(input, {search:String}) > 0 OR positionCaseInsensitiveUTF8(output, {search:String}) > 0)) AND trace_id IN (
    SELECT trace_id FROM spans
    WHERE project_id = {projectId:String} AND start_time >= {scanStart:DateTime64(3)} AND start_time < {scanEnd:DateTime64(3)}
      AND dimensions[{dimKey0:String}] = {dimValue0:String}) AND trace_id IN (SELECT trace_id FROM trace_flags FINAL WHERE project_id = {projectId:String} AND has(flags, {flag0:String}))
      GROUP BY trace_id
    ))
      WHERE trace_start >= {startTime:DateTime64(3)} AND trace_start < {endTime:DateTime64(3)} AND trace_status = {status:String} AND ((trace_duration_ms > {q0:Float64} AND trace_id IN (SELECT trace_id FROM spans WHERE project_id = {projectId:String} AND start_time >= {scanStart:DateTime64(3)} AND start_time < {scanEnd:DateTime64(3)} AND span_type = {q1:String}))) AND (trace_cost, trace_id) > ({afterValue:Float64}, {afterTrace:String})
      ORDER BY trace_cost ASC, trace_id ASC
      LIMIT {limit:UInt32}
