-- One row per study x configuration x variant x message size x channel-initiator task type:
-- CPU and wait microseconds per request over the runs at that point, request-weighted (total
-- CPU / total requests), the bars of the report's task chart. Runs that differ only in thread
-- count or are repeats are pooled, so a study of hundreds of runs still draws a few bars per
-- panel; fct_chinit_task_stack keeps every run.
-- variant names the labels that tell a configuration's runs apart (cipher, scenario, hardware
-- model, persistence), those taking 2+ values within the configuration; '' when none.
with stack as (
    select * from {{ ref('int_chinit_task_stack') }}
),

runs as (
    select * from {{ ref('int_runs') }}
),

configurations as (
    select * from {{ ref('dim_configuration') }}
),

configuration_dimensions as (
    -- Over the runs with task statistics. A missing cipher counts as a value (a configuration
    -- measured with and without TLS varies in cipher); other missing labels do not.
    select
        runs.study,
        runs.configuration,
        count(distinct coalesce(runs.cipher, '-')) > 1 as cipher_varies,
        count(distinct runs.scenario) > 1 as scenario_varies,
        count(distinct runs.hardware_model) > 1 as hardware_model_varies,
        count(distinct runs.persistence) > 1 as persistence_varies
    from runs
    where runs.run_key in (select stack.run_key from stack)
    group by runs.study, runs.configuration
),

labelled as (
    select
        stack.study,
        stack.configuration,
        concat_ws(
            ', ',
            case when configuration_dimensions.cipher_varies then coalesce(runs.cipher, 'no cipher') end,
            case when configuration_dimensions.scenario_varies then runs.scenario end,
            case
                when configuration_dimensions.hardware_model_varies then runs.hardware_model
            end,
            case when configuration_dimensions.persistence_varies then runs.persistence end
        ) as variant,
        stack.message_bytes,
        stack.task_type,
        stack.stack_order,
        stack.threads,
        stack.requests,
        stack.cpu_us_per_request * stack.requests as cpu_us,
        stack.wait_us_per_request * stack.requests as wait_us,
        stack.elapsed_us_per_request
    from stack
    inner join runs on stack.run_key = runs.run_key
    inner join configuration_dimensions
        on
            runs.study = configuration_dimensions.study
            and runs.configuration = configuration_dimensions.configuration
),

profile as (
    select
        study,
        configuration,
        variant,
        message_bytes,
        task_type,
        stack_order,
        count(*) as runs,
        min(threads) as min_threads,
        max(threads) as max_threads,
        cast(sum(requests) as {{ dbt.type_bigint() }}) as requests,
        sum(cpu_us) / sum(requests) as cpu_us_per_request,
        sum(wait_us) / sum(requests) as wait_us_per_request,
        min(elapsed_us_per_request) as min_run_elapsed_us_per_request,
        max(elapsed_us_per_request) as max_run_elapsed_us_per_request
    from labelled
    group by study, configuration, variant, message_bytes, task_type, stack_order
)

select
    profile.study || '|' || profile.configuration || '|' || profile.variant || '|'
    || coalesce(cast(profile.message_bytes as {{ dbt.type_string() }}), '-') || '|'
    || profile.task_type as task_profile_key,
    profile.study,
    profile.configuration,
    configurations.display_name,
    configurations.sort_order,
    profile.variant,
    coalesce(configurations.display_name, profile.configuration)
    || case when profile.variant = '' then '' else ' · ' || profile.variant end as bar_label,
    profile.message_bytes,
    profile.task_type,
    profile.stack_order,
    profile.runs,
    profile.min_threads,
    profile.max_threads,
    profile.requests,
    profile.cpu_us_per_request,
    profile.wait_us_per_request,
    profile.cpu_us_per_request + profile.wait_us_per_request as elapsed_us_per_request,
    profile.min_run_elapsed_us_per_request,
    profile.max_run_elapsed_us_per_request
from profile
left join configurations
    on profile.study = configurations.study and profile.configuration = configurations.configuration
