-- One row per loaded file and landing table a mart reads: the file's records there (first
-- copies: later copies count once, see fct_duplicate_records) against the records that reach
-- a run, and whether the difference is a finding (`is_dropped`) with its reason.
-- A record: a results row or driver summary, a CHSTATUS block, a NETSTAT poll x connection, an
-- SMF channel-accounting or task record, an RMF crypto row, a CPU interval, an amqsrua element
-- or amqsmon value, a TCPIPMonitor sample.
-- Which shortfall is a finding:
-- - `every` record must reach: files in a run folder whose rows all belong to that run (results,
--   CHSTATUS, NETSTAT, SMF, RMF crypto, amqsrua, amqsmon) and results files that name their
--   runs (outside run folders);
-- - `any` record must reach: files dropped outside run folders and attributed by time (one
--   day's SMF dump covers many runs: records outside every run's interval are expected), CPU
--   intervals (only jobs the manifest names reach), mq-cph summaries and cphtestp series (one
--   summary or matching row per run).
-- Files no run can claim (ledger attribution 'none') are reported as unattributed already.
-- Records counted in two or more runs (`is_shared`, `records_shared`, `shared_runs`): a file
-- outside run folders whose records fall in the intervals of overlapping runs on their system
-- and queue manager (two studies measured at once, or overlapping intervals) counts in each of
-- them; they are reported, not summed (CPU intervals: fct_address_space_cost.
-- cpu_also_counted_in; results rows and driver summaries name one run each).
-- Both engines. On Spark it was left out while the intermediate models it reads were views
-- (each recomputed where it was read: 5.6 min for this mart on local[2], and the Java heap ran
-- out beside it); they are tables there now, and it took 7.5 s on the ten-run mini study.
with files as (
    select * from {{ ref('stg_meta__files') }}
),

runs as (
    select * from {{ ref('int_runs') }}
),

driver_reached as (
    select distinct
        results.driver_format,
        results.file_id,
        results.source_line
    from {{ ref('int_driver_results_attributed') }} as results
    inner join runs on results.run_key = runs.run_key
),

-- Results rows outside run folders that name a run whose own folder has results: the folder's
-- count (int_driver_results_attributed, attribution_rank), these rows do not; per file, the
-- runs they name and the files the runs' results come from.
driver_counted as (
    select
        results.run_key,
        {{ mqcap_string_agg('results.source_file', "', '", 'results.source_file', distinct=true) }}
            as counted_from
    from {{ ref('int_driver_results_attributed') }} as results
    inner join runs on results.run_key = runs.run_key
    group by results.run_key
),

driver_outranked as (
    select
        outranked.file_id,
        {{ mqcap_string_agg('outranked.run_and_files', "'; '", 'outranked.run_and_files', distinct=true) }}
            as outranked_runs
    from (
        select
            rows_in.file_id,
            counted.run_key || ' (counted from ' || counted.counted_from || ')' as run_and_files
        from {{ ref('stg_driver__results') }} as rows_in
        inner join driver_counted as counted
            on rows_in.results_study || '/' || rows_in.results_run_id = counted.run_key
        left join driver_reached as reached
            on
                reached.driver_format = 'driver_csv'
                and rows_in.file_id = reached.file_id
                and rows_in.source_line = reached.source_line
        where reached.file_id is null
    ) as outranked
    group by outranked.file_id
),

-- Runs with two or more results rows at their best precedence (int_driver_results_candidates):
-- none of them counts. Per file and driver format: those runs, each with every file and line
-- that gives it results there.
driver_ambiguous_rows as (
    select
        candidates.run_key,
        candidates.file_id,
        candidates.driver_format,
        candidates.source_file || ' line ' || cast(candidates.source_line as {{ dbt.type_string() }})
            as file_and_line
    from {{ ref('int_driver_results_candidates') }} as candidates
    where candidates.attribution_rank = candidates.best_rank and candidates.rows_at_rank > 1
),

driver_ambiguous_runs as (
    select
        run_key,
        cast(count(*) as {{ dbt.type_string() }}) || ' results: '
        || {{ mqcap_string_agg('file_and_line', "', '", 'file_and_line', distinct=true) }}
            as sources
    from driver_ambiguous_rows
    group by run_key
),

driver_ambiguous as (
    select
        ambiguous.source_table,
        ambiguous.file_id,
        {{ mqcap_string_agg('ambiguous.run_and_sources', "'; '", 'ambiguous.run_and_sources', distinct=true) }}
            as ambiguous_runs
    from (
        select
            case rows_in.driver_format
                when 'driver_csv' then 'driver_results'
                when 'mq_cph' then 'driver_cph'
                else 'driver_cphtestp'
            end as source_table,
            rows_in.file_id,
            rows_in.run_key || ' (' || runs.sources || ')' as run_and_sources
        from driver_ambiguous_rows as rows_in
        inner join driver_ambiguous_runs as runs on rows_in.run_key = runs.run_key
    ) as ambiguous
    group by ambiguous.source_table, ambiguous.file_id
),

records as (
    select
        'driver_results' as source_table,
        'results row' as record_kind,
        rows_in.file_id,
        cast(null as {{ dbt.type_timestamp() }}) as record_time,
        rows_in.results_study || '/' || rows_in.results_run_id as named_run,
        case when reached.file_id is not null then 1 else 0 end as reached,
        cast(null as {{ dbt.type_string() }}) as shared_runs
    from {{ ref('stg_driver__results') }} as rows_in
    left join driver_reached as reached
        on
            reached.driver_format = 'driver_csv'
            and rows_in.file_id = reached.file_id
            and rows_in.source_line = reached.source_line
    union all
    select
        'driver_cph' as source_table,
        'mq-cph summary' as record_kind,
        rows_in.file_id,
        cast(null as {{ dbt.type_timestamp() }}) as record_time,
        cast(null as {{ dbt.type_string() }}) as named_run,
        case when reached.file_id is not null then 1 else 0 end as reached,
        cast(null as {{ dbt.type_string() }}) as shared_runs
    from {{ ref('stg_driver__cph_runs') }} as rows_in
    left join driver_reached as reached
        on
            reached.driver_format = 'mq_cph'
            and rows_in.file_id = reached.file_id
            and rows_in.source_line = reached.source_line
    union all
    select
        'driver_cphtestp' as source_table,
        'cphtestp row' as record_kind,
        rows_in.file_id,
        cast(null as {{ dbt.type_timestamp() }}) as record_time,
        cast(null as {{ dbt.type_string() }}) as named_run,
        case when reached.file_id is not null then 1 else 0 end as reached,
        cast(null as {{ dbt.type_string() }}) as shared_runs
    from {{ ref('stg_driver__cphtestp_results') }} as rows_in
    left join driver_reached as reached
        on
            reached.driver_format <> 'driver_csv'
            and reached.driver_format <> 'mq_cph'
            and rows_in.file_id = reached.file_id
            and rows_in.source_line = reached.source_line
    union all
    select
        'chstatus_attr' as source_table,
        'CHSTATUS block' as record_kind,
        blocks.file_id,
        blocks.snapshot_time as record_time,
        cast(null as {{ dbt.type_string() }}) as named_run,
        case when reached.channel_status_key is not null then 1 else 0 end as reached,
        reached.shared_runs
    from {{ ref('int_chstatus_channel_statuses') }} as blocks
    left join {{ runs_reaching('channel_status_key', ref('int_channel_status_snapshots')) }} as reached
        on blocks.channel_status_key = reached.channel_status_key
    union all
    select
        'netstat_conn' as source_table,
        'NETSTAT poll x connection' as record_kind,
        polls.file_id,
        polls.poll_ts as record_time,
        cast(null as {{ dbt.type_string() }}) as named_run,
        case when reached.connection_poll_key is not null then 1 else 0 end as reached,
        reached.shared_runs
    from {{ ref('int_netstat_connections') }} as polls
    left join {{ runs_reaching('connection_poll_key', ref('int_netstat_polls')) }} as reached
        on polls.connection_poll_key = reached.connection_poll_key
    union all
    select
        'smf_qcst' as source_table,
        'SMF channel accounting record' as record_kind,
        qcst.file_id,
        cast(null as {{ dbt.type_timestamp() }}) as record_time,
        cast(null as {{ dbt.type_string() }}) as named_run,
        case when reached.smf_row_key is not null then 1 else 0 end as reached,
        reached.shared_runs
    from {{ ref('stg_smf__qcst') }} as qcst
    left join {{ runs_reaching('smf_row_key', ref('int_smf_channel_accounting')) }} as reached
        on qcst.smf_row_key = reached.smf_row_key
    {% for table in ['qctdsp', 'qctadp', 'qctssl', 'qctdns'] %}
        union all
        select
            'smf_{{ table }}' as source_table,
            'SMF task record' as record_kind,
            tasks.file_id,
            cast(null as {{ dbt.type_timestamp() }}) as record_time,
            cast(null as {{ dbt.type_string() }}) as named_run,
            case when reached.smf_row_key is not null then 1 else 0 end as reached,
            reached.shared_runs
        from {{ ref('stg_smf__' ~ table) }} as tasks
        left join {{ runs_reaching('smf_row_key', ref('int_smf_chinit_tasks')) }} as reached
            on tasks.smf_row_key = reached.smf_row_key
    {% endfor %}
    union all
    select
        'rmf_crypto' as source_table,
        'RMF crypto row' as record_kind,
        crypto.file_id,
        crypto.interval_start as record_time,
        cast(null as {{ dbt.type_string() }}) as named_run,
        case when reached.crypto_row_key is not null then 1 else 0 end as reached,
        reached.shared_runs
    from {{ ref('stg_rmf__crypto_card_intervals') }} as crypto
    left join {{ runs_reaching('crypto_row_key', ref('int_crypto_intervals')) }} as reached
        on crypto.crypto_row_key = reached.crypto_row_key
    union all
    select
        case when cpu.cpu_source = 'rmf_workload' then 'rmf_workload' else 'ascpu_interval' end
            as source_table,
        'CPU interval' as record_kind,
        cpu.file_id,
        cpu.interval_start as record_time,
        cast(null as {{ dbt.type_string() }}) as named_run,
        case when reached.source_file is not null then 1 else 0 end as reached,
        cast(null as {{ dbt.type_string() }}) as shared_runs
    from {{ ref('int_cpu_intervals') }} as cpu
    left join (
        select distinct
            source_file,
            source_line
        from {{ ref('int_cpu_attributed') }}
    ) as reached
        on cpu.source_file = reached.source_file and cpu.source_line = reached.source_line
    union all
    select
        'amqsrua_value' as source_table,
        'amqsrua element' as record_kind,
        rua.file_id,
        cast(null as {{ dbt.type_timestamp() }}) as record_time,
        cast(null as {{ dbt.type_string() }}) as named_run,
        case when reached.amqsrua_element_key is not null then 1 else 0 end as reached,
        reached.shared_runs
    from {{ ref('stg_amqsrua__elements') }} as rua
    left join {{ runs_reaching('amqsrua_element_key', ref('int_amqsrua_elements')) }} as reached
        on rua.amqsrua_element_key = reached.amqsrua_element_key
    union all
    select
        'amqsmon_value' as source_table,
        'amqsmon value' as record_kind,
        mon.file_id,
        mon.interval_start_local as record_time,
        cast(null as {{ dbt.type_string() }}) as named_run,
        case when reached.amqsmon_value_key is not null then 1 else 0 end as reached,
        reached.shared_runs
    from {{ ref('stg_amqsmon__values') }} as mon
    left join {{ runs_reaching('amqsmon_value_key', ref('int_amqsmon_values')) }} as reached
        on mon.amqsmon_value_key = reached.amqsmon_value_key
    union all
    select
        'tcpipmon_value' as source_table,
        'TCPIPMonitor sample' as record_kind,
        samples.file_id,
        cast(null as {{ dbt.type_timestamp() }}) as record_time,
        cast(null as {{ dbt.type_string() }}) as named_run,
        case when samples.run_key is not null then 1 else 0 end as reached,
        cast(null as {{ dbt.type_string() }}) as shared_runs
    from {{ ref('int_tcpipmon_samples') }} as samples
),

per_file as (
    select
        source_table,
        record_kind,
        file_id,
        count(*) as records,
        cast(sum(reached) as {{ dbt.type_bigint() }}) as records_reaching,
        cast(sum(case when shared_runs is not null then 1 else 0 end) as {{ dbt.type_bigint() }})
            as records_shared,
        {{ mqcap_string_agg('shared_runs', "'; '", 'shared_runs', distinct=true) }}
            as shared_runs,
        min(record_time) as first_record_time,
        max(record_time) as last_record_time,
        {{ mqcap_string_agg(
            'case when reached = 0 then named_run end', "', '", 'case when reached = 0 then named_run end', distinct=true
        ) }} as unknown_runs_named
    from records
    group by source_table, record_kind, file_id
),

judged as (
    select
        per_file.*,
        files.source_file,
        files.kind,
        files.folder_study,
        files.folder_run_id,
        files.rows_landed,
        files.unknown_lines,
        outranked.outranked_runs,
        ambiguous.ambiguous_runs,
        case
            when files.kind = 'driver_csv' then 'every'
            when
                files.folder_run_id is not null
                and per_file.source_table not in (
                    'driver_cph', 'driver_cphtestp', 'rmf_workload', 'ascpu_interval',
                    'tcpipmon_value'
                )
                then 'every'
            else 'any'
        end as expectation
    from per_file
    inner join files on per_file.file_id = files.file_id
    left join driver_outranked as outranked
        on
            per_file.source_table = 'driver_results'
            and per_file.file_id = outranked.file_id
    left join driver_ambiguous as ambiguous
        on
            per_file.source_table = ambiguous.source_table
            and per_file.file_id = ambiguous.file_id
    where coalesce(files.attribution, '') <> 'none'
)

select
    source_table || '|' || cast(file_id as {{ dbt.type_string() }}) as file_reconciliation_key,
    file_id,
    source_file,
    kind,
    source_table,
    record_kind,
    folder_study,
    folder_run_id,
    rows_landed,
    unknown_lines,
    records,
    records_reaching,
    records - records_reaching as records_not_reaching,
    expectation,
    (expectation = 'every' and records_reaching < records)
    or (expectation = 'any' and records_reaching = 0) as is_dropped,
    records_shared,
    shared_runs,
    records_shared > 0 as is_shared,
    case
        when expectation = 'every' and records_reaching = records then null
        when expectation = 'any' and records_reaching > 0 then null
        when ambiguous_runs is not null
            then
                'two or more load-driver results at the same precedence give run(s) '
                || ambiguous_runs
                || ': none counts, as which one measured the run cannot be told (keep one: delete or move the others)'
        when outranked_runs is not null
            then
                'its rows name run(s) ' || outranked_runs
                || ' whose own folder has results: a file in a run folder counts for its run and these rows do not (delete them here, or that file)'
        when unknown_runs_named is not null
            then
                'its rows name run(s) ' || unknown_runs_named
                || ' which no run.yaml declares (put it in the folder of its run, or fix its study and run_id columns)'
        when folder_run_id is null and first_record_time is not null
            then
                'none of its records falls in the interval of a run (times '
                || cast(first_record_time as {{ dbt.type_string() }}) || ' to '
                || cast(last_record_time as {{ dbt.type_string() }})
                || ') on its system and queue manager: check the run.yaml intervals, system and qmgr'
        when source_table in ('rmf_workload', 'ascpu_interval')
            then 'none of its CPU intervals is of a job or class the run.yaml names under jobs:'
        when folder_run_id is null
            then 'no run.yaml claims its records (no run folder above it, and nothing in it names a run)'
        else 'the models left them out'
    end
    || case
        when unknown_lines > 0 then '; ' || cast(unknown_lines as {{ dbt.type_string() }}) || ' line(s) of it were not recognised'
        else ''
    end as reason
from judged
