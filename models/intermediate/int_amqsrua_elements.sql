-- One row per amqsrua element with the run it measured: the run folder its file was dropped
-- in, else the run whose interval holds the middle of the publication's interval. amqsrua
-- prints the MQMD put time, which MQ sets in UTC: it is compared with the run's interval in
-- UTC (int_runs.interval_start_utc: the manifest's local interval moved by the run's or
-- study's utc_offset / timezone; none stated, the local clock is taken to be UTC).
with elements as (
    select * from {{ ref('stg_amqsrua__elements') }}
)

{{ attribute_to_runs('elements', 'interval_mid_utc', clock='utc') }}
