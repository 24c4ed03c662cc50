SELECT project_id, id, value FROM scores LIMIT 0
