ALTER TABLE `spans` RESET SETTING fsync_after_insert, fsync_part_directory
