-- One row per channel-initiator task per SMF 115/231 interval (class 4 statistics), with the
-- run it measured: the run folder the dump was dropped in, else the run whose interval holds
-- the SMF interval's midpoint (local time, same queue manager / system when the manifest names one).
-- The four task types (dispatcher, adapter, SSL, DNS) land in four tables of one layout.
{%- set task_models = [
    ('dispatcher', ref('stg_smf__qctdsp')),
    ('adapter', ref('stg_smf__qctadp')),
    ('ssl', ref('stg_smf__qctssl')),
    ('dns', ref('stg_smf__qctdns')),
] %}
with tasks as (
    {%- for task_type, task_model in task_models %}
        select
            '{{ task_type }}' as task_type,
            smf_row_key,
            file_id,
            source_file,
            source_offset,
            record_time_local,
            system_id,
            qmgr_name,
            -- mq-smf-csv prints the interval in whole seconds only (interval_duration_us NULL):
            -- without this, CPU intervals and busy % were empty for CSV input.
            coalesce(interval_duration_us, interval_duration_s * 1000000) as interval_duration_us,
            task_number,
            request_count,
            task_cpu_time_us,
            task_elapsed_time_us,
            task_wait_time_us
        from {{ task_model }}
        {%- if not loop.last %}
            union all
        {%- endif %}
    {%- endfor %}
),

timed as (
    select
        *,
        {{ dbt.dateadd('millisecond', '-1 * interval_duration_us / 2000', 'record_time_local') }}
            as interval_mid_local
    from tasks
),

attributed as (
    {{ attribute_to_runs('timed', 'interval_mid_local', 'system_id', 'qmgr_name') }}
)

select
    run_key || '|' || task_type || '|' || smf_row_key as run_task_record_key,
    *
from attributed
