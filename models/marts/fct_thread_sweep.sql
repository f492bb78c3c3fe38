-- One row per study x configuration x scenario x hardware model x message size x persistence
-- x threads, for the series measured at 3+ thread counts (a thread or client sweep): the
-- achieved rate and round trip (averaged over the runs at that point) and the run count.
-- series_key names the series without the thread count (scenario, model, persistence shown
-- as '-' when a run does not give them); labels that vary within a configuration
-- (int_run_sets.point_labels, e.g. a topology the study groups by) tell series apart too.
-- The rows of int_thread_sweep, where the logic lives (marts read intermediates, not marts).
select * from {{ ref('int_thread_sweep') }}
