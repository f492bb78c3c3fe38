-- One row per run x measure x subject x candidate x variable: the points of every fit.
-- A fit's x is message size, key bits, recipients or threads; the other three and the cipher
-- are held constant within a fit (held_constant names them), so a study gets the fits its runs
-- support and a configuration measured with several ciphers gets one line per cipher.
-- Rate and round trip against threads are not fitted: throughput saturates as threads grow, a
-- curve a straight line misrepresents (fct_thread_sweep / fct_sweep_summary describe it).
-- The rows of int_fit_points, where the logic lives (marts read intermediates, not marts).
select * from {{ ref('int_fit_points') }}
