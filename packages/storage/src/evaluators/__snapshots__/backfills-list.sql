SELECT 
    id, project_id, evaluator_id, evaluator_version, total, estimate, created_by,
    toString(toUnixTimestamp64Milli(window_start)) AS start_ms,
    toString(toUnixTimestamp64Milli(window_end)) AS end_ms,
    toString(toUnixTimestamp64Milli(created_at)) AS created_ms,
    if(cancelled_at IS NULL, NULL, toString(toUnixTimestamp64Milli(assumeNotNull(cancelled_at)))) AS cancelled_ms FROM evaluator_backfills FINAL WHERE project_id = {projectId:String} AND evaluator_id = {evaluatorId:String} ORDER BY id DESC LIMIT {limit:UInt32}
