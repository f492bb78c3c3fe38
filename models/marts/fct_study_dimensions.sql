-- One row per study x workload type x design dimension that takes 2+ values among the study's
-- runs of that workload (configuration, scenario, hardware model, message size, persistence,
-- threads, recipients, target rate, cipher, key strength, key size, SSLRKEYC): how many values,
-- which (numbers in numeric order), and whether the study's run summary names it.
-- A dimension is not shown when it says nothing about the design: a configuration per run
-- (a scenario may name each run's configuration after its labels), or the key size where the
-- key strength already varies (RSA and ECC keys of one strength differ in bits).
-- The rows of int_study_dimensions, where the logic lives (marts read intermediates, not marts).
select * from {{ ref('int_study_dimensions') }}
