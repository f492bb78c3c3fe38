-- One row per run x TCPIPMonitor subject (a connection's socket from MONPORT, an interface
-- from IFST): bytes and segments moved and retransmits summed over the samples, and the mean
-- and peak of the printed byte rates. When the run has an interval only the samples inside it
-- count (a monitor started before the run and stopped after it); without one, every sample of
-- the run folder counts.
-- Its row checks read dim_run (macros/row_checks.sql), so it is built after it:
-- depends_on: {{ ref('dim_run') }}
{{ run_keyed_incremental() }}
with samples as (
    select * from {{ ref('int_tcpipmon_samples') }}
),

runs as (
    select * from {{ ref('int_runs') }}
),

counted as (
    select
        samples.*,
        runs.study,
        runs.run_id,
        runs.configuration,
        runs.message_bytes
    from samples
    inner join runs on samples.run_key = runs.run_key
    where samples.in_run_interval or runs.interval_start is null
)

select
    counted.run_key || '|' || counted.subject_kind || '|' || counted.subject as tcpip_throughput_key,
    min(counted.study) as study,
    counted.run_key,
    min(counted.run_id) as run_id,
    min(counted.configuration) as configuration,
    min(counted.message_bytes) as message_bytes,
    counted.subject_kind,
    counted.subject,
    count(*) as samples,
    min(counted.sample_time) as first_sample_time,
    max(counted.sample_time) as last_sample_time,
    cast(sum(counted.in_bytes) as {{ dbt.type_bigint() }}) as in_bytes,
    cast(sum(counted.out_bytes) as {{ dbt.type_bigint() }}) as out_bytes,
    cast(sum(counted.in_segments) as {{ dbt.type_bigint() }}) as in_segments,
    cast(sum(counted.out_segments) as {{ dbt.type_bigint() }}) as out_segments,
    cast(sum(counted.retransmits) as {{ dbt.type_bigint() }}) as retransmits,
    avg(counted.in_bytes_per_s) as in_bytes_per_s_mean,
    max(counted.in_bytes_per_s) as in_bytes_per_s_max,
    avg(counted.out_bytes_per_s) as out_bytes_per_s_mean,
    max(counted.out_bytes_per_s) as out_bytes_per_s_max,
    min(counted.source_file) as source_file
from counted
group by counted.run_key, counted.subject_kind, counted.subject
