SELECT 
    id, project_id, trace_id, span_id, session_id, name, data_type, value, string_value, comment, source,
    external_id, deployment_id, config_id, owner_key_id, evaluator_id, evaluator_version,
    toString(toUnixTimestamp64Milli(created_at)) AS created_ms,
    toString(toUnixTimestamp64Milli(updated_at)) AS updated_ms FROM scores FINAL WHERE project_id = {projectId:String} AND session_id = {sessionId:String} AND (created_at, id) > (fromUnixTimestamp64Milli({afterMs:Int64}), {afterId:String}) ORDER BY created_at, id LIMIT {limit:UInt32}
