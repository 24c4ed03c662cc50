      SELECT toString(toUnixTimestamp(hour)) AS rolled_hour_s, toString(version) AS rolled_version
      FROM trace_rollup_hours FINAL
      WHERE project_id = {projectId:String} AND hour >= toDateTime({firstHour:DateTime64(3)}, 'UTC') AND hour <= toDateTime({lastHour:DateTime64(3)}, 'UTC')
        AND (hour, written_around) IN (
          SELECT rollup_hour, written_around
          FROM (
    SELECT project_id, rollup_hour, sum(written) AS written_around, max(last_written) AS last_written
    FROM (
      SELECT project_id, hour, written, last_written,
        arrayJoin([subtractHours(hour, 1), hour, addHours(hour, 1)]) AS rollup_hour
      FROM span_hour_writes
      WHERE project_id = {projectId:String} AND hour >= {hoursFrom:DateTime64(3)} AND hour < {hoursTo:DateTime64(3)}
    )
    GROUP BY project_id, rollup_hour)
        )
      ORDER BY hour
