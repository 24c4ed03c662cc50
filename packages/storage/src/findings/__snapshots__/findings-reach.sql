      SELECT count() AS traces, uniqExactIf(user, user != '') AS users, uniqExactIf(session, session != '') AS sessions,
        sum(trace_cost) AS cost
      FROM (
        SELECT trace_id, anyIf(user_id, user_id != '') AS user, anyIf(session_id, session_id != '') AS session, if(countIf(span_type IN ('llm', 'embedding')) > 0, sumIf(cost, span_type IN ('llm', 'embedding')), sum(cost)) AS trace_cost
        FROM spans FINAL
        WHERE project_id = {projectId:String} AND trace_id IN {traceIds:Array(String)}
        GROUP BY trace_id
      )
