"""Report code: marts in, tables and charts out; the ``.qmd`` files only arrange them.

``queries`` reads ``marts.*`` (no business logic), ``labels`` names runs and sizes,
``tables`` shapes frames for tables, ``charts`` draws Altair charts, ``text`` escapes and
numbers captions. Every number and every decision a report shows comes from a mart.

Example:
    from mqcap.sections import queries as q, tables as t, charts as c
    c.cost_chart(q.series_costs("attls"), q.config_colors("attls"), "Figure 1: ...")
"""
