"""toolkit.verdicts: one verdict vocabulary. Unit checks of the words and legends, then a walk over every caption and
legend the toolkit produces for a real small run of each study (LaTeX tables, the apps' tables, the HTML report,
the figures' legends): every verdict word used is a word of the vocabulary and is defined where it is used; no
"a higher"/"b higher" with a and b undefined, no "a>b", "b>w", "x>s" and no "?" as a verdict."""
from __future__ import annotations

import html
import re
from html.parser import HTMLParser

import pandas as pd
import pytest
from small_runs import btcsam_cases

from toolkit import stats, studies, verdicts

FEMALE = verdicts.Groups("female", "male", "F", "M")
FORBIDDEN = ("a higher", "b higher", "a>b", "a<b", "b>w", "x>s", "a$>$b", "b$>$w", "x$>$s")


@pytest.mark.parametrize(("stored", "short", "full", "legend"), [
    ("a higher", "F higher", "female higher", "female higher"),
    ("b higher", "M higher", "male higher", "male higher"),
    ("equivalent within ±0.01", "equivalent", "equivalent", "equivalent (within ±0.01)"),
    ("different but within ±0.02", "small difference", "small difference",
     "small difference (significant, within ±0.02)"),
    ("inconclusive", "inconclusive", "inconclusive", "inconclusive"),
    (stats.IDENTICAL, "identical", "identical", "identical scores"),
])
def test_verdicts_each_stored_verdict_has_one_word_and_a_legend_entry_that_names_the_groups(stored, short, full,
                                                                                            legend):
    assert stored.startswith(tuple(stats.VERDICTS))  # the values the statistics frames keep, unchanged
    assert verdicts.word(stored, groups=FEMALE) == short
    assert verdicts.word(stored, groups=FEMALE, short=False) == full
    assert verdicts.legend_label(stored, groups=FEMALE) == legend
    assert verdicts.definition(stored, groups=FEMALE)  # every word is defined


@pytest.mark.parametrize(("stored", "sentence"), [
    ("a higher", "female higher than male"),
    ("b higher", "male higher than female"),
    ("equivalent within ±0.01", "equivalent (within ±0.01)"),
    ("different but within ±0.02", "small difference (significant, within ±0.02)"),
    ("inconclusive", "inconclusive"),
    (stats.IDENTICAL, "identical scores"),
    (None, ""),
    ("rankings agree", "rankings agree"),
])
def test_verdicts_conclusion_is_a_sentence_that_names_both_groups(stored, sentence):
    assert verdicts.conclusion(stored, groups=FEMALE) == sentence
    said = verdicts.Groups("between classes", "within a class", says_a="more BTCs between classes than within")
    assert verdicts.conclusion("a higher", groups=said) == "more BTCs between classes than within"


@pytest.mark.parametrize("groups", [None, "female", {"a": "female"}])
def test_verdicts_conclusion_refuses_groups_that_are_not_groups(groups):
    from toolkit.errors import InputError

    with pytest.raises(InputError, match="verdicts.Groups"):
        verdicts.conclusion("a higher", groups=groups)


def test_verdicts_legend_defines_each_word_used_once_in_one_order_with_the_runs_margin():
    text = verdicts.legend(["inconclusive", "b higher", "a higher", "inconclusive", None, ""], groups=FEMALE,
                           margin="±0.03")
    assert text == ("F higher = female higher than male, significant after correction; "
                    "M higher = male higher than female, significant after correction; "
                    "inconclusive = neither a difference nor equivalence within ±0.03 shown")
    assert verdicts.legend([], groups=FEMALE) == ""


def test_verdicts_display_maps_every_verdict_column_by_each_rows_groups_and_keeps_the_frame():
    frame = pd.DataFrame({"attribute": ["gender", "race", "race"], "verdict": ["a higher", "b higher", None],
                          "published_verdict": ["inconclusive"] * 3})
    groups = {"gender": FEMALE, "race": verdicts.Groups("African-American", "European", "AA", "EA")}
    before = frame.copy()
    shown, legend = verdicts.display(frame, groups=groups, by="attribute", margin="±0.01")
    assert shown["verdict"].tolist() == ["F higher", "EA higher", ""]
    assert shown["published_verdict"].tolist() == ["inconclusive"] * 3
    assert frame.equals(before)  # the statistics frame is not changed
    assert legend.startswith("verdict: F higher = ") and "EA higher = European higher than African-American" in legend
    own = pd.DataFrame({"a": ["women"], "b": ["men"], "verdict": ["a higher"]})  # a frame naming its own groups
    assert verdicts.display(own, groups=FEMALE)[0]["verdict"].tolist() == ["women higher"]
    assert verdicts.display(pd.DataFrame({"x": [1]}), groups=FEMALE)[1] == ""


# --- a real small run of each study --------------------------------------------------------------------------------

@pytest.fixture
def runs(small_runs):
    return small_runs


def _groups(study: str) -> list[verdicts.Groups]:
    groups = studies.get(study).verdict_groups
    return list(groups.values()) if isinstance(groups, dict) else [groups]


def _check_words(cells: list[str], caption: str, groups: list[verdicts.Groups], where: str) -> None:
    """Each verdict cell is a word of the vocabulary and the caption defines it (``word = …``)."""
    vocabulary = {w for g in groups for w in verdicts.words(groups=g)}
    for cell in cells:
        if cell in ("", "—", "--"):
            continue
        assert cell in vocabulary, (where, cell)
        assert f"{cell} = " in caption, (where, cell, caption)


def _tex_verdict_cells(tex: str) -> list[str]:
    """The verdict words of a rendered table: every cell of its body that is a verdict word or ends one stacked
    cell (``p adj.`` above ``verdict``)."""
    body = re.sub(r"\\caption\{.*?\}\n", "", tex)
    words = set()
    for g in verdicts.words(groups=FEMALE) + [w for s in ("eec", "psa", "biasfinder", "btcsam")
                                                for gr in _groups(s) for w in verdicts.words(groups=gr)]:
        words.add(g)
    found = []
    for cell in re.split(r"&|\\\\", body):
        text = re.sub(r"\\begin\{tabular\}\[\w\]\{@\{\}\w@\{\}\}|\\end\{tabular\}", "", cell).strip()
        if text in words:
            found.append(text)
    return found


@pytest.mark.parametrize("preset", ["acl-double", "acl-single"])
def test_verdicts_every_latex_caption_defines_the_verdict_words_its_table_uses(runs, preset):
    seen = set()
    for study, result in runs.items():
        for name, tex in result.latex(preset=preset).items():
            assert not any(f" {bad} " in f" {tex} " or f"{{{bad}}}" in tex for bad in FORBIDDEN), (name, tex)
            assert not re.search(r"(^|&)\s*\?\s*(\\\\|&)", tex, flags=re.MULTILINE), name  # no "?" as a verdict
            captions = " ".join(re.findall(r"\\caption\{(.*?)\}\n", tex))
            cells = _tex_verdict_cells(tex)
            _check_words(cells, captions, _groups(study), name)
            seen |= set(cells)
    assert {"F higher", "inconclusive", "identical"} <= seen  # the walk met verdicts (the female_plus model's too)


def test_verdicts_every_app_table_shows_words_its_caption_defines(runs):
    from toolkit.studies.biasfinder.app import biasfinder_app
    from toolkit.studies.btcsam.app import btcsam_app
    from toolkit.studies.eec.app import eec_app
    from toolkit.studies.psa.app import psa_app

    apps = {"eec": lambda s: eec_app(models=["afinn"], cache=False, study=s),
            "psa": lambda s: psa_app(models=["vader"], cache=False, study=s),
            "biasfinder": lambda s: biasfinder_app(models=["afinn"], cache=False, study=s),
            "btcsam": lambda s: btcsam_app(sets={"mini": btcsam_cases()}, models=["vader"], cache=False, study=s)}
    for study, make in apps.items():
        app = make(lambda result=runs[study], **_: result)
        assert app.run(), app.status.value
        assert app._report_tables, study
        for caption, frame in app._report_tables.items():
            for column in [c for c in frame.columns if str(c) == "verdict" or str(c).endswith("_verdict")]:
                cells = [str(v) for v in frame[column]]
                assert not set(cells) & {"a higher", "b higher"}, (study, caption)
                _check_words(cells, caption, _groups(study), f"{study} app: {caption[:40]}")


class _Tables(HTMLParser):
    """Each <table> of a page: its caption text and its rows of cell texts (header row first)."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tables: list[dict] = []
        self._where: str | None = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append({"caption": "", "rows": []})
        elif tag == "caption" and self.tables:
            self._where = "caption"
        elif tag == "tr" and self.tables:
            self.tables[-1]["rows"].append([])
        elif tag in ("td", "th") and self.tables and self.tables[-1]["rows"]:
            self.tables[-1]["rows"][-1].append("")
            self._where = "cell"

    def handle_endtag(self, tag):
        if tag in ("caption", "td", "th"):
            self._where = None

    def handle_data(self, data):
        if self._where == "caption":
            self.tables[-1]["caption"] += data
        elif self._where == "cell":
            self.tables[-1]["rows"][-1][-1] += data


def test_verdicts_every_report_table_shows_words_its_caption_defines(runs, tmp_path):
    for study, result in runs.items():
        page = result.report(tmp_path / f"{study}.html").read_text(encoding="utf-8")
        for table in _Tables(page).tables:
            header, *body = table["rows"] or [[]]
            for position in [i for i, h in enumerate(header) if h == "verdict" or h.endswith("_verdict")]:
                cells = [row[position] for row in body if len(row) > position]
                assert not set(cells) & {"a higher", "b higher"}, (study, table["caption"][:60])
                _check_words(cells, html.unescape(table["caption"]), _groups(study), f"{study} report")


def test_verdicts_every_figure_legend_names_its_groups(runs):
    from matplotlib.figure import Figure

    for study, result in runs.items():
        labels = {text for g in _groups(study) for text in verdicts.legend_labels(groups=g, margin="±0.01")}
        for name, item in result.figures().items():
            figure = item if isinstance(item, Figure) else item.figure
            legends = [*figure.legends, *(ax.get_legend() for ax in figure.axes if ax.get_legend() is not None)]
            for text in (t.get_text() for legend in legends for t in legend.get_texts()):
                assert not any(bad in text for bad in FORBIDDEN), (name, text)
                if text.startswith("two-way (names × templates): "):
                    assert text.removeprefix("two-way (names × templates): ") in labels, (name, text)


def test_verdicts_multilingual_tables_name_each_rows_groups_and_define_the_words():
    from toolkit.outputs import latex
    from toolkit.studies.multilingual.latex import LATEX_LAYOUTS

    frame = pd.DataFrame({"language": ["es", "es"], "source": ["camara2022"] * 2, "model": ["m"] * 2,
                          "task": ["valence"] * 2, "attribute": ["gender", "race"], "subset": ["all"] * 2,
                          "group_a": ["female", "African-American"], "group_b": ["male", "European"],
                          "estimate": [0.06, -0.001], "ci_low": [0.03, -0.01], "ci_high": [0.09, 0.008],
                          "p_adjusted": [0.001, 0.4], "verdict": ["a higher", "equivalent within ±0.01"]})
    tex = latex.render(LATEX_LAYOUTS["multilingual_gaps_table"].build(frame, settings={"margin": 0.01}),
                       preset="acl-double")
    caption = " ".join(re.findall(r"\\caption\{(.*?)\}\n", tex))
    assert "female higher" in tex and "a higher" not in tex
    assert "female higher = female higher than male, significant after correction" in caption
    assert r"equivalent = shown to lie within $\pm$0.01" in caption
    shown, legend = studies.get("multilingual").display(frame)
    assert shown["verdict"].tolist() == ["female higher", "equivalent"] and "female higher = " in legend
