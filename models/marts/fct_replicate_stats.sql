-- One row per replicate set x measure x subject: n, mean, sd, 95% interval of the mean.
--
-- A replicate set is the runs of one configuration at one workload point with one history label
-- (int_run_sets). Arithmetic (mqcap.noise.summarise): mean, sample standard deviation (n - 1),
-- mean +- t(0.975, n - 1) x sd / sqrt(n); one run gives no sd and no interval and says so.
-- A Python model because the t quantile comes from scipy.
-- The rows of int_replicate_stats, where the logic lives (marts read intermediates, not marts).
select * from {{ ref('int_replicate_stats') }}
