ALTER TABLE `odd``name` MODIFY SETTING fsync_after_insert = 1, fsync_part_directory = 1
