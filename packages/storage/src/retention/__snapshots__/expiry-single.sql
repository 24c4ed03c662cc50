-- finding_history
SELECT 1 FROM finding_history WHERE project_id = {projectId:String} AND finding_id IN (
  SELECT id FROM findings WHERE project_id = {projectId:String}
  GROUP BY id HAVING max(last_seen) < {cutoff:DateTime64(3)}) LIMIT 1;
DELETE FROM finding_history WHERE project_id = {projectId:String} AND finding_id IN (
  SELECT id FROM findings WHERE project_id = {projectId:String}
  GROUP BY id HAVING max(last_seen) < {cutoff:DateTime64(3)});

-- findings
SELECT 1 FROM findings WHERE project_id = {projectId:String} AND id IN (
  SELECT id FROM findings WHERE project_id = {projectId:String}
  GROUP BY id HAVING max(last_seen) < {cutoff:DateTime64(3)}) LIMIT 1;
DELETE FROM findings WHERE project_id = {projectId:String} AND id IN (
  SELECT id FROM findings WHERE project_id = {projectId:String}
  GROUP BY id HAVING max(last_seen) < {cutoff:DateTime64(3)});

-- exports
SELECT 1 FROM exports WHERE project_id = {projectId:String} AND started_at < {cutoff:DateTime64(3)} LIMIT 1;
DELETE FROM exports WHERE project_id = {projectId:String} AND started_at < {cutoff:DateTime64(3)};

-- monitor_events
SELECT 1 FROM monitor_events WHERE project_id = {projectId:String} AND at < {cutoff:DateTime64(3)} LIMIT 1;
DELETE FROM monitor_events WHERE project_id = {projectId:String} AND at < {cutoff:DateTime64(3)};

-- evaluator_backfill_items
SELECT 1 FROM evaluator_backfill_items WHERE project_id = {projectId:String} AND judged_at < {cutoff:DateTime64(3)} LIMIT 1;
DELETE FROM evaluator_backfill_items WHERE project_id = {projectId:String} AND judged_at < {cutoff:DateTime64(3)};

-- span_hour_writes
SELECT 1 FROM span_hour_writes WHERE project_id = {projectId:String} AND hour < {cutoff:DateTime64(3)} LIMIT 1;
DELETE FROM span_hour_writes WHERE project_id = {projectId:String} AND hour < {cutoff:DateTime64(3)};

-- trace_rollup_hours
SELECT 1 FROM trace_rollup_hours WHERE project_id = {projectId:String} AND hour < {cutoff:DateTime64(3)} LIMIT 1;
DELETE FROM trace_rollup_hours WHERE project_id = {projectId:String} AND hour < {cutoff:DateTime64(3)};

-- trace_hour_figures
SELECT 1 FROM trace_hour_figures WHERE project_id = {projectId:String} AND hour < {cutoff:DateTime64(3)} LIMIT 1;
DELETE FROM trace_hour_figures WHERE project_id = {projectId:String} AND hour < {cutoff:DateTime64(3)};

-- trace_rollups
SELECT 1 FROM trace_rollups WHERE project_id = {projectId:String} AND hour < {cutoff:DateTime64(3)} LIMIT 1;
DELETE FROM trace_rollups WHERE project_id = {projectId:String} AND hour < {cutoff:DateTime64(3)};

-- scores
SELECT 1 FROM scores WHERE project_id = {projectId:String} AND trace_id IN (SELECT trace_id FROM spans WHERE project_id = {projectId:String} AND start_time < {cutoff:DateTime64(3)}) LIMIT 1;
DELETE FROM scores WHERE project_id = {projectId:String} AND trace_id IN (SELECT trace_id FROM spans WHERE project_id = {projectId:String} AND start_time < {cutoff:DateTime64(3)});

-- trace_flags
SELECT 1 FROM trace_flags WHERE project_id = {projectId:String} AND trace_id IN (SELECT trace_id FROM spans WHERE project_id = {projectId:String} AND start_time < {cutoff:DateTime64(3)}) LIMIT 1;
DELETE FROM trace_flags WHERE project_id = {projectId:String} AND trace_id IN (SELECT trace_id FROM spans WHERE project_id = {projectId:String} AND start_time < {cutoff:DateTime64(3)});

-- span_log_records
SELECT 1 FROM span_log_records WHERE project_id = {projectId:String} AND received_at < {cutoff:DateTime64(3)} LIMIT 1;
DELETE FROM span_log_records WHERE project_id = {projectId:String} AND received_at < {cutoff:DateTime64(3)};

-- genai_metric_points
SELECT 1 FROM genai_metric_points WHERE project_id = {projectId:String} AND time < {cutoff:DateTime64(3)} LIMIT 1;
DELETE FROM genai_metric_points WHERE project_id = {projectId:String} AND time < {cutoff:DateTime64(3)};

-- spans
SELECT 1 FROM spans WHERE project_id = {projectId:String} AND start_time < {cutoff:DateTime64(3)} LIMIT 1;
DELETE FROM spans WHERE project_id = {projectId:String} AND start_time < {cutoff:DateTime64(3)};

-- trace_hours
SELECT 1 FROM trace_hours WHERE project_id = {projectId:String} AND hour < toStartOfHour({cutoff:DateTime64(3)}) LIMIT 1;
DELETE FROM trace_hours WHERE project_id = {projectId:String} AND hour < toStartOfHour({cutoff:DateTime64(3)});

-- trace_starts
SELECT 1 FROM trace_starts WHERE project_id = {projectId:String} AND hour < toStartOfHour({cutoff:DateTime64(3)}) LIMIT 1;
DELETE FROM trace_starts WHERE project_id = {projectId:String} AND hour < toStartOfHour({cutoff:DateTime64(3)});

-- trace_flags
SELECT 1 FROM trace_flags WHERE project_id = {projectId:String} AND spans_ingested_at >= {lookbackStart:UInt64} AND trace_id NOT IN (
  SELECT trace_id FROM spans WHERE project_id = {projectId:String} AND ingested_at >= {lookbackStart:UInt64}) LIMIT 1;
DELETE FROM trace_flags WHERE project_id = {projectId:String} AND spans_ingested_at >= {lookbackStart:UInt64} AND trace_id NOT IN (
  SELECT trace_id FROM spans WHERE project_id = {projectId:String} AND ingested_at >= {lookbackStart:UInt64});
