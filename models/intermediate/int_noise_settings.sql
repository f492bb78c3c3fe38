-- One row per study: the thresholds of its noise-aware comparisons and change points, from the
-- study file's `noise` mapping, else the defaults (parsers/study.py NOISE_DEFAULTS).
with studies as (
    select distinct study from {{ ref('int_runs') }}
),

files as (
    select * from {{ ref('stg_manifest__studies') }}
)

select
    studies.study,
    coalesce(files.min_change_pct, 1.0) as min_change_pct,
    coalesce(files.change_point_pvalue, 0.001) as change_point_pvalue,
    case
        when files.min_change_pct is not null or files.change_point_pvalue is not null
            then 'study.yaml'
        else 'default'
    end as noise_settings_source
from studies
left join files on studies.study = files.study
