      SELECT id, project_id, definition, webhook_secret, created_by,
        toString(toUnixTimestamp64Milli(created_at)) AS created_ms,
        toString(toUnixTimestamp64Milli(updated_at)) AS updated_ms
      FROM monitors FINAL
      WHERE project_id = {projectId:String} AND deleted = 0
      ORDER BY project_id, id
      LIMIT {limit:UInt32}
