-- One row per CPU measurement interval of one address space (job) or WLM class, from every
-- source: address-space CPU CSV (and later SMF 30), RMF WORKLOAD ACTIVITY classes.
-- cpu_s is the total CPU time of the interval: for RMF classes SERVICE TIME CPU + SRB + RCT +
-- IIT + HST (the sum behind APPL %; CPU includes zIIP/zAAP time), for SMF 30 the same parts.
with ascpu as (
    select * from {{ ref('stg_ascpu__intervals') }}
),

wlm as (
    -- A class reported by period has one row per period of its file: its CPU is their sum.
    -- Per file: reports of two run folders stay apart, each in its own run (int_cpu_attributed).
    select
        file_id,
        upper(class_name) as class_name,
        interval_start,
        max(interval_end) as interval_end,
        max(interval_s) as interval_s,
        sum(
            service_time_cpu_s + coalesce(service_time_srb_s, 0) + coalesce(service_time_rct_s, 0)
            + coalesce(service_time_iit_s, 0) + coalesce(service_time_hst_s, 0)
        ) as cpu_s,
        min(source_file) as source_file,
        min(source_line) as source_line
    from {{ ref('stg_rmf__workload_class_intervals') }}
    group by file_id, upper(class_name), interval_start
)

select
    coalesce(ascpu.cpu_source, 'csv') || '|' || ascpu.ascpu_interval_key as cpu_interval_key,
    coalesce(ascpu.cpu_source, 'csv') as cpu_source,
    ascpu.system_id,
    ascpu.jobname as cpu_name,
    ascpu.interval_start,
    ascpu.interval_end,
    {{ dbt.datediff('ascpu.interval_start', 'ascpu.interval_end', 'millisecond') }} / 1000.0
        as interval_s,
    ascpu.cpu_s,
    ascpu.file_id,
    ascpu.source_file,
    ascpu.source_line
from ascpu
union all
select
    'rmf_workload|' || cast(wlm.file_id as {{ dbt.type_string() }}) || '|' || wlm.class_name
    || '|' || cast(wlm.interval_start as {{ dbt.type_string() }}) as cpu_interval_key,
    'rmf_workload' as cpu_source,
    null as system_id,
    wlm.class_name as cpu_name,
    wlm.interval_start,
    wlm.interval_end,
    wlm.interval_s,
    wlm.cpu_s,
    wlm.file_id,
    wlm.source_file,
    wlm.source_line
from wlm
