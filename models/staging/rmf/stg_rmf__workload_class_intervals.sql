-- One row per RMF interval and WLM service- or report-class section (and period).
-- Second copies of a record (the same file dropped twice) do not count: macros/first_copy.
with source as (
    {{ first_copy(source('rmf', 'rmf_workload'), when='interval_start is not null') }}
),

renamed as (
    select
        {{ lineage_columns() }},
        sysplex,
        zos_level,
        interval_start,
        interval_s,
        {{ dbt.dateadd('millisecond', 'cast(round(interval_s * 1000) as bigint)', 'interval_start') }}
            as interval_end,
        policy as wlm_policy,
        workload as wlm_workload,
        class_kind,
        class_name,
        nullif(resource_group, '*NONE') as resource_group,
        period,
        importance,
        cpu_s as service_time_cpu_s,
        srb_s as service_time_srb_s,
        rct_s as service_time_rct_s,
        iit_s as service_time_iit_s,
        hst_s as service_time_hst_s,
        aap_s as service_time_aap_s,
        iip_s as service_time_iip_s,
        appl_cp_pct,
        appl_aapcp_pct,
        appl_iipcp_pct,
        appl_aap_pct,
        appl_iip_pct
    from source
)

select
    {{ dbt.concat([
        "cast(file_id as " ~ dbt.type_string() ~ ")", "'/'",
        source_position()
    ]) }} as workload_row_key,
    *
from renamed
