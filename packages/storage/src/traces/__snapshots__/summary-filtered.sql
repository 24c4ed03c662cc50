      SELECT *
      FROM (
        SELECT sum(hour_traces) AS summary_traces,
        sum(hour_spans) AS summary_spans,
        sum(hour_error_traces) AS summary_error_traces,
        uniqExactArray(hour_session_hashes) AS summary_sessions,
        uniqExactArray(hour_user_hashes) AS summary_users,
        quantilesMerge(0.5, 0.9, 0.95, 0.99)(hour_durations) AS summary_duration_quantiles,
        sum(hour_cost) AS summary_cost,
        sum(hour_input_tokens) AS summary_input_tokens,
        sum(hour_output_tokens) AS summary_output_tokens,
        sum(hour_total_tokens) AS summary_total_tokens,
        sum(hour_cached_input_tokens) AS summary_cached_input_tokens,
        sum(hour_reasoning_tokens) AS summary_reasoning_tokens,
        sum(hour_flagged_spans) AS summary_flagged_spans,
        sum(hour_masked_spans) AS summary_masked_spans,
        sumMapMerge(hour_masked_rules) AS summary_masked_rules
        FROM (SELECT count() AS hour_traces,
          sum(span_count) AS hour_spans,
          countIf(trace_status = 'error') AS hour_error_traces,
          groupUniqArrayIf(sipHash64(trace_session_id), trace_session_id != '') AS hour_session_hashes,
          groupUniqArrayIf(sipHash64(trace_user_id), trace_user_id != '') AS hour_user_hashes,
          quantilesState(0.5, 0.9, 0.95, 0.99)(trace_duration_ms) AS hour_durations,
          sum(trace_cost) AS hour_cost,
          sum(trace_input_tokens) AS hour_input_tokens,
          sum(trace_output_tokens) AS hour_output_tokens,
          sum(trace_total_tokens) AS hour_total_tokens,
          sum(trace_cached_input_tokens) AS hour_cached_input_tokens,
          sum(trace_reasoning_tokens) AS hour_reasoning_tokens,
          sum(flagged_span_count) AS hour_flagged_spans,
          sum(masked_span_count) AS hour_masked_spans,
          sumMapState(trace_masked_rules) AS hour_masked_rules
        FROM (
    SELECT trace_id, trace_start, trace_duration_ms, span_count, trace_status, trace_input_tokens, trace_output_tokens, trace_total_tokens, trace_cached_input_tokens, trace_reasoning_tokens, trace_cost, trace_session_id, trace_user_id, flagged_span_count, masked_span_count, trace_masked_rules
    FROM (
      SELECT trace_id,
    min(start_time) AS trace_start,
    max(end_time) AS trace_end,
    dateDiff('microsecond', trace_start, trace_end) / 1000 AS trace_duration_ms,
    count() AS span_count,
    countIf(status = 'error') AS error_count,
    multiIf(error_count > 0, 'error', countIf(status = 'ok') > 0, 'ok', 'unset') AS trace_status,
    if(countIf(span_type IN ('llm', 'embedding')) > 0, sumIf(input_tokens, span_type IN ('llm', 'embedding')), sum(input_tokens)) AS trace_input_tokens,
    if(countIf(span_type IN ('llm', 'embedding')) > 0, sumIf(output_tokens, span_type IN ('llm', 'embedding')), sum(output_tokens)) AS trace_output_tokens,
    if(countIf(span_type IN ('llm', 'embedding')) > 0, sumIf(total_tokens, span_type IN ('llm', 'embedding')), sum(total_tokens)) AS trace_total_tokens,
    if(countIf(span_type IN ('llm', 'embedding')) > 0, sumIf(cached_input_tokens, span_type IN ('llm', 'embedding')), sum(cached_input_tokens)) AS trace_cached_input_tokens,
    if(countIf(span_type IN ('llm', 'embedding')) > 0, sumIf(reasoning_tokens, span_type IN ('llm', 'embedding')), sum(reasoning_tokens)) AS trace_reasoning_tokens,
    if(countIf(span_type IN ('llm', 'embedding')) > 0, sumIf(cost, span_type IN ('llm', 'embedding')), sum(cost)) AS trace_cost,
    anyIf(session_id, session_id != '') AS trace_session_id,
    anyIf(user_id, user_id != '') AS trace_user_id,
    countIf(notEmpty(quality_flags)) AS flagged_span_count,
    countIf(notEmpty(masked_rules)) AS masked_span_count,
    sumMap(CAST(arrayMap(r -> (r, toUInt64(1)), masked_rules), 'Map(String, UInt64)')) AS trace_masked_rules
      FROM spans FINAL
      PREWHERE project_id = {projectId:String} AND start_time >= {scanStart:DateTime64(3)} AND start_time < {scanEnd:DateTime64(3)} AND trace_id IN (SELECT trace_id FROM scores FINAL WHERE project_id = {projectId:String} AND trace_id != '' AND name = {scoreName:String} AND value >= {scoreMin:Float64} AND value <= {scoreMax:Float64} AND string_value = {scoreLabel:String}) AND trace_id IN (
    SELECT trace_id FROM spans
    WHERE project_id = {projectId:String} AND start_time >= {scanStart:DateTime64(3)} AND start_time < {scanEnd:DateTime64(3)}
      AND (positionCaseInsensitiveUTF8(name, {search:String}) > 0 OR positionCaseInsensitiveUTF8(input, {search:String}) > 0 OR positionCaseInsensitiveUTF8(output, {search:String}) > 0)) AND trace_id IN (
    SELECT trace_id FROM spans
    WHERE project_id = {projectId:String} AND start_time >= {scanStart:DateTime64(3)} AND start_time < {scanEnd:DateTime64(3)}
      AND dimensions[{dimKey0:String}] = {dimValue0:String}) AND trace_id IN (SELECT trace_id FROM trace_flags FINAL WHERE project_id = {projectId:String} AND has(flags, {flag0:String}))
      GROUP BY trace_id
    )) AS t
        WHERE trace_start >= {startTime:DateTime64(3)} AND trace_start < {endTime:DateTime64(3)} AND trace_status = {status:String} AND ((trace_duration_ms > {q0:Float64} AND trace_id IN (SELECT trace_id FROM spans WHERE project_id = {projectId:String} AND start_time >= {scanStart:DateTime64(3)} AND start_time < {scanEnd:DateTime64(3)} AND span_type = {q1:String}))))
      ) AS summary_figures
      CROSS JOIN (
      SELECT count() AS summary_flagged_traces, countIf(has(flags, 'duplicate_tools')) AS summary_flag_duplicate_tools, countIf(has(flags, 'loop')) AS summary_flag_loop, countIf(has(flags, 'cost_outlier')) AS summary_flag_cost_outlier, countIf(has(flags, 'empty_output')) AS summary_flag_empty_output
      FROM (SELECT trace_id FROM (
    SELECT trace_id, trace_start, trace_duration_ms, trace_status
    FROM (
      SELECT trace_id,
    min(start_time) AS trace_start,
    max(end_time) AS trace_end,
    dateDiff('microsecond', trace_start, trace_end) / 1000 AS trace_duration_ms,
    countIf(status = 'error') AS error_count,
    multiIf(error_count > 0, 'error', countIf(status = 'ok') > 0, 'ok', 'unset') AS trace_status
      FROM spans FINAL
      PREWHERE project_id = {projectId:String} AND start_time >= {scanStart:DateTime64(3)} AND start_time < {scanEnd:DateTime64(3)} AND trace_id IN (SELECT trace_id FROM scores FINAL WHERE project_id = {projectId:String} AND trace_id != '' AND name = {scoreName:String} AND value >= {scoreMin:Float64} AND value <= {scoreMax:Float64} AND string_value = {scoreLabel:String}) AND trace_id IN (
    SELECT trace_id FROM spans
    WHERE project_id = {projectId:String} AND start_time >= {scanStart:DateTime64(3)} AND start_time < {scanEnd:DateTime64(3)}
      AND (positionCaseInsensitiveUTF8(name, {search:String}) > 0 OR positionCaseInsensitiveUTF8(input, {search:String}) > 0 OR positionCaseInsensitiveUTF8(output, {search:String}) > 0)) AND trace_id IN (
    SELECT trace_id FROM spans
    WHERE project_id = {projectId:String} AND start_time >= {scanStart:DateTime64(3)} AND start_time < {scanEnd:DateTime64(3)}
      AND dimensions[{dimKey0:String}] = {dimValue0:String}) AND trace_id IN (SELECT trace_id FROM trace_flags FINAL WHERE project_id = {projectId:String} AND has(flags, {flag0:String}))
      GROUP BY trace_id
    )) WHERE trace_start >= {startTime:DateTime64(3)} AND trace_start < {endTime:DateTime64(3)} AND trace_status = {status:String} AND ((trace_duration_ms > {q0:Float64} AND trace_id IN (SELECT trace_id FROM spans WHERE project_id = {projectId:String} AND start_time >= {scanStart:DateTime64(3)} AND start_time < {scanEnd:DateTime64(3)} AND span_type = {q1:String})))) AS window_traces
      INNER JOIN (
        SELECT trace_id, flags FROM trace_flags FINAL WHERE project_id = {projectId:String} AND notEmpty(flags)
      ) AS flagged_traces USING trace_id) AS summary_flags
