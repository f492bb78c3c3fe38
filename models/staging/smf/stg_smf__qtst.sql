-- Generated from pipelines/mqcap/parsers/smf/structures.py by python -m mqcap.codegen.
-- Topic manager statistics per interval (SMF 115.2).
-- Second copies of a record (the same dump dropped twice) do not count: macros/first_copy.
with source as (
    {{ first_copy(source('smf', 'smf_qtst'), when='record_time_local is not null') }}
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
    total_subs_count,
    durable_subs_count,
    subs_high_water_api,
    subs_high_water_admin,
    subs_high_water_proxy,
    subs_low_water_api,
    subs_low_water_admin,
    subs_low_water_proxy,
    subs_expired,
    total_published_msg,
    single_sub_high_water,
    pubs_total_api,
    pubs_total_admin,
    pubs_total_proxy,
    pubs_high_water,
    pubs_low_water,
    pubs_no_subscriber,
    publish_elapsed_high_water_us,
    publish_elapsed_total_us
from source
