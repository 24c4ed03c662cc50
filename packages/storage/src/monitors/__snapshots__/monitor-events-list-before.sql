      SELECT id, monitor_id, kind, group_key, from_state, to_state, value, threshold, muted, actor, detail,
        toString(toUnixTimestamp64Milli(at)) AS at_ms,
        if(window_start IS NULL, NULL, toString(toUnixTimestamp64Milli(window_start))) AS window_start_ms,
        if(window_end IS NULL, NULL, toString(toUnixTimestamp64Milli(window_end))) AS window_end_ms
      FROM monitor_events FINAL
      WHERE project_id = {projectId:String} AND monitor_id = {monitorId:String} AND (at, id) < ({beforeAt:DateTime64(3)}, {beforeId:String})
      ORDER BY at DESC, id DESC
      LIMIT {limit:UInt32}
