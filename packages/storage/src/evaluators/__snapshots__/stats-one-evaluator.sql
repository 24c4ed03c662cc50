      SELECT evaluator_id,
        toString(toUnixTimestamp(toStartOfInterval(updated_at, toIntervalSecond({step:UInt32})))) AS bucket_s,
        ifNull(string_value, '') AS label, count() AS n, sum(ifNull(value, 0)) AS value_sum, countIf(value IS NOT NULL) AS value_n
      FROM scores FINAL
      WHERE project_id = {projectId:String} AND source = 'eval' AND evaluator_id != '' AND updated_at >= {start:DateTime64(3)} AND updated_at < {end:DateTime64(3)} AND evaluator_id = {evaluatorId:String}
      GROUP BY evaluator_id, bucket_s, label
      ORDER BY evaluator_id, bucket_s
