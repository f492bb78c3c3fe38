-- One row per study x configuration x fit variable x held-constant set x measure x subject:
-- least squares y = a * x + b with R-squared, standard errors and 95% confidence intervals.
-- Only groups with at least two distinct x values are fitted.
-- fit_label names what tells a configuration's fits apart: the held-constant values that vary
-- between the fits of the same study, x variable, measure and subject (a cipher by its name,
-- others as name=value, one the runs do not give as "no <name>"), empty when nothing varies.
-- The rows of int_fit, where the logic lives (marts read intermediates, not marts).
select * from {{ ref('int_fit') }}
