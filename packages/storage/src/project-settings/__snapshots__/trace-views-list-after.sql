      SELECT id, project_id, name, description, filter, sort_field, sort_order, columns, owner,
        toString(toUnixTimestamp64Milli(created_at)) AS created_ms,
        toString(toUnixTimestamp64Milli(updated_at)) AS updated_ms,
        toString(version) AS version
      FROM trace_views FINAL
      WHERE project_id = {projectId:String} AND id > {afterId:String} AND deleted = 0
      ORDER BY id LIMIT {limit:UInt32}
