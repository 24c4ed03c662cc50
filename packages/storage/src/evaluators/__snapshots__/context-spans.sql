          SELECT trace_id, span_id, parent_span_id, name, span_type, status, status_message,
            toString(toUnixTimestamp64Nano(start_time)) AS start_ns, duration_ms, model, cost, total_tokens,
            leftUTF8(input, {maxChars:UInt32}) AS input, leftUTF8(output, {maxChars:UInt32}) AS output,
            tool_name, leftUTF8(tool_arguments, {maxChars:UInt32}) AS tool_arguments,
            leftUTF8(input_messages, {maxChars:UInt32}) AS input_messages,
            leftUTF8(output_messages, {maxChars:UInt32}) AS output_messages,
            leftUTF8(system_instructions, {maxChars:UInt32}) AS system_instructions,
            attributes, attribute_refs, resource_attributes
          FROM spans FINAL
          WHERE project_id = {projectId:String} AND trace_id IN {traceIds:Array(String)}
          ORDER BY trace_id, start_time, span_id
          LIMIT {maxSpans:UInt32} BY trace_id
