SELECT 
    id, project_id, name, version, definition, auto_run, created_by,
    model_api_key != '' AS api_key_set,
    if(lengthUTF8(model_api_key) >= 12, rightUTF8(model_api_key, 4), '') AS api_key_hint,
    toString(toUnixTimestamp64Milli(created_at)) AS created_ms,
    toString(toUnixTimestamp64Milli(updated_at)) AS updated_ms FROM evaluators FINAL WHERE project_id = {projectId:String} ORDER BY id LIMIT {limit:UInt32}
