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
    FROM trace_rollups
    WHERE project_id = {projectId:String} AND hour IN {rolledUpHours:Array(DateTime)} AND version IN {rolledUpVersions:Array(UInt64)} AND trace_id IN (SELECT trace_id FROM scores FINAL WHERE project_id = {projectId:String} AND trace_id != '' AND name = {scoreName:String} AND value >= {scoreMin:Float64} AND value <= {scoreMax:Float64} AND string_value = {scoreLabel:String}) AND trace_id IN (
    SELECT trace_id FROM spans
    WHERE project_id = {projectId:String} AND start_time >= {scanStart:DateTime64(3)} AND start_time < {scanEnd:DateTime64(3)}
      AND (positionCaseInsensitiveUTF8(name, {search:String}) > 0 OR positionCaseInsensitiveUTF8(input, {search:String}) > 0 OR positionCaseInsensitiveUTF8(output, {search:String}) > 0)) AND trace_id IN (
    SELECT trace_id FROM spans
    WHERE project_id = {projectId:String} AND start_time >= {scanStart:DateTime64(3)} AND start_time < {scanEnd:DateTime64(3)}
      AND dimensions[{dimKey0:String}] = {dimValue0:String}) AND trace_id IN (SELECT trace_id FROM trace_flags FINAL WHERE project_id = {projectId:String} AND has(flags, {flag0:String}))) AS t
        WHERE trace_start >= {startTime:DateTime64(3)} AND trace_start < {endTime:DateTime64(3)} AND trace_status = {status:String} AND ((trace_duration_ms > {q0:Float64} AND trace_id IN (SELECT trace_id FROM spans WHERE project_id = {projectId:String} AND start_time >= {scanStart:DateTime64(3)} AND start_time < {scanEnd:DateTime64(3)} AND span_type = {q1:String}))))
      ) AS summary_figures
      CROSS JOIN (
      SELECT count() AS summary_flagged_traces, countIf(has(flags, 'duplicate_tools')) AS summary_flag_duplicate_tools, countIf(has(flags, 'loop')) AS summary_flag_loop, countIf(has(flags, 'cost_outlier')) AS summary_flag_cost_outlier, countIf(has(flags, 'empty_output')) AS summary_flag_empty_output
      FROM (SELECT trace_id FROM (
    SELECT trace_id, trace_start, trace_duration_ms, trace_status
    FROM trace_rollups
    WHERE project_id = {projectId:String} AND hour IN {rolledUpHours:Array(DateTime)} AND version IN {rolledUpVersions:Array(UInt64)} AND trace_id IN (SELECT trace_id FROM scores FINAL WHERE project_id = {projectId:String} AND trace_id != '' AND name = {scoreName:String} AND value >= {scoreMin:Float64} AND value <= {scoreMax:Float64} AND string_value = {scoreLabel:String}) AND trace_id IN (
    SELECT trace_id FROM spans
    WHERE project_id = {projectId:String} AND start_time >= {scanStart:DateTime64(3)} AND start_time < {scanEnd:DateTime64(3)}
      AND (positionCaseInsensitiveUTF8(name, {search:String}) > 0 OR positionCaseInsensitiveUTF8(input, {search:String}) > 0 OR positionCaseInsensitiveUTF8(output, {search:String}) > 0)) AND trace_id IN (
    SELECT trace_id FROM spans
    WHERE project_id = {projectId:String} AND start_time >= {scanStart:DateTime64(3)} AND start_time < {scanEnd:DateTime64(3)}
      AND dimensions[{dimKey0:String}] = {dimValue0:String}) AND trace_id IN (SELECT trace_id FROM trace_flags FINAL WHERE project_id = {projectId:String} AND has(flags, {flag0:String}))) WHERE trace_start >= {startTime:DateTime64(3)} AND trace_start < {endTime:DateTime64(3)} AND trace_status = {status:String} AND ((trace_duration_ms > {q0:Float64} AND trace_id IN (SELECT trace_id FROM spans WHERE project_id = {projectId:String} AND start_time >= {scanStart:DateTime64(3)} AND start_time < {scanEnd:DateTime64(3)} AND span_type = {q1:String})))) AS window_traces
      INNER JOIN (
        SELECT trace_id, flags FROM trace_flags FINAL WHERE project_id = {projectId:String} AND notEmpty(flags)
      ) AS flagged_traces USING trace_id) AS summary_flags
