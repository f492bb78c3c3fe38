"""One row per run: its ``detail`` (the labels that tell it from its configuration's other runs
at the same workload point) and ``series`` (the configuration's display name, then `` · `` and
the detail when there is one). mqcap.series.label_series decides, within each study and
configuration: the detail columns (cipher, recipients, key strength, SSLRKEYC, persistence,
scenario, hardware model, threads) are tried in order, a column taken when it takes two or
more values, until no two runs share a workload point (workload type, message size) and the
columns taken.
"""

from mqcap.noise import model_frame, to_pandas
from mqcap.series import DETAIL_COLUMNS, label_series

COLUMNS = {
    "run_key": "string",
    "study": "string",
    "detail": "string",
    "series": "string",
}


def model(dbt, session):
    dbt.config(materialized="table", file_format="parquet")
    runs = to_pandas(dbt.ref("int_runs"))
    names = to_pandas(dbt.ref("int_configurations"))[["study", "configuration", "display_name"]]
    runs = runs[
        ["run_key", "study", "configuration", "workload_type", "message_bytes", *DETAIL_COLUMNS]
    ].merge(names, on=["study", "configuration"], how="left")
    # The series is named by the configuration's display name (dim_configuration's).
    runs["configuration_key"] = runs["configuration"]
    runs["configuration"] = runs["display_name"].fillna(runs["configuration_key"])
    labelled = label_series(runs, within=("study", "configuration_key"))
    rows = labelled[list(COLUMNS)].to_dict("records")
    return model_frame(session, rows, COLUMNS)
