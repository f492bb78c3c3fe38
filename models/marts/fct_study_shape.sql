-- One row per study x shape the runs and their manifests show (a study may have several):
-- message_size_sweep: a series (configuration, scenario, model, persistence, threads) measured
--   at 2+ message sizes; thread_sweep: a series measured at 3+ thread counts; rate_target: runs
--   with a target rate; channel_start_stop: channel start/stop runs; key_size: 2+ key sizes;
--   recipients: 2+ recipient counts.
-- The rows of int_study_shape, where the logic lives (marts read intermediates, not marts).
select * from {{ ref('int_study_shape') }}
