SET output_format_json_quote_64bit_integers = 1;
SET date_time_output_format = 'simple';
SET do_not_merge_across_partitions_select_final = 1;
SET async_insert = 0;
SET wait_for_async_insert = 1
