      WITH sample AS (
        SELECT attributes FROM spans
        WHERE project_id = {projectId:String} AND start_time >= {since:DateTime64(3)}
        ORDER BY start_time DESC
        LIMIT {sample:UInt32}
      ),
      keyed AS (
        SELECT arrayJoin(arrayConcat(
            arrayFilter(x -> x != '', arrayMap(k -> multiIf(startsWith(k, {prefix0:String}), substring(k, length({prefix0:String}) + 1), startsWith(k, {prefix1:String}), substring(k, length({prefix1:String}) + 1), startsWith(k, {prefix2:String}), substring(k, length({prefix2:String}) + 1), startsWith(k, {prefix3:String}), substring(k, length({prefix3:String}) + 1), startsWith(k, {prefix4:String}), substring(k, length({prefix4:String}) + 1), startsWith(k, {prefix5:String}), substring(k, length({prefix5:String}) + 1), startsWith(k, {prefix6:String}), substring(k, length({prefix6:String}) + 1), ''), mapKeys(attributes))),
            if(startsWith(attributes[{metadataJson:String}], '{'), JSONExtractKeys(attributes[{metadataJson:String}]), [])
          )) AS key,
          attributes
        FROM sample
      )
      SELECT key, count() AS spans, groupUniqArray(3)(coalesce(nullIf(attributes[concat({prefix0:String}, key)], ''), nullIf(attributes[concat({prefix1:String}, key)], ''), nullIf(attributes[concat({prefix2:String}, key)], ''), nullIf(attributes[concat({prefix3:String}, key)], ''), nullIf(attributes[concat({prefix4:String}, key)], ''), nullIf(attributes[concat({prefix5:String}, key)], ''), nullIf(attributes[concat({prefix6:String}, key)], ''), nullIf(if(JSONType(attributes[{metadataJson:String}], key) = 'String', JSONExtractString(attributes[{metadataJson:String}], key), nullIf(JSONExtractRaw(attributes[{metadataJson:String}], key), '')), ''), '')) AS examples,
        (SELECT count() FROM sample) AS sampled
      FROM keyed
      WHERE key NOT IN {exclude:Array(String)}
      GROUP BY key
      ORDER BY spans DESC, key
      LIMIT {limit:UInt32}
