      SELECT span_id, parent_span_id, name, kind, span_type, toString(toUnixTimestamp64Nano(start_time)) AS start_ns, toString(toUnixTimestamp64Nano(end_time)) AS end_ns, duration_ms, status, status_message, service_name, model, provider, input_tokens, output_tokens, total_tokens, cached_input_tokens, reasoning_tokens, cost, cost_source, tool_name, agent_name, time_to_first_token_ms, quality_flags, masked_rules,
        trace_id, environment, platform, scope_name, scope_version, input, output,
        input_messages, output_messages, system_instructions, session_id, user_id,
        tool_arguments, tool_call_id, attributes, attribute_refs, resource_attributes, dimensions, events, links,
        parent_span_id = '' OR parent_span_id IN (
          SELECT span_id FROM spans
          WHERE project_id = {projectId:String} AND toStartOfHour(start_time) IN (SELECT hour FROM trace_hours WHERE project_id = {projectId:String} AND trace_id = {traceId:String}) AND trace_id = {traceId:String}
        ) AS parent_found
      FROM spans FINAL
      WHERE project_id = {projectId:String} AND toStartOfHour(start_time) IN (SELECT hour FROM trace_hours WHERE project_id = {projectId:String} AND trace_id = {traceId:String}) AND trace_id = {traceId:String} AND span_id = {spanId:String}
      LIMIT 1
