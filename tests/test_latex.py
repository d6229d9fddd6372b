"""toolkit.latex: booktabs tables of the papers' tables, checked for structure (balanced braces and math, the
tabular's column count in every row, escaped specials), never against the code's own output."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from toolkit import latex
from toolkit.errors import SchemaError, UnknownNameError
from toolkit.studies import biasfinder as bf_study
from toolkit.studies import btcsam as btcsam_study
from toolkit.studies import eec as eec_study
from toolkit.studies import psa as psa_study

SPECIALS = "a&b%c_d#e$f{g}h~i^j\\k"
# The study tables each registry entry is drawn from, with their fixed columns (the study modules' constants).
SOURCE_COLUMNS = {
    "eec_summary": eec_study.SUMMARY_COLUMNS,
    "eec_tests": eec_study.TEST_COLUMNS,
    "psa_summary": psa_study.SUMMARY_COLUMNS,
    "psa_gender": psa_study.GENDER_COLUMNS,
    "biasfinder_table4": bf_study.TABLE4_RATE_COLUMNS,
    "biasfinder_tpr": bf_study.TPR_INTERVAL_COLUMNS,
    "btcsam_detection": btcsam_study.DETECTION_CI_COLUMNS,
    "btcsam_diversity": btcsam_study.DIVERSITY_COLUMNS,
    "btcsam_stage_diversity": btcsam_study.STAGE_COLUMNS,
    "btcsam_failure_pct": btcsam_study.FAILURE_PCT_COLUMNS,
}
TEXT_COLUMNS = {"model", "task", "attribute", "subset", "direction", "table", "corpus", "a", "b", "verdict",
                "annotator", "rule", "test_set", "bias_type", "stage", "group_a", "group_b", "note", "ci_method",
                "family", "correction", "interval"}


def _unescaped(text: str, char: str) -> int:
    """How many times ``char`` occurs without a backslash before it."""
    return len(re.findall(r"(?<!\\)" + re.escape(char), text))


def check_structure(tex: str) -> list[list[str]]:
    """Assert the LaTeX is well formed and return the cells of each tabular row (header first)."""
    body = re.sub(r"\\[{}$&%#_]", "", tex)  # escaped characters do not count
    depth = 0
    for ch in body:
        depth += {"{": 1, "}": -1}.get(ch, 0)
        assert depth >= 0, "a } closes nothing"
    assert depth == 0, "unbalanced braces"
    assert body.count("$") % 2 == 0, "unbalanced math"
    for env in ("table", "tabular"):
        assert len(re.findall(r"\\begin\{" + env + r"\*?\}", tex)) == len(re.findall(r"\\end\{" + env + r"\*?\}",
                                                                                    tex)) == 1
    assert tex.index(r"\toprule") < tex.index(r"\midrule") < tex.index(r"\bottomrule")
    assert re.search(r"\\caption\{.+\}", tex) and re.search(r"\\label\{tab:[\w:.-]+\}", tex)
    spec = re.search(r"\\begin\{tabular\}\{([lrc]+)\}", tex).group(1)
    inside = tex[tex.index(r"\toprule") + len(r"\toprule"):tex.index(r"\bottomrule")]
    rows = [line for line in inside.strip().splitlines() if line.strip() not in (r"\midrule", "")]
    cells = []
    for line in rows:
        assert line.endswith(r"\\"), line
        row = re.split(r"(?<!\\)&", line[:-2])
        assert len(row) == len(spec), f"{len(row)} cells in a {len(spec)}-column tabular: {line}"
        cells.append([c.strip() for c in row])
    return cells


def test_latex_to_latex_escapes_specials_and_has_one_cell_per_column():
    frame = pd.DataFrame({"text_col": [SPECIALS, "plain"], "x": [0.5, -1.25], "n": [3, 40]})
    tex = latex.to_latex(table=frame, caption="50% of a_b & c", label="tab:demo", columns={"text_col": "text #",
                                                                                               "x": "Δ x", "n": "n"})
    cells = check_structure(tex)
    assert cells[0] == [r"text \#", r"$\Delta$ x", "n"]
    assert cells[1][0] == r"a\&b\%c\_d\#e\$f\{g\}h\textasciitilde{}i\textasciicircum{}j\textbackslash{}k"
    assert cells[1][1:] == ["0.500", "3"] and cells[2][1:] == ["$-$1.250", "40"]
    assert r"\begin{tabular}{lrr}" in tex
    assert r"\caption{50\% of a\_b \& c}" in tex and r"\label{tab:demo}" in tex


def test_latex_group_column_prints_each_block_once_with_rules_between():
    frame = pd.DataFrame({"model": ["m1", "m1", "m2"], "task": ["anger", "joy", "anger"], "v": [0.1, 0.2, 0.3]})
    tex = latex.to_latex(table=frame, caption="c", label="tab:g", columns=["task", "model", "v"], group="model")
    cells = check_structure(tex)
    assert [row[:2] for row in cells[1:]] == [["m1", "anger"], ["", "joy"], ["m2", "anger"]]
    inside = tex[tex.index(r"\toprule"):tex.index(r"\bottomrule")]
    assert inside.count(r"\midrule") == 2  # under the header, and between m1 and m2


@pytest.mark.parametrize(("value", "kwargs", "expected"), [
    (0.12345, {}, "0.123"), (-0.5, {}, "$-$0.500"), (-0.0001, {}, "0.000"), (12, {}, "12"), (np.int64(5), {}, "5"),
    (0.00004, {"p_value": True}, "$<$0.001"), (0.0312, {"p_value": True}, "0.031"), (float("nan"), {}, "--"),
    (None, {}, "--"), (True, {}, "yes"), (37.444, {"decimals": 2}, "37.44"), ("50%", {}, r"50\%"),
])
def test_latex_format_number(value, kwargs, expected):
    assert latex.format_number(value, **kwargs) == expected


@pytest.mark.parametrize(("values", "expected"), [([1.0, 2.0, 30.0], 0), ([0.5, 3.2], 3), ([37.4, 1.0], 2),
                                                  ([512.5], 1), ([12345.6], 0), ([np.nan, 0.25], 3)])
def test_latex_column_decimals_one_precision_per_column(values, expected):
    assert latex.column_decimals(pd.Series(values)) == expected


def test_latex_registry_covers_the_papers_tables_and_draws_on_the_studies_columns():
    names = set(latex.PAPER_TABLES)
    assert {"eec_table5", "eec_table6", "eec_table7", "psa_table2", "biasfinder_table4", "biasfinder_table5",
            "btcsam_table2", "btcsam_table3", "btcsam_table4", "btcsam_table5"} <= names
    for name, entry in latex.PAPER_TABLES.items():
        assert name.startswith(f"{entry.source.split('_')[0]}_")  # results.write removes a stale <study>_*.tex
        columns = [c for c, _ in entry.columns]
        extra = set(columns) - set(SOURCE_COLUMNS[entry.source])
        assert not extra, (name, extra)
    interval = {"eec_table5_systems", "psa_gender_gap", "btcsam_table2", "btcsam_table5"}
    for name in interval:  # the numbers a reviewer asks for: n, the estimate, its interval
        columns = [c for c, _ in latex.PAPER_TABLES[name].columns]
        assert "ci_low" in columns and "ci_high" in columns and any(c.startswith("n_") for c in columns)


def _source_frame(source: str, rows: int = 3) -> pd.DataFrame:
    """A frame with the source table's columns: text cells with LaTeX specials, numbers elsewhere."""
    data = {}
    for position, column in enumerate(SOURCE_COLUMNS[source]):
        if column in TEXT_COLUMNS:
            data[column] = [f"{column}_{i} & 5% #{i}" for i in range(rows)]
        else:
            data[column] = [0.125 * (i + 1) - 0.2 + position for i in range(rows)]
    frame = pd.DataFrame(data)
    if "table" in frame.columns:
        frame["table"] = ["Table 5", "Table 6", "Table 7"][:rows]
    if "attribute" in frame.columns and "subset" in frame.columns:
        frame["attribute"], frame["subset"] = ["gender", "gender", "race"][:rows], ["all", "neutral", "all"][:rows]
    return frame


@pytest.mark.parametrize("name", sorted(latex.PAPER_TABLES))
def test_latex_every_paper_table_is_well_formed_and_escaped(name):
    entry = latex.PAPER_TABLES[name]
    tex = latex.paper_table(name=name, table=_source_frame(entry.source))
    cells = check_structure(tex)
    assert len(cells[0]) == len(entry.columns)
    assert len(cells) >= 2  # a header and at least one row
    assert _unescaped(tex, "&") == (len(entry.columns) - 1) * len(cells)  # text & escaped, only column separators
    assert _unescaped(tex, "%") == 0 and _unescaped(tex, "#") == 0 and _unescaped(tex, "_") == 0
    assert rf"\label{{tab:{name.replace('_', '-')}}}" in tex


def test_latex_paper_table_unknown_name_lists_the_valid_ones():
    with pytest.raises(UnknownNameError) as excinfo:
        latex.paper_table(name="eec_table9", table=pd.DataFrame())
    assert excinfo.value.code == "TK103" and "eec_table5" in str(excinfo.value) and "btcsam_table5" in str(
        excinfo.value)


def test_latex_paper_table_missing_a_required_column_is_tk101_but_optional_intervals_may_be_absent():
    frame = _source_frame("psa_summary").drop(columns=["score_dev_low", "score_dev_high"])
    cells = check_structure(latex.paper_table(name="psa_table2", table=frame))
    assert len(cells[0]) == len(latex.PAPER_TABLES["psa_table2"].columns) - 2
    with pytest.raises(SchemaError) as excinfo:
        latex.paper_table(name="psa_table2", table=frame.drop(columns=["score_range"]))
    assert excinfo.value.code == "TK101" and "score_range" in str(excinfo.value)


def test_latex_paper_tables_renders_only_the_entries_whose_source_and_rows_are_there():
    summary = _source_frame("eec_summary", rows=1)  # only Table 5's block
    written = latex.paper_tables(tables={"eec_summary": summary, "other": pd.DataFrame({"x": [1]})})
    assert set(written) == {"eec_table5"}


def test_latex_to_latex_rejects_unknown_columns_and_bad_labels():
    frame = pd.DataFrame({"a": [1]})
    with pytest.raises(SchemaError):
        latex.to_latex(table=frame, caption="c", label="tab:x", columns=["b"])
    with pytest.raises(latex.InputError):
        latex.to_latex(table=frame, caption="c", label="tab x")
    with pytest.raises(UnknownNameError) as excinfo:
        latex.to_latex(table=frame, caption="c", label="tab:x", environment="longtable")
    assert "table*" in str(excinfo.value)


# --- issue 37: text that would break pdflatex or print as something else ----------------------------------------

HOSTILE = ["[0.5] starts with a bracket", "*starred row", "a -- b --- c", "``quoted''", "¡!` ¿?` ,,low", "Ana 😀 María",
           "evil\u202eLTR override", "zero\u200bwidth\ufeffBOM", "e\u0301 decomposed", "pipe | bar", "nul\x00bell\x07",
           "日本語", "Łódź café naïve Œuvre ß", "\\relax{}%$&#_^~<>"]


@pytest.mark.parametrize("text, expected", [
    ("[x]", "{[}x]"), ("*x", "{*}x"), ("a--b", "a-{}-b"), ("a---b", "a-{}-{}-b"), ("``q''", "`{}`q'{}'"), ("!`", "!{}`"),
    ("?`", "?{}`"), (",,", ",{},"), ("a|b", r"a\textbar{}b"), ("x\u202ey\u2066z\u200f", "xyz"),
    ("a\u200bb\ufeff", "ab"), ("😀", r"\textbf{?}\textsuperscript{U+1F600}"),
    ("\x07", r"\textbf{?}\textsuperscript{U+0007}"), ("e\u0301", "é"), ("Łódź", "Łódź"),
])
def test_latex_escape_breaks_ligatures_braces_brackets_and_shows_what_the_fonts_lack(text, expected):
    assert latex.escape(text) == expected


def test_latex_hostile_names_keep_the_table_well_formed():
    frame = pd.DataFrame({"model": HOSTILE, "value": np.linspace(0, 1, len(HOSTILE))})
    rows = check_structure(latex.to_latex(table=frame, caption="hostile " + HOSTILE[5], label="tab:hostile"))
    assert len(rows) == len(HOSTILE) + 1
    assert not any(row[0].startswith("[") for row in rows)  # never the optional argument of the \\ before it


def _compile(tex: str, folder, *, encoding: str) -> tuple[int, str]:
    import subprocess

    document = (f"\\documentclass{{article}}\n\\usepackage[{encoding}]{{fontenc}}\n\\usepackage{{booktabs}}\n"
                f"\\begin{{document}}\n{tex}\\end{{document}}\n")
    (folder / "doc.tex").write_text(document, encoding="utf-8")
    proc = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"], cwd=folder,
                          capture_output=True, text=True, errors="replace", timeout=120)
    return proc.returncode, proc.stdout


@pytest.mark.skipif(__import__("shutil").which("pdflatex") is None,
                    reason="pdflatex is not installed (apt-get install texlive-latex-base texlive-latex-recommended)")
@pytest.mark.parametrize("encoding", ["OT1", "T1"])
def test_latex_tables_with_hostile_text_compile_in_pdflatex(tmp_path, encoding):
    frame = pd.DataFrame({"model": HOSTILE, "verdict": HOSTILE[::-1], "p_adjusted": np.linspace(0, 1, len(HOSTILE))})
    tex = latex.to_latex(table=frame, caption=" ".join(HOSTILE), label="tab:hostile", group="model")
    code, log = _compile(tex, tmp_path, encoding=encoding)
    assert code == 0 and "Output written" in log, log[-3000:]
    assert "Unicode character" not in log and "Missing character" not in log
