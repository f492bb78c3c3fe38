-- One row per study x cipher x step to the next stronger certificate key (e.g. RSA 1024 ->
-- 2048): channel start time per channel and CHIN cost before and after, and the % increase.
-- "Medium to high" and "high to very high" in the key-size study are these steps.
-- The rows of int_channel_start_key_steps, where the logic lives (marts read intermediates, not marts).
select * from {{ ref('int_channel_start_key_steps') }}
