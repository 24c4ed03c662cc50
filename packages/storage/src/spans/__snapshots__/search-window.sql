      SELECT span_id, parent_span_id, name, kind, span_type, toString(toUnixTimestamp64Nano(start_time)) AS start_ns, toString(toUnixTimestamp64Nano(end_time)) AS end_ns, duration_ms, status, status_message, service_name, model, provider, input_tokens, output_tokens, total_tokens, cached_input_tokens, reasoning_tokens, cost, cost_source, tool_name, agent_name, time_to_first_token_ms, quality_flags, masked_rules, trace_id, session_id, user_id
      FROM spans FINAL
      WHERE project_id = {projectId:String} AND start_time >= {start:DateTime64(3)} AND start_time < {end:DateTime64(3)}
      ORDER BY start_time DESC, trace_id DESC, span_id DESC
      LIMIT {limit:UInt32}
