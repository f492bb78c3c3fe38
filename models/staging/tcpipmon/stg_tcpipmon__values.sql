-- One row per value of a TCPIPMonitor print-out (per connection or per interface); names as
-- printed, blank values as NULL.
with source as (
    select * from {{ source('tcpipmon', 'tcpipmon_value') }}
)

select
    cast(file_id as {{ dbt.type_string() }}) || '-' || cast(source_line as {{ dbt.type_string() }})
    || '-' || subject || '-' || name as tcpipmon_value_key,
    file_id,
    source_file,
    source_line,
    printout,
    time_of_day,
    subject,
    name as value_name,
    nullif(trim(value), '') as value_text,
    value_number,
    previous_number
from source
