INSERT INTO spans (project_id, trace_id, span_id) FORMAT JSONCompactEachRow
