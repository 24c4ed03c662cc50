      SELECT id, project_id, key_id, kind, format, filter, status, rows, bytes, error,
        toString(toUnixTimestamp64Milli(started_at)) AS started_ms,
        if(finished_at IS NULL, NULL, toString(toUnixTimestamp64Milli(finished_at))) AS finished_ms
      FROM exports FINAL
      WHERE project_id = {projectId:String}
      ORDER BY id DESC
      LIMIT {limit:UInt32}
