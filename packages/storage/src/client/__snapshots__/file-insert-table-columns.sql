SELECT name, type, default_kind, default_expression FROM system.columns WHERE database = currentDatabase() AND table = 'span\'s'
