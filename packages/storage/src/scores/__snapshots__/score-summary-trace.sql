      SELECT name, string_value, count() AS n,
        countIf(value IS NOT NULL) AS value_count, sumIf(value, value IS NOT NULL) AS value_sum,
        minIf(value, value IS NOT NULL) AS value_min, maxIf(value, value IS NOT NULL) AS value_max
      FROM scores FINAL
      WHERE project_id = {projectId:String} AND trace_id = {traceId:String}
      GROUP BY name, string_value
      ORDER BY name
