      DELETE FROM trace_hour_figures
      WHERE project_id IN {projects:Array(String)} AND hour IN {hours:Array(DateTime)}
        AND arrayExists((p, h, previous) -> p = project_id AND h = hour AND version < previous, {projects:Array(String)}, {hours:Array(DateTime)}, {previous:Array(UInt64)})
