-- Generated from pipelines/mqcap/parsers/smf/structures.py by python -m mqcap.codegen.
-- Storage manager statistics per interval (SMF 115.1).
-- Second copies of a record (the same dump dropped twice) do not count: macros/first_copy.
with source as (
    {{ first_copy(source('smf', 'smf_qsst'), when='record_time_local is not null') }}
)

select
    cast(file_id as {{ dbt.type_string() }}) || '-'
    || cast(coalesce(source_record, source_line) as {{ dbt.type_string() }}) || '-'
    || cast(source_item as {{ dbt.type_string() }}) as smf_row_key,
    file_id,
    source_file,
    source_offset,
    source_record,
    source_line,
    source_item,
    smf_type,
    smf_subtype,
    record_time_local,
    system_id,
    qmgr as qmgr_name,
    qsg,
    mq_version,
    interval_start_utc,
    interval_duration_s,
    interval_duration_us,
    fixed_pools_alloc,
    fixed_pools_freed,
    fixed_pools_seg_freed,
    fixed_pools_seg_expand,
    fixed_pools_seg_contract,
    var_pools_alloc,
    var_pools_freed,
    var_pools_seg_freed,
    var_pools_seg_expand,
    var_pools_seg_contract,
    getmain_count,
    freemain_count,
    nonzero_return_code,
    sos_contractions,
    sos_set,
    sos_abend
from source
