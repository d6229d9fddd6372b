"""LaTeX cells that ran off the page or crashed: a lone surrogate in a cell (pandas' text operations raised
UnicodeEncodeError) prints as a placeholder; a 306-character word and runs of characters pdfLaTeX shows as code
points (CJK, Cyrillic, emoji) are measured at their printed width and broken to fit the column."""
from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest
from latex_harness import compile_tables

from toolkit.outputs import latex
from toolkit.outputs.latex_render import PLACEHOLDER, text_width, wrap

needs_pdflatex = pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed")
HOSTILE = {"long_word": "x" * 306, "cjk": "日本語のテキストです中文字符",
           "cyrillic": "Привет мир это длинный текст на русском языке для проверки", "emoji": "😀" * 12}


def _frame(word: str) -> pd.DataFrame:
    return pd.DataFrame({"model": pd.Series([word, "vader"], dtype=object),
                         "verdict": pd.Series([word, "ok"], dtype=object), "estimate": [0.1, 0.2]})


def test_latex_a_lone_surrogate_in_a_paper_table_cell_prints_as_a_placeholder():
    from test_outputs_latex import LAYOUTS, psa_summary

    table = psa_summary(["vader"]).astype({"model": object})
    table["model"] = pd.Series(["vad\ud800er\ud83d\ude00"] * len(table), dtype=object, index=table.index)
    tex = latex.paper_table(layouts=LAYOUTS, name="psa_table2", table=table, preset="acl-double")
    tex.encode("utf-8")  # valid text throughout
    assert "vad" + PLACEHOLDER % 0xFFFD + "er" + PLACEHOLDER % 0x1F600 in tex  # the pair joined, the lone one marked


def test_latex_text_width_counts_a_placeholder_at_its_printed_width():
    assert text_width("日") > 3 * text_width("M")  # "?" and "U+65E5" in superscript, not one em
    assert text_width("\u200b") == 0  # a zero-width space is removed, not printed


def test_latex_wrap_breaks_a_word_wider_than_the_column_between_characters():
    lines = wrap("x" * 306, 100.0)
    assert "".join(lines) == "x" * 306 and len(lines) > 1
    assert all(text_width(line) <= 100.0 for line in lines)
    assert wrap("short words stay whole", 1000.0) == ["short words stay whole"]


@needs_pdflatex
@pytest.mark.parametrize("preset", ["acl-single", "acm-double"])
def test_latex_long_words_and_unsupported_scripts_fit_the_page(tmp_path, preset):
    tables = {name: latex.to_latex(table=_frame(word), caption="c", label=f"tab:{name.replace('_', '-')}",
                                   preset=preset) for name, word in HOSTILE.items()}
    compiled = compile_tables(tables, tmp_path, preset=preset)
    assert compiled.returncode == 0, compiled.log[-3000:]
    assert not compiled.overfull, compiled.overfull
    limit = latex.WIDTHS[preset].limit_pt
    for name, widths in compiled.widths.items():
        assert max(widths) <= limit, (name, widths, limit)
    assert np.isfinite(limit)
