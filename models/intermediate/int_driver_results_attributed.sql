-- The load-driver results that count, with the run they measure: per run, its one row at the
-- best precedence (int_driver_results_candidates). A run with two or more rows there counts
-- none: which one measured the run cannot be told, and fct_file_reconciliation names them.
select
    driver_format,
    attribution_rank,
    file_id,
    source_file,
    source_line,
    study,
    run_id,
    rate_per_s,
    round_trip_us,
    target_rate_per_s,
    threads,
    message_bytes,
    transactions,
    interval_start,
    interval_end,
    driver_result_run_key,
    run_key,
    best_rank
from {{ ref('int_driver_results_candidates') }}
where attribution_rank = best_rank and rows_at_rank = 1
