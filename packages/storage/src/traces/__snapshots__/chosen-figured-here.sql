      SELECT trace_id, arraySort(groupArray(tuple(toUnixTimestamp64Nano(start_time), span_id, parent_span_id, name, span_type, toString(toUnixTimestamp64Nano(end_time)), status, service_name, model, input_tokens, output_tokens, total_tokens, cached_input_tokens, reasoning_tokens, cost, quality_flags, masked_rules, session_id, user_id, environment, platform))) AS trace_span_rows,
        leftUTF8(argMinIf(input_preview, bitShiftLeft(toUInt64(parent_span_id != ''), 62) + toUInt64(toUnixTimestamp64Nano(start_time)), notEmpty(input_preview) AND (parent_span_id = '' OR span_type IN ('agent', 'llm'))), {previewChars:UInt32}) AS trace_input, leftUTF8(argMaxIf(output_preview, bitShiftLeft(toUInt64(parent_span_id = ''), 62) + toUInt64(toUnixTimestamp64Nano(end_time)), notEmpty(output_preview) AND (parent_span_id = '' OR span_type IN ('agent', 'llm'))), {previewChars:UInt32}) AS trace_output, arrayMap(f -> f.2, arrayFilter(f -> f.1 = trace_id, (
  SELECT groupArray((trace_id, flags)) FROM trace_flags FINAL
  WHERE project_id = {projectId:String} AND trace_id IN {chosenIds:Array(String)}))) AS trace_flag_lists
      FROM spans FINAL
      PREWHERE project_id = {projectId:String} AND trace_id IN {chosenIds:Array(String)}
        AND start_time >= {chosenFrom:DateTime64(9)} AND start_time <= {chosenTo:DateTime64(9)} AND start_time < {scanEnd:DateTime64(3)}
      GROUP BY trace_id
      SETTINGS max_threads = 1
