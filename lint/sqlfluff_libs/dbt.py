"""Stand-ins for dbt's cross-database macros so sqlfluff can lint models without running dbt.

sqlfluff exposes this module to the Jinja templater as ``dbt`` (see ``library_path`` in .sqlfluff).
They render DuckDB SQL of the same shape as the real macros.
"""


def datediff(first, second, datepart):
    return f"date_diff('{datepart}', {first}, {second})"


def dateadd(datepart, interval, from_date_or_timestamp):
    return f"({from_date_or_timestamp} + interval ({interval}) {datepart})"


def type_int():
    return "integer"


def type_bigint():
    return "bigint"


def type_float():
    return "double"


def type_numeric():
    return "decimal(28, 6)"


def type_string():
    return "varchar"


def type_timestamp():
    return "timestamp"


def type_boolean():
    return "boolean"


def safe_cast(field, type_):
    return f"try_cast({field} as {type_})"


def concat(fields):
    return " || ".join(fields)


def split_part(string_text, delimiter_text, part_number):
    return f"split_part({string_text}, {delimiter_text}, {part_number})"


def hash(field):  # noqa: A001 - dbt's name
    return f"md5(cast({field} as varchar))"


def cast_bool_to_text(field):
    return f"cast({field} as varchar)"


def any_value(expression):
    return f"any_value({expression})"


def bool_or(expression):
    return f"bool_or({expression})"


def listagg(measure, delimiter_text="','", order_by_clause=None, limit_num=None):
    return f"string_agg({measure}, {delimiter_text})"


def position(substring_text, string_text):
    return f"position({substring_text} in {string_text})"


def length(expression):
    return f"length({expression})"


def replace(field, old_chars, new_chars):
    return f"replace({field}, {old_chars}, {new_chars})"


def right(string_text, length_expression):
    return f"right({string_text}, {length_expression})"


def escape_single_quotes(expression):
    return expression.replace("'", "''")


def string_literal(value):
    return f"'{value}'"


def current_timestamp():
    return "current_timestamp"


def date_trunc(datepart, date):
    return f"date_trunc('{datepart}', {date})"


def last_day(date, datepart):
    return f"last_day({date})"
