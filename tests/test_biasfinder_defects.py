"""benchmarks/biasfinder_defects.py: hand-written case tables, each defect present exactly once per attribute, and
clean ones with every count zero. Expected counts are written by hand; nothing here needs ../shared."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pandas as pd
import pytest

_PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "biasfinder_defects.py"
_spec = importlib.util.spec_from_file_location("biasfinder_defects", _PATH)
bd = importlib.util.module_from_spec(_spec)
sys.modules["biasfinder_defects"] = bd
_spec.loader.exec_module(bd)


def case(case_id: str, attribute: str, original: str, template: str, mutants: list[tuple[str, str]],
         gender: str = "") -> list[dict]:
    """An original row and its mutants (group, text), as the generators write them."""
    common = {"case_id": case_id, "attribute": attribute, "generator": "biasfinder", "template": template,
              "doc_id": case_id, "corpus": "hand", "occupation": ""}
    rows = [{**common, "variant_id": f"{case_id}:original", "text": original, "group": "", "fill": "",
             "is_original": True, "gender": gender}]
    for group, text in mutants:
        mutant_gender = group if attribute == "gender" else gender if attribute == "country" else ""
        rows.append({**common, "variant_id": f"{case_id}:{group}:{len(rows)}", "text": text, "group": group,
                     "fill": group, "is_original": False, "gender": mutant_gender})
    return rows


def table(*cases: list[dict]) -> pd.DataFrame:
    return pd.DataFrame([row for rows in cases for row in rows])


def counts(defects: pd.DataFrame) -> dict[tuple[str, str], tuple[int, int]]:
    return {(r.attribute, r.defect): (r.mutants, r.templates) for r in defects.itertuples()}


# Each defect exactly once per attribute (one defective mutant; the other mutants are clean).
DEFECTIVE = table(
    case("g-article", "gender", "A Spielberg film is a joy, and he knows it.",
         "A <name> film is a joy, and <subj> knows it.",
         [("female", "A Amanda film is a joy, and she knows it."),
          ("female", "A Barbara film is a joy, and she knows it.")], gender="male"),
    case("g-other", "gender", 'Mr. Smith is great. "I never lie",he admits, and I believe him.',
         'Mr. <name> is great. "I never lie",he admits, and I believe <obj>.',
         [("female", 'Mr. Mary is great. "I never lie",he admits, and I believe her.'),
          ("male", 'Mr. Todd is great. "I never lie",he admits, and I believe him.')], gender="male"),
    case("g-doubled", "gender", "a movie by todd Solondz and his crew.", "a movie by todd <name> and <pos> crew.",
         [("male", "a movie by todd Todd and his crew."), ("male", "a movie by todd Jeff and his crew.")],
         gender="male"),
    case("g-partial", "gender", "Shia LaBeouf is fine here, and he is funny.",
         "<name> LaBeouf is fine here, and <subj> is funny.",
         [("female", "Mary LaBeouf is fine here, and she is funny.")], gender="male"),
    case("g-quotes", "gender", 'The show "Lucy" made her a star.', 'The show "<name>" made <obj> a star.',
         [("male", 'The show "Todd" made him a star.')], gender="female"),
    case("c-partial", "country", "As a Dario Argento fan, I think he is great.",
         "As a Dario <name:male> fan, I think he is great.",
         [("Italy", "As a Dario Marco fan, I think he is great.")], gender="male"),
    case("o-article", "occupation", "Steven Rea plays a baker in Russia.", "Steven Rea plays a <occupation> in Russia.",
         [("accountant", "Steven Rea plays a accountant in Russia."),
          ("teacher", "Steven Rea plays a teacher in Russia.")]),
    case("o-quotes", "occupation", 'He played "the butler" well.', 'He played "the <occupation>" well.',
         [("teacher", 'He played "the teacher" well.')]),
    case("o-compound", "occupation", "It is a detective story, and I loved it.",
         "It is <a> <occupation> story, and I loved it.",
         [("accountant", "It is an accountant story, and I loved it.")]),
)

EXPECTED = {
    ("gender", "article"): (1, 1), ("gender", "other_gender_word"): (1, 1),
    ("gender", "other_gender_pronoun"): (1, 1), ("gender", "other_gender_honorific"): (1, 1),
    ("gender", "doubled_word"): (1, 1), ("gender", "partial_name"): (1, 1), ("gender", "slot_in_quotes"): (1, 1),
    ("country", "article"): (0, 0), ("country", "other_gender_word"): (0, 0),
    ("country", "other_gender_pronoun"): (0, 0), ("country", "other_gender_honorific"): (0, 0),
    ("country", "doubled_word"): (0, 0), ("country", "partial_name"): (1, 1), ("country", "slot_in_quotes"): (0, 0),
    ("occupation", "article"): (1, 1), ("occupation", "doubled_word"): (0, 0),
    ("occupation", "slot_in_quotes"): (1, 1), ("occupation", "occupation_compound"): (1, 1),
}

# Nothing the mutation made is wrong: every count is zero.
CLEAN = table(
    case("g-clean", "gender", "When Tom arrived, he smiled at his friends. It was a awful film.",
         "When <name> arrived, <subj> smiled at <pos> friends. It was a awful film.",
         [("female", "When Amanda arrived, she smiled at her friends. It was a awful film."),
          ("male", "When Arnold arrived, he smiled at his friends. It was a awful film.")], gender="male"),
    case("g-her-her", "gender", "Tom was kind; I gave him his hat.", "<name> was kind; I gave <obj> <pos> hat.",
         [("female", "Mary was kind; I gave her her hat.")], gender="male"),
    case("g-forms", "gender", "She said the aunt was an actress.", "<Subj> said the <noun:uncle> was an <noun:actor>.",
         [("female", "She said the aunt was an actress."), ("male", "He said the uncle was an actor.")],
         gender="female"),
    case("c-clean", "country", "Mr. Smith is great, and he knows it.", "Mr. <name:male> is great, and he knows it.",
         [("Finland", "Mr. Kauko is great, and he knows it."), ("UK", "Mr. Theoden is great, and he knows it.")],
         gender="male"),
    case("o-clean", "occupation", "She is a very good chef and an heir, and the chef is happy.",
         "She is <a> <occupation> and an heir, and the <occupation> is happy.",
         [("accountant", "She is an accountant and an heir, and the accountant is happy."),
          ("CEO", "She is a CEO and an heir, and the CEO is happy."),
          ("engineer", "She is an engineer and an heir, and the engineer is happy.")]),
)


@pytest.fixture(scope="module")
def defective() -> pd.DataFrame:
    return bd.count_defects(DEFECTIVE)


def test_each_defect_is_found_exactly_once(defective):
    assert list(defective.columns) == list(bd.OUTPUT_COLUMNS)
    assert counts(defective) == EXPECTED
    examples = dict(zip(zip(defective["attribute"], defective["defect"]), defective["example"]))
    assert "A Amanda film" in examples[("gender", "article")]
    assert "plays a accountant" in examples[("occupation", "article")]
    assert "todd Todd" in examples[("gender", "doubled_word")]
    assert "Mary LaBeouf" in examples[("gender", "partial_name")]
    assert "Dario Marco" in examples[("country", "partial_name")]
    assert "accountant story" in examples[("occupation", "occupation_compound")]
    assert ",he admits" in examples[("gender", "other_gender_pronoun")]
    assert "Mr. Mary" in examples[("gender", "other_gender_honorific")]
    assert defective.attrs["totals"] == {"gender": {"mutants": 8, "templates": 5},
                                         "country": {"mutants": 1, "templates": 1},
                                         "occupation": {"mutants": 4, "templates": 3}}


def test_clean_tables_count_zero():
    found = bd.count_defects(CLEAN)
    assert set(found["attribute"]) == {"gender", "country", "occupation"}
    assert found["mutants"].sum() == 0 and found["templates"].sum() == 0
    assert (found["example"] == "").all()


def test_without_the_parse_word_tests_alone_still_find_them():
    found = counts(bd.count_defects(DEFECTIVE, parse=False))
    assert found[("gender", "partial_name")] == (1, 1)
    assert found[("occupation", "occupation_compound")] == (1, 1)
    assert counts(bd.count_defects(CLEAN, parse=False)) == {k: (0, 0) for k in counts(bd.count_defects(CLEAN))}


def test_a_scored_table_is_deduplicated_on_variant_id(defective):
    scored = pd.concat([DEFECTIVE.assign(model=m) for m in ("vader", "textblob")], ignore_index=True)
    scored["text"] = scored["text"].astype("category")
    scored["template"] = scored["template"].astype("category")
    assert counts(bd.count_defects(scored)) == counts(defective)


def test_csv_and_main(tmp_path, capsys):
    path = tmp_path / "cases.csv"
    DEFECTIVE.to_csv(path, index=False)  # is_original as "True"/"False", '' read back as ''
    out = tmp_path / "defects.csv"
    assert bd.main([str(path), "--out", str(out), "--no-parse"]) == 0
    printed = capsys.readouterr().out
    assert "occupation_compound" in printed and "gender: 8 mutants of 5 templates" in printed
    written = pd.read_csv(out, keep_default_na=False)
    assert counts(written) == counts(bd.count_defects(DEFECTIVE, parse=False))


def test_a_mutant_its_template_does_not_give_falls_back_on_a_word_diff():
    # the template has no slots: the mutants are diffed with the original word by word
    rows = table(case("o-diff", "occupation", "He hired an excellent small-time crook and a good lawyer.",
                      "He hired them.",
                      [("baker", "He hired an small-time crook and a good lawyer."),  # an excellent → an small-time
                       ("editor", "He hired an excellent small-time crook and a editor."),  # a good lawyer → a editor
                       ("judge", "He hired an excellent small-time crook and a judge.")]))
    assert counts(bd.count_defects(rows))[("occupation", "article")] == (2, 1)


def test_a_case_without_its_original_is_skipped_and_counted():
    rows = DEFECTIVE[DEFECTIVE["variant_id"] != "g-article:original"]
    found = bd.count_defects(rows)
    assert found.attrs["skipped_no_original"] == 2
    assert counts(found)[("gender", "article")] == (0, 0)


@pytest.mark.parametrize("word, article", [
    ("Amanda", "an"), ("Barbara", "a"), ("accountant", "an"), ("small-time", "a"), ("hour", "an"), ("honest", "an"),
    ("heir", "an"), ("house", "a"), ("one-man", "a"), ("once", "a"), ("unique", "a"), ("university", "a"),
    ("uninspired", "an"), ("useless", "a"), ("usual", "a"), ("European", "a"), ("Eugene", "a"), ("utter", "an"),
    ("umbrella", "an"), ("FBI", None), ("CEO", "a"), ("MTV", None), ("NBA", None), ("AWFUL", "an"), ("UFO", "a"),
    ("X", "an"), ("B", "a"), ("8", "an"), ("80s", "an"), ("1980s", "a"), ("11", "an"), ("18,000", "an"),
    ("100", "a"), ("historic", None), ("history", "a"), ("herb", None), ("onset", "an"), ("Émile", "an"),
    ("x-ray", "an"), ("U-turn", "a"), ("Ukrainian", "a"),
])
def test_article_rule(word, article):
    assert bd.article_for(word) == article


def test_align_finds_each_slot_value():
    literals, slots, _ = bd._split("<A> <occupation> met <name>'s friend.")
    assert slots == ["a", "occupation", "name"]
    text = "A very good chef met Tom Hanks's friend."
    assert [text[s:e] for s, e in bd.align(text, literals)] == ["A", "very good chef", "Tom Hanks"]
    assert bd.align("Something else.", literals) is None
