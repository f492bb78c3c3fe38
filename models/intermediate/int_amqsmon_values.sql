-- One row per amqsmon statistics/accounting value with the run it measured: the run folder
-- its file was dropped in, else the run whose interval holds the middle of the record's
-- interval (queue manager clock), on the manifest's queue manager when it names one.
with valued as (
    select
        *,
        {{ dbt.datediff('interval_start_local', 'interval_end_local', 'second') }}
            as interval_s
    from {{ ref('stg_amqsmon__values') }}
),

timed as (
    select
        *,
        {{ dbt.dateadd('millisecond', 'interval_s * 500', 'interval_start_local') }}
            as interval_mid_local
    from valued
)

{{ attribute_to_runs('timed', 'interval_mid_local', qmgr_col='qmgr_name') }}
