      SELECT bucket, '' AS grp, quantilesMerge(0.5, 0.9, 0.95, 0.99)(hour_durations)[3] AS value
      FROM (
        SELECT toUnixTimestamp(toStartOfInterval(trace_start, INTERVAL {step:UInt32} SECOND)) AS bucket,
          count() AS hour_traces,
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
        FROM (SELECT * FROM (
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
      PREWHERE project_id = {projectId:String} AND ((start_time >= {liveFrom0:DateTime64(3)} AND start_time < {liveTo0:DateTime64(3)}) OR (start_time >= {liveFrom1:DateTime64(3)} AND start_time < {liveTo1:DateTime64(3)}))
      GROUP BY trace_id
    )) WHERE toStartOfHour(trace_start) NOT IN {rolledUpHours:Array(DateTime)} AND trace_id NOT IN (SELECT trace_id FROM trace_rollups WHERE project_id = {projectId:String} AND hour IN {crossingHours:Array(DateTime)} AND version IN {crossingVersions:Array(UInt64)} AND trace_end >= addHours(hour, 1))) AS t
        WHERE trace_start >= {startTime:DateTime64(3)} AND trace_start < {endTime:DateTime64(3)}
        GROUP BY bucket
        UNION ALL
        SELECT toUnixTimestamp(toStartOfInterval(hour, INTERVAL {step:UInt32} SECOND)) AS bucket, hour_traces, hour_spans, hour_error_traces, hour_session_hashes, hour_user_hashes, hour_durations, hour_cost, hour_input_tokens, hour_output_tokens, hour_total_tokens, hour_cached_input_tokens, hour_reasoning_tokens, hour_flagged_spans, hour_masked_spans, hour_masked_rules FROM trace_hour_figures WHERE project_id = {projectId:String} AND hour IN {wholeHours:Array(DateTime)} AND version IN {wholeVersions:Array(UInt64)}
      )
      GROUP BY bucket
      ORDER BY grp, bucket
