      SELECT id, project_id, dedupe_key, title, description, severity, status, investigator_kind, investigator_id,
        asset_type, asset_id, assignee, evidence, toString(occurrences) AS occurrences, risk_assessment,
        toString(toUnixTimestamp64Milli(first_seen)) AS first_ms,
        toString(toUnixTimestamp64Milli(last_seen)) AS last_ms,
        toString(toUnixTimestamp64Milli(created_at)) AS created_ms,
        toString(toUnixTimestamp64Milli(updated_at)) AS updated_ms
      FROM findings FINAL
      WHERE project_id = {projectId:String}
      ORDER BY last_seen DESC, id DESC LIMIT {limit:UInt32}
