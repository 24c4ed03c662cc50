SELECT grp, toUnixTimestamp(toStartOfInterval(time, INTERVAL {step:UInt32} SECOND)) AS bucket,
       sum(if(kind = 'histogram', count_increase, 1)) AS bucket_count,
       sum(multiIf(kind = 'histogram', sum_increase, kind = 'sum', value_increase, total_value)) AS bucket_sum,
       min(if(kind = 'gauge', total_value, point_min)) AS bucket_min,
       max(if(kind = 'gauge', total_value, point_max)) AS bucket_max,
       any(kind) AS bucket_kind, any(unit) AS bucket_unit
FROM (
    SELECT grp, time, kind, unit, total_value, point_min, point_max,
           if(temporality != 'cumulative', total_count,
             multiIf(nth > 1 AND total_count >= prev_total_count, total_count - prev_total_count, nth > 1 OR start_time >= {lookbackStart:DateTime64(3)}, total_count, NULL)) AS count_increase,
           if(temporality != 'cumulative', total_sum,
             multiIf(nth > 1 AND total_sum >= prev_total_sum, total_sum - prev_total_sum, nth > 1 OR start_time >= {lookbackStart:DateTime64(3)}, total_sum, NULL)) AS sum_increase,
           if(temporality != 'cumulative', total_value,
             multiIf(nth > 1 AND total_value >= prev_total_value, total_value - prev_total_value, nth > 1 OR start_time >= {lookbackStart:DateTime64(3)}, total_value, NULL)) AS value_increase
    FROM (
        SELECT request_model AS grp, time, start_time, kind, temporality, unit,
               toFloat64(count) AS total_count, sum AS total_sum, value AS total_value, min AS point_min, max AS point_max,
               row_number() OVER stream AS nth,
               lagInFrame(toFloat64(count)) OVER stream AS prev_total_count,
               lagInFrame(sum) OVER stream AS prev_total_sum,
               lagInFrame(value) OVER stream AS prev_total_value
        FROM genai_metric_points FINAL
        WHERE project_id = {projectId:String} AND metric = {metric:String}
          AND time >= {lookbackStart:DateTime64(3)} AND time < {end:DateTime64(3)}
          AND provider_name = {providerName:String}
          AND token_type = {tokenType:String}
        WINDOW stream AS (PARTITION BY series, start_time ORDER BY time ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
    )
    WHERE time >= {start:DateTime64(3)}
)
GROUP BY grp, bucket
ORDER BY grp, bucket
