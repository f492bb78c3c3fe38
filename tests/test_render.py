"""Rendering Quarto reports with mqcap's own engine: real kernel, pandoc and Typst."""

from __future__ import annotations

import html
import os
import re
import stat
import sys
from pathlib import Path

import pandas as pd
import polars as pl
import pytest
from pypdf import PdfReader

from mqcap.render import RenderError, render_report
from mqcap.render import display as display_mod
from mqcap.render.display import chart, column_label, escape_markdown, note, table
from mqcap.render.execute import build_notebook
from mqcap.render.qmd import parse_qmd, parse_qmd_text

FIXTURES = Path(__file__).parent / "fixtures" / "render"
HOSTILE = "<script>alert(1)</script>"

pytestmark = pytest.mark.e2e


PROGRESS: list[str] = []


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("render")
    return render_report(
        FIXTURES / "report.qmd",
        out,
        params={"study": "tls-override"},
        env={"MQCAP_WAREHOUSE": str(out / "from-env.duckdb")},
        engine="own",
        progress=PROGRESS.append,
    )


@pytest.fixture(scope="module")
def page(rendered: dict[str, Path]) -> str:
    return rendered["html"].read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def pdf(rendered: dict[str, Path]) -> PdfReader:
    return PdfReader(rendered["pdf"])


def test_render_writes_html_and_pdf_and_cleans_up(rendered: dict[str, Path]) -> None:
    assert sorted(rendered) == ["html", "pdf"]
    assert rendered["html"].name == "report.html"
    assert rendered["pdf"].read_bytes()[:5] == b"%PDF-"
    # Intermediate markdown, Typst and image files do not stay behind.
    assert sorted(p.name for p in rendered["html"].parent.iterdir()) == [
        "report.html",
        "report.pdf",
    ]


def test_html_inlines_vega_javascript_once_and_loads_nothing(page: str) -> None:
    assert page.count('<script id="mqcap-vega-bundle">') == 1
    assert "window.vegaEmbed=" in page
    assert re.search(r"<script[^>]*\ssrc=", page) is None
    assert re.search(r"<link[^>]*href=\"https?:", page) is None
    assert len(re.findall(r'<div class="mqcap-chart" id="mqcap-chart-', page)) == 2


def test_html_shows_the_hostile_label_as_text(page: str) -> None:
    assert f"<td>{html.escape(HOSTILE)}</td>" in page
    assert "<script>alert" not in page.lower()
    # Inside the chart spec the label is JSON with < and > escaped, so it cannot end the script.
    assert "\\u003cscript\\u003ealert(1)\\u003c/script\\u003e" in page


def test_html_numbers_figures_and_tables_and_links_references(page: str) -> None:
    assert '<a href="#tbl-cost">Table 1</a> lists' in page
    assert '<a href="#fig-cost">Figure 1</a> stacks' in page
    assert '<a href="#fig-rtt">Figure 2</a> shows' in page
    # [@fig-cost] in brackets resolves the same way.
    assert 'see also <a href="#fig-cost">Figure 1</a>)' in page
    caption = re.search(r'id="fig-rtt".*?class="mqcap-caption">\s*<p>(.*?)</p>', page, re.S)
    assert caption is not None
    assert " ".join(caption.group(1).split()) == (
        "Figure 2: Round-trip time against message size, measured points and fitted line"
    )
    table_caption = re.search(r'id="tbl-cost".*?<p>(.*?)</p>', page, re.S)
    assert table_caption is not None
    assert " ".join(table_caption.group(1).split()) == (
        "Table 1: CPU cost per transaction by address space (2 KB messages)"
    )


def test_html_has_title_block_toc_and_formatted_numbers(page: str) -> None:
    assert '<h1 class="title">Render test: TLS cost study</h1>' in page
    assert '<p class="date">2026-01-15</p>' in page
    assert '<nav id="TOC" role="doc-toc">' in page
    assert '<a href="#cost-per-transaction"' in page
    assert '<th class="num" style="text-align: right">CPU µs/txn</th>' in page
    assert '<td class="num" style="text-align: right">+74.47%</td>' in page
    assert '<td class="num" style="text-align: right">2,048</td>' in page
    # echo: false in the front matter: no source code in the output.
    assert "import altair" not in page
    # env reaches the kernel: the report prints the warehouse file name it was given.
    assert "5 workload points, 5 cost rows, warehouse from-env.duckdb" in page


def test_progress_reports_each_cell_then_each_file(rendered: dict[str, Path]) -> None:
    assert PROGRESS[0] == "cell 1/7 code cell 1, line 23"
    assert PROGRESS[1] == "cell 2/7 injected parameters cell"
    assert "cell 6/7 cell 'fig-rtt' (code cell 5, line 81)" in PROGRESS
    assert PROGRESS[-2:] == ["writing report.html", "writing report.pdf"]


def test_params_are_injected_after_the_parameters_cell(page: str) -> None:
    assert "Study: tls-override. Baseline configuration: No TLS." in page
    assert "default-study" not in page


def test_pdf_has_two_a4_pages_and_one_vector_image_per_chart(pdf: PdfReader) -> None:
    assert len(pdf.pages) == 2
    box = pdf.pages[0].mediabox
    assert (round(float(box.width)), round(float(box.height))) == (595, 842)
    forms = images = 0
    for p in pdf.pages:
        xobjects = p["/Resources"].get("/XObject") or {}
        for ref in xobjects.values():
            subtype = ref.get_object()["/Subtype"]
            forms += subtype == "/Form"
            images += subtype == "/Image"
    assert (forms, images) == (2, 0)


def test_pdf_text_has_captions_references_page_numbers_and_literal_label(pdf: PdfReader) -> None:
    text = [" ".join(p.extract_text().split()) for p in pdf.pages]
    assert "Table 1: CPU cost per transaction by address space (2 KB messages)" in text[0]
    assert "Figure 1: CPU µs per transaction, stacked by address space" in text[0]
    assert "Figure 2: Round-trip time against message size" in text[1]
    assert "Table 1 lists the cost per transaction" in text[0]
    assert "Study: tls-override." in text[0]
    assert "<script>alert(1)</" in text[0]
    assert text[0].endswith("1") and text[1].endswith("2")


def test_failing_cell_names_the_cell_and_the_error(tmp_path: Path) -> None:
    with pytest.raises(RenderError) as err:
        render_report(FIXTURES / "failing.qmd", tmp_path, formats=["html"], engine="own")
    message = str(err.value)
    assert "failing.qmd: cell 'tbl-broken' (code cell 3, line 15) failed" in message
    assert message.endswith("KeyError: 'no_such_column'")
    assert not (tmp_path / "failing.html").exists()


def test_unknown_cross_reference_fails_before_running_cells(tmp_path: Path) -> None:
    qmd = tmp_path / "typo.qmd"
    qmd.write_text("---\ntitle: T\n---\n\nSee @fig-costs.\n\n```{python}\nraise SystemExit\n```\n")
    with pytest.raises(RenderError, match=r"unresolved cross-reference @fig-costs"):
        render_report(qmd, tmp_path, engine="own")


def test_parse_reads_front_matter_cells_and_options() -> None:
    doc = parse_qmd(FIXTURES / "report.qmd")
    assert doc.meta["title"] == "Render test: TLS cost study"
    assert doc.execute_option("echo", True) is False
    assert doc.format_options("typst") == {"papersize": "a4"}
    code = [c for c in doc.cells if c.kind == "code"]
    assert [c.label for c in code] == [None, None, "tbl-cost", "fig-cost", "fig-rtt", None]
    assert code[0].tags == ["parameters"]
    assert code[3].options["fig-cap"] == "CPU µs per transaction, stacked by address space"
    assert code[3].source.startswith("chart(")


def test_parse_keeps_example_fences_as_markdown() -> None:
    text = "Text\n\n````markdown\n```{python}\nx = 1\n```\n````\n\n```{.python}\ny = 2\n```\n"
    doc = parse_qmd_text(text, Path("t.qmd"))
    assert [c.kind for c in doc.cells] == ["markdown"]
    with pytest.raises(RenderError, match=r"line 1: only \{python\} cells"):
        parse_qmd_text("```{r}\n1\n```\n", Path("t.qmd"))


def test_parameters_injected_after_parameters_cell_papermill_style() -> None:
    doc = parse_qmd(FIXTURES / "report.qmd")
    nb = build_notebook(doc, {"study": "x'y", "sizes": [256, 2048]})
    injected = nb.cells[2]
    assert nb.cells[1].metadata["tags"] == ["parameters"]
    assert injected.metadata["tags"] == ["injected-parameters"]
    assert injected.source == '# Injected parameters\nstudy = "x\'y"\nsizes = [256, 2048]\n'
    with pytest.raises(RenderError, match="parameter 'when' must be"):
        build_notebook(doc, {"when": object()})


def test_table_escapes_data_and_formats_numbers_for_both_targets() -> None:
    frame = pl.DataFrame(
        {"address_space": [HOSTILE, "a|b"], "cpu_us_per_txn": [1234.5, 7.0], "runs": [3, 12]}
    )
    data = table(frame).data
    assert "<td>&lt;script&gt;alert(1)&lt;/script&gt;</td>" in data["text/html"]
    assert "<script>" not in data["text/html"]
    lines = data["text/markdown"].splitlines()
    assert lines[0] == r"| Address space | CPU µs\/txn | Runs |"
    # Dashes size the columns in a PDF: the longest cell or header word (25, 6, 4 characters).
    assert lines[1] == "|:" + "-" * 24 + "|-----:|---:|"
    assert lines[2] == r"| \<script\>alert\(1\)\<\/script\> | 1\,234 | 3 |"
    assert lines[3] == r"| a\|b | 7 | 12 |"


def test_table_precision_follows_magnitude_and_formats_override() -> None:
    frame = pd.DataFrame(
        {"util": [0.01234, 0.5], "rtt_us": [150.25, 99.0], "pct": [1.5, None]},
    )
    html_table = table(frame, formats={"pct": "{:+.1f}%"}, labels={"util": "Busy"}).data
    cells = re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", html_table["text/html"])
    assert cells == ["Busy", "RTT µs", "Pct", "0.012", "150.2", "+1.5%", "0.500", "99.0", "–"]


def test_a_whole_number_with_floating_point_noise_is_still_whole() -> None:
    # 515.9999999999999 is 516 summed in another order: the column keeps no decimal place, so
    # two builds of the same data print the same table.
    noisy = pd.DataFrame({"total": [405.0, 515.9999999999999, 10.000000000000002]})
    clean = pd.DataFrame({"total": [405.0, 516.0, 10.0]})
    cells = [re.findall(r"<td[^>]*>(.*?)</td>", table(f).data["text/html"]) for f in (noisy, clean)]
    assert cells[0] == cells[1] == ["405", "516", "10"]
    # A real fraction still gets its places.
    assert re.findall(
        r"<td[^>]*>(.*?)</td>", table(pd.DataFrame({"v": [405.5]})).data["text/html"]
    ) == ["405.5"]


def test_column_labels_put_units_last() -> None:
    assert column_label("cpu_us_per_txn") == "CPU µs/txn"
    assert column_label("message_bytes") == "Message bytes"
    assert column_label("change_pct") == "Change %"
    assert column_label("rate_per_s") == "Rate per s"
    assert column_label("configuration") == "Configuration"


def test_note_and_markdown_escaping_leave_no_markup() -> None:
    assert escape_markdown("*x* @fig-a `c`") == r"\*x\* \@fig\-a \`c\`"
    data = note(f"Label {HOSTILE}\n\nSecond").data
    assert data["text/html"] == (
        '<p class="mqcap-note">Label &lt;script&gt;alert(1)&lt;/script&gt;</p>\n'
        '<p class="mqcap-note">Second</p>'
    )
    assert data["text/markdown"] == "Label \\<script\\>alert\\(1\\)\\<\\/script\\>\n\nSecond"


def test_chart_bundle_has_spec_html_and_svg_and_sends_javascript_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import altair as alt

    monkeypatch.delenv(display_mod.VEGA_BUNDLE_ENV, raising=False)
    monkeypatch.setattr(display_mod, "_bundle_sent", False)
    monkeypatch.setattr(display_mod, "_datasets_sent", set())
    frame = pd.DataFrame({"x": ["a", HOSTILE], "y": [1, 2]})
    first = chart(alt.Chart(frame).mark_bar().encode(x="x", y="y")).data
    second = chart(alt.Chart(frame).mark_point().encode(x="x", y="y")).data
    mime = f"application/vnd.vegalite.{alt.SCHEMA_VERSION.split('.')[0]}+json"
    assert first[mime]["mark"] == {"type": "bar"}
    assert first[mime]["config"]["mark"]["tooltip"] is True
    assert first["text/html"].count('<script id="mqcap-vega-bundle">') == 1
    assert '<script id="mqcap-vega-bundle">' not in second["text/html"]
    assert "vegaEmbed(" in second["text/html"]
    assert "<script>alert" not in second["text/html"]
    assert first["image/svg+xml"].startswith("<svg")
    assert "&lt;script&gt;" in first["image/svg+xml"]
    # Under mqcap's own engine the spec is not sent a third time (it draws the HTML and SVG).
    monkeypatch.setenv(display_mod.VEGA_BUNDLE_ENV, "document")
    own = chart(alt.Chart(frame).mark_bar().encode(x="x", y="y")).data
    assert set(own) == {"text/html", "image/svg+xml", "text/plain"}


def test_chart_data_carries_only_the_columns_the_chart_names() -> None:
    """Altair embeds every column of the frame; a chart's HTML keeps those its spec names
    (encodings, tooltips, transforms), whatever the frame held."""
    import altair as alt

    frame = pd.DataFrame(
        {
            "x": ["a", "b"],
            "y": [1, 2],
            "tip": ["t1", "t2"],
            "calc.in": [3, 4],
            "unused": [9, 9],
            "source_file": ["f", "g"],
        }
    )
    c = (
        alt.Chart(frame)
        .mark_bar()
        .encode(x="x", y="y", tooltip=["tip"])
        .transform_calculate(z="datum['calc.in'] * 2")
    )
    spec = display_mod.chart_spec(c)
    (rows,) = spec["datasets"].values()
    assert rows == [
        {"x": "a", "y": 1, "tip": "t1", "calc.in": 3},
        {"x": "b", "y": 2, "tip": "t2", "calc.in": 4},
    ]
    html = chart(c).data["text/html"]
    assert "unused" not in html and "source_file" not in html


def test_auto_engine_runs_quarto_when_it_is_on_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A stand-in `quarto` records its arguments and writes the file it was asked for.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "quarto"
    fake.write_text(
        "#!/bin/sh\n"
        'printf "%s\\n" "$@" >> "$ARGS_LOG"\n'
        'echo "$MQCAP_WAREHOUSE" >> "$ARGS_LOG"\n'
        'while [ "$#" -gt 0 ]; do\n'
        '  case "$1" in --output-dir) dir="$2";; --output) name="$2";; esac; shift\n'
        "done\n"
        'echo rendered > "$dir/$name"\n'
    )
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    log = tmp_path / "args.log"
    out = tmp_path / "out"
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    result = render_report(
        FIXTURES / "report.qmd",
        out,
        params={"study": "tls", "sizes": [256, 2048]},
        output_stem="tls",
        env={"ARGS_LOG": str(log), "MQCAP_WAREHOUSE": "/data/wh.duckdb"},
    )
    assert result == {"html": out.resolve() / "tls.html", "pdf": out.resolve() / "tls.pdf"}
    args = log.read_text().splitlines()
    html_call = args[: args.index("/data/wh.duckdb")]
    assert html_call == [
        "render",
        str((FIXTURES / "report.qmd").resolve()),
        "--to",
        "html",
        "-P",
        "study:tls",
        "-P",
        "sizes:[256, 2048]",
        "-M",
        "embed-resources:true",
        "--output-dir",
        str(out.resolve()),
        "--output",
        "tls.html",
    ]
    assert args[len(html_call) + 1 : len(html_call) + 5] == [
        "render",
        str((FIXTURES / "report.qmd").resolve()),
        "--to",
        "typst",
    ]


def _executed(qmd_text: str, outputs: list[list[dict]]) -> tuple:
    # A notebook as nbclient leaves it, with chosen outputs, to test conversion alone.
    import nbformat

    doc = parse_qmd_text(qmd_text, Path("conv.qmd"))
    nb = build_notebook(doc, None)
    code = [c for c in nb.cells if c.cell_type == "code"]
    for node, outs in zip(code, outputs, strict=True):
        node.outputs = [nbformat.from_dict(o) for o in outs]
    return nb, doc


def test_conversion_follows_cell_options_and_places_code_before_captions(tmp_path: Path) -> None:
    from mqcap.render.markdown import to_markdown

    qmd = (
        "---\ntitle: C\nexecute:\n  echo: false\n---\n\n"
        "```{python}\n#| label: tbl-a\n#| tbl-cap: Costs\n#| echo: true\ntable(x)\n```\n\n"
        "```{python}\n#| warning: false\nwarn()\n```\n\n"
        "```{python}\n#| output: asis\nprint('**bold**')\n```\n\n"
        "```{python}\n#| include: false\nsecret()\n```\n\n"
        "```{python}\n#| output: false\nhidden()\n```\n"
    )
    md_table = {"text/markdown": "| a |\n|---:|\n| 1 |", "text/html": "<table></table>"}
    nb, doc = _executed(
        qmd,
        [
            [{"output_type": "display_data", "data": md_table, "metadata": {}}],
            [{"output_type": "stream", "name": "stderr", "text": "UserWarning: careful\n"}],
            [{"output_type": "stream", "name": "stdout", "text": "**bold**\n"}],
            [{"output_type": "stream", "name": "stdout", "text": "SECRET\n"}],
            [{"output_type": "stream", "name": "stdout", "text": "HIDDEN\n"}],
        ],
    )
    typst_md = to_markdown(nb, doc, "typst", tmp_path / "files").markdown
    assert typst_md == (
        "``` {.python}\ntable(x)\n```\n\n| a |\n|---:|\n| 1 |\n\n: Table 1: Costs {#tbl-a}\n\n"
        "**bold**\n\n"
    )
    html = to_markdown(nb, doc, "html", tmp_path / "files")
    html_md = html.markdown
    assert html_md.startswith(
        "``` {.python}\ntable(x)\n```\n\n::: {#tbl-a .mqcap-table-figure}\n"
        "::: {.mqcap-caption}\nTable 1: Costs\n:::\n\n```{=html}\n<!-- mqcap: html block 0 -->"
        "\n```\n:::"
    )
    assert html.html_blocks == ["<table></table>"]
    assert "careful" not in html_md and "SECRET" not in html_md and "HIDDEN" not in html_md


def test_chart_data_stays_out_of_pandocs_input_and_comes_back_in_place(
    page: str, tmp_path: Path
) -> None:
    from mqcap.render.html import write_html
    from mqcap.render.markdown import to_markdown

    # The rendered page: each chart's vegaEmbed call right after its own div, no placeholder.
    assert "mqcap: html block" not in page
    embeds = re.findall(
        r'<div class="mqcap-chart" id="(mqcap-chart-[^"]+)"[^>]*></div>\s*'
        r'<script>vegaEmbed\("#(mqcap-chart-[^"]+)"',
        page,
    )
    assert len(embeds) == 2 and all(a == b for a, b in embeds)
    # pandoc reads a placeholder per chart, not the chart's spec and data (at 1,000 runs the
    # data made pandoc's --embed-resources pass take over 21 GB).
    data = "x" * 200_000
    chart_html = (
        '<div class="mqcap-chart" id="mqcap-chart-1-abc"></div>\n'
        f'<script>vegaEmbed("#mqcap-chart-1-abc", {{"data": "{data}"}}, {{}});</script>'
    )
    qmd = (
        "---\ntitle: C\n---\n\n```{python}\nchart(a)\n```\n\n"
        "Between.\n\n```{python}\nchart(b)\n```\n"
    )
    out = [{"output_type": "display_data", "data": {"text/html": chart_html}, "metadata": {}}]
    second = [{**out[0], "data": {"text/html": chart_html.replace("-1-abc", "-2-def")}}]
    nb, doc = _executed(qmd, [out, second])
    conv = to_markdown(nb, doc, "html", tmp_path / "files")
    assert data not in conv.markdown and len(conv.html_blocks) == 2
    assert conv.markdown.index("html block 0") < conv.markdown.index("Between.")
    written = write_html(doc, conv, tmp_path, tmp_path / "c.html").read_text(encoding="utf-8")
    assert written.count(data) == 2 and "mqcap: html block" not in written
    first, between = written.index("mqcap-chart-1-abc"), written.index("Between.")
    assert first < between < written.index("mqcap-chart-2-def")
    # A placeholder pandoc lost is an error, never a page without its chart.
    conv.markdown = conv.markdown.replace("<!-- mqcap: html block 1 -->", "")
    with pytest.raises(RenderError, match=r"HTML blocks \[0\], not the 2 written"):
        write_html(doc, conv, tmp_path, tmp_path / "d.html")
    # A table's HTML goes round pandoc too (its rows at 1,000 runs took pandoc to 793 MB), and
    # comes back exactly where its cell was.
    rows = "".join(f"<tr><td>run {i}</td></tr>" for i in range(5000))
    table_html = f'<table class="mqcap-table"><tbody>{rows}</tbody></table>'
    out = [{"output_type": "display_data", "data": {"text/html": table_html}, "metadata": {}}]
    nb, doc = _executed("---\ntitle: T\n---\n\nBefore.\n\n```{python}\nt\n```\n\nAfter.\n", [out])
    conv = to_markdown(nb, doc, "html", tmp_path / "files")
    assert "run 4999" not in conv.markdown and conv.html_blocks == [table_html]
    assert not conv.has_charts
    written = write_html(doc, conv, tmp_path, tmp_path / "t.html").read_text(encoding="utf-8")
    assert written.count(table_html) == 1
    assert written.index("Before.") < written.index(table_html) < written.index("After.")


def test_quarto_engine_without_quarto_on_path_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(RenderError, match="engine='quarto' but no `quarto` executable"):
        render_report(FIXTURES / "report.qmd", tmp_path, engine="quarto")


def test_pdf_table_layout_sizes_columns_by_content_and_never_breaks_numbers() -> None:
    from mqcap.render.typst_tables import Column, add_breaks, layout_table, pieces, text_width

    cipher = "MQ + System SSL · TLS_CHACHA20_POLY1305_SHA256"
    narrow = [
        Column("Configuration", [cipher], False),
        Column("Max rate /s", ["1,203,282,578"], True),
        Column("Round trip µs", ["0.0071 (0.0070 – 0.0073)"], True),
    ]
    lay = layout_table(narrow, 470, 717)
    assert (lay.size, lay.landscape, lay.split) == (8.5, False, 1)
    # Everything fits on one line: the name is not squeezed, the number has its width and
    # the padding on both sides is the gutter between neighbouring columns.
    assert lay.widths[0] >= text_width(cipher, 8.5) + 2 * lay.inset[0]
    assert lay.widths[1] >= text_width("1,203,282,578", 8.5) + 2 * lay.inset[0]
    # Names wrap after underscores, commas and slashes; numbers never.
    assert add_breaks("1,203,282 0.0071 1/2 a,b MQPUT/MQGET") == (
        "1,203,282 0.0071 1/2 a,\u200bb MQPUT/\u200bMQGET"
    )
    assert pieces(add_breaks("TLS_AES_256_GCM_SHA384")) == [
        "TLS_",
        "AES_",
        "256_",
        "GCM_",
        "SHA384",
    ]
    # Twelve numeric columns: a smaller font, then a landscape page, never columns narrower
    # than their numbers.
    wide = [Column(f"Measure {k}", ["123,456,789.5"], True) for k in range(12)]
    lay = layout_table(wide, 470, 717)
    assert lay.landscape and lay.size < 8.5
    assert all(w >= text_width("123,456,789.5", lay.size) for w in lay.widths)
    assert sum(lay.widths) <= 717
    # Appendix: a long narrow table flows in two columns, in a smaller font.
    runs = [
        Column("Run", [f"run-{k}" for k in range(40)], False),
        Column("Rows", ["12"] * 40, True),
    ]
    lay = layout_table(runs, 470, 717, compact=True, rows=40)
    assert lay.split == 2 and lay.size <= 7


def test_pdf_tables_keep_their_caption_and_label_and_charts_take_the_text_width(
    rendered: dict[str, Path],
) -> None:
    import pymupdf

    doc = pymupdf.open(rendered["pdf"])
    text = " ".join(page.get_text() for page in doc)
    assert "Table 1: CPU cost per transaction by address space (2 KB messages)" in " ".join(
        text.split()
    )
    # The report's "Table 1" reference still links to its table.
    links = [link for page in doc for link in page.get_links() if link.get("kind") == 1]
    assert links
    # poppler reads the file without complaint (no `/Suspects false` in the catalog).
    assert b"/Suspects" not in rendered["pdf"].read_bytes()


def test_the_kernels_connection_file_lives_in_the_render_work_folder(tmp_path: Path) -> None:
    """The kernel's ports and key are written in the render's work folder, not the temporary
    folder: a render killed outright leaves them there, and the next render removes the folder
    (the kill chain of tests/test_reliability_crash.py checks no work folder stays)."""
    seen = tmp_path / "seen.txt"
    qmd = tmp_path / "where.qmd"
    qmd.write_text(
        "---\ntitle: Where\n---\n\n```{python}\nfrom ipykernel import get_connection_file\n"
        f"open({str(seen)!r}, 'w').write(get_connection_file())\n```\n"
    )
    out = tmp_path / "out"
    out.mkdir()
    render_report(qmd, out, formats=["html"], engine="own")
    used = Path(seen.read_text())
    assert used.name == "kernel.json"
    assert used.parent.parent == out and re.match(
        rf"^\.where-render-{os.getpid()}-", used.parent.name
    )
    assert not used.parent.exists()  # gone with the work folder
    assert sorted(p.name for p in out.iterdir()) == ["where.html"]


def test_a_chart_of_many_rows_is_drawn_in_a_child_process_to_the_same_svg(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """vl-convert's V8 keeps the heap a drawing grew to: a chart past CHILD_ROWS rows is drawn
    by ``python -m mqcap.render.draw`` (its memory goes with it), to the SVG drawn in place."""
    import altair as alt

    from mqcap.render import draw

    frame = pd.DataFrame({"x": list(range(300)), "y": [i % 17 for i in range(300)]})
    spec = display_mod.chart_spec(alt.Chart(frame).mark_line().encode(x="x:Q", y="y:Q"))
    version = display_mod._vl_version()
    here = draw.draw_svg(spec, version)
    started = []
    real_run = draw.subprocess.run

    def run(*args, **kwargs):
        started.append(args[0])
        return real_run(*args, **kwargs)

    monkeypatch.setattr(draw.subprocess, "run", run)
    monkeypatch.setattr(draw, "CHILD_ROWS", 300)
    assert draw.draw_svg(spec, version) == here and here.startswith("<svg")
    assert started == [[sys.executable, "-m", "mqcap.render.draw"]]
    # A spec vl-convert refuses: its reason, not an empty chart.
    with pytest.raises(RuntimeError, match=r"vl-convert could not draw the chart: .+"):
        draw.draw_svg({**spec, "mark": {"type": "no-such-mark"}}, version)


def test_under_the_own_engine_a_dataset_goes_into_the_page_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two charts of the same rows: the first chart's HTML puts the rows in the page, the second
    reads them from there; a chart of other rows carries its own. Outside the own engine each
    chart carries its rows inline."""
    import altair as alt

    monkeypatch.setattr(display_mod, "_datasets_sent", set())
    frame = pd.DataFrame({"x": [1.5, 2.5, 3.5], "y": [10.25, 20.75, 30.125], "z": [7, 8, 9]})
    tip = ["x", "y", "z"]
    monkeypatch.setenv(display_mod.VEGA_BUNDLE_ENV, "document")
    first = chart(alt.Chart(frame).mark_line().encode(x="x", y="y", tooltip=tip)).data
    second = chart(alt.Chart(frame).mark_point().encode(x="x", y="z", tooltip=tip)).data
    other = chart(alt.Chart(frame.head(2)).mark_bar().encode(x="x", y="y")).data
    assert "20.75" in first["text/html"] and "mqcapChartData" in first["text/html"]
    assert "20.75" not in second["text/html"]
    assert "window.mqcapChartData[" in second["text/html"]
    assert "20.75" in other["text/html"]  # other rows: a dataset of its own
    # The PDF's drawings keep their data.
    assert second["image/svg+xml"].startswith("<svg")
    monkeypatch.delenv(display_mod.VEGA_BUNDLE_ENV)
    inline = chart(alt.Chart(frame).mark_point().encode(x="x", y="z", tooltip=tip)).data
    assert "20.75" in inline["text/html"] and "mqcapChartData" not in inline["text/html"]
