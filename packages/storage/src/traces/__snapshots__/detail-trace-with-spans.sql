      SELECT 
    argMinIf(input, bitShiftLeft(toUInt64(parent_span_id != ''), 62) + toUInt64(toUnixTimestamp64Nano(start_time)), notEmpty(input) AND (parent_span_id = '' OR span_type IN ('agent', 'llm'))) AS trace_input,
    argMaxIf(output, bitShiftLeft(toUInt64(parent_span_id = ''), 62) + toUInt64(toUnixTimestamp64Nano(end_time)), notEmpty(output) AND (parent_span_id = '' OR span_type IN ('agent', 'llm'))) AS trace_output,
        arraySort(groupArray(tuple(toUnixTimestamp64Nano(start_time), span_id, parent_span_id, name, kind, span_type, toString(toUnixTimestamp64Nano(end_time)), duration_ms, status, status_message, service_name, model, provider, input_tokens, output_tokens, total_tokens, cached_input_tokens, reasoning_tokens, cost, cost_source, tool_name, agent_name, time_to_first_token_ms, quality_flags, masked_rules, session_id, user_id, environment, platform))) AS trace_span_rows,
        (
  SELECT groupArray((flags, details)) FROM trace_flags FINAL
  WHERE project_id = {projectId:String} AND trace_id = {traceId:String}) AS trace_flag_rows
      FROM spans FINAL
      PREWHERE project_id = {projectId:String}
        AND toStartOfHour(start_time) IN (SELECT hour FROM trace_hours WHERE project_id = {projectId:String} AND trace_id = {traceId:String})
        AND trace_id = {traceId:String}
      GROUP BY trace_id
      SETTINGS enable_analyzer = 0, max_threads = 1
