      SELECT w.project_id AS project_id, toString(toUnixTimestamp(w.rollup_hour)) AS hour_s,
        toString(w.written_around) AS written_around, toString(w.written_in) AS written_in, toString(r.version) AS current_version
      FROM (
    SELECT project_id, rollup_hour, sum(written) AS written_around, sumIf(written, hour = rollup_hour) AS written_in, max(last_written) AS last_written
    FROM (
      SELECT project_id, hour, written, last_written,
        arrayJoin([subtractHours(hour, 1), hour, addHours(hour, 1)]) AS rollup_hour
      FROM span_hour_writes
      WHERE 1
    )
    GROUP BY project_id, rollup_hour) AS w
      LEFT JOIN (SELECT project_id, hour, version, written_around FROM trace_rollup_hours FINAL) AS r
        ON w.project_id = r.project_id AND w.rollup_hour = r.hour
      -- without a rollup the right side reads as 0, and an hour with writes has a count above 0
      WHERE r.written_around != w.written_around AND w.last_written < {quietBefore:DateTime64(3)}
      ORDER BY w.rollup_hour DESC, w.project_id
      LIMIT {limit:UInt32}
