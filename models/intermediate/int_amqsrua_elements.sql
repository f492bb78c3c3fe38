-- One row per amqsrua element with the run it measured: the run folder its file was dropped
-- in, else the run whose interval holds the middle of the publication's interval. amqsrua
-- does not print the queue manager, and its times are UTC (MQMD put time): a run attributed
-- by time needs its manifest interval in the same clock.
with elements as (
    select * from {{ ref('stg_amqsrua__elements') }}
)

{{ attribute_to_runs('elements', 'interval_mid_utc') }}
