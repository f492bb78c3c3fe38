-- Generated from pipelines/mqcap/parsers/smf/structures.py by python -m mqcap.codegen.
-- Class 1 accounting: CPU and put/get counts by message size per task (SMF 116.0).
-- Second copies of a record (the same dump dropped twice) do not count: macros/first_copy.
with source as (
    {{ first_copy(source('smf', 'smf_qmac'), when='record_time_local is not null') }}
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
    authorisation_id,
    correl_id,
    connection_name,
    operator_id,
    application_type,
    accounting_token,
    network_id,
    cpu_time_us,
    puts_len_0to99,
    puts_len_100to999,
    puts_len_1000to9999,
    puts_len_10000,
    gets_len_0to99,
    gets_len_100to999,
    gets_len_1000to9999,
    gets_len_10000
from source
