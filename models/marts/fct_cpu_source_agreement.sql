-- One row per run x role x CPU source, where a run has CPU from more than one source: how far
-- each source is from the one fct_address_space_cost uses (a GX check bounds the ratio).
{{ run_keyed_incremental() }}
with attributed as (
    select
        run_key,
        role,
        cpu_source,
        sum(cpu_s) as cpu_s,
        min(source_file) as source_file
    from {{ ref('int_cpu_attributed') }}
    group by run_key, role, cpu_source
),

chosen as (
    select * from {{ ref('int_address_space_cost') }}
)

select
    attributed.run_key || '|' || attributed.role || '|' || attributed.cpu_source as agreement_key,
    chosen.study,
    attributed.run_key,
    attributed.role,
    attributed.cpu_source,
    chosen.cpu_source as preferred_source,
    attributed.cpu_s,
    chosen.cpu_s as preferred_cpu_s,
    case when chosen.cpu_s > 0 then attributed.cpu_s / chosen.cpu_s end as ratio_to_preferred,
    attributed.source_file
from attributed
inner join chosen on attributed.run_key = chosen.run_key and attributed.role = chosen.role
where attributed.cpu_source <> chosen.cpu_source
