"""Stand-in for dbt's ``api`` context object (``api.Column.translate_type``) for sqlfluff."""


class Column:
    @staticmethod
    def translate_type(dtype):
        return {"string": "varchar", "float": "double"}.get(dtype, dtype)
