      SELECT id, project_id, name, data_type, min_value, max_value, categories, description, archived, created_by,
        toString(toUnixTimestamp64Milli(created_at)) AS created_ms,
        toString(toUnixTimestamp64Milli(updated_at)) AS updated_ms,
        toString(version) AS version
      FROM score_configs FINAL
      WHERE project_id = {projectId:String} AND archived = 0
      ORDER BY id LIMIT {limit:UInt32}
