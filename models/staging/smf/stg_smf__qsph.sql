-- Generated from pipelines/mqcap/parsers/smf/structures.py by python -m mqcap.codegen.
-- Storage pool header statistics (SMF 115.5).
-- Second copies of a record (the same dump dropped twice) do not count: macros/first_copy.
with source as (
    {{ first_copy(source('smf', 'smf_qsph'), when='record_time_local is not null') }}
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
    current_size,
    previous_size,
    expansion_size,
    record_size,
    records_per_segment,
    phb_count,
    dataspace_name,
    name,
    attr_fixed,
    attr_glob,
    attr_dsp,
    attr_ivsa,
    attr_64bit
from source
