"""Drill-down: the changed words of hand-written pairs, escaping, and each study's pairs from a real small run."""
from __future__ import annotations

import re

import pandas as pd
import pytest
from conftest import corpus_of

from toolkit import drilldown
from toolkit.errors import SchemaError, UnknownNameError
from toolkit.studies import biasfinder, btcsam, eec
from toolkit.studies.biasfinder import drilldown as biasfinder_drilldown
from toolkit.studies.btcsam import drilldown as btcsam_drilldown
from toolkit.studies.eec import drilldown as eec_drilldown

# a scorer for the py: spec below: a sentence about a woman is negative, about a man positive (BiasFinder BTCs);
# religion terms get fixed scores (BTC-SAM's highest and lowest text are known)
_TERMS = {"christian": 0.7, "jewish": 0.5, "muslim": 0.3}


def gendered(texts: list[str]) -> list[float]:
    out = []
    for text in texts:
        words = set(re.findall(r"[a-z]+", text.lower()))
        terms = [score for term, score in _TERMS.items() if term in words]
        out.append(terms[0] if terms else 0.2 if words & {"she", "her"} else 0.8)
    return out


MODEL = "py:test_drilldown:gendered"


def _changed(tokens):
    return [token for token, changed in tokens if changed]


@pytest.mark.parametrize(("a", "b", "changed_a", "changed_b"), [
    ("Alonzo feels angry.", "Ebony feels angry.", ["Alonzo"], ["Ebony"]),  # a name swap
    ("Tom is great and he wins.", "Anna is great and she wins.", ["Tom", "he"], ["Anna", "she"]),  # name + pronoun
    ("He said it was great.", "She said it was great!", ["He", "."], ["She", "!"]),  # punctuation
    ("My brother made me feel sad.", "My sister made me feel sad.", ["brother"], ["sister"]),
    ("He's late, isn't he?", "She's late, isn't she?", ["He's", "he"], ["She's", "she"]),  # apostrophes
    ("The same text.", "The same text.", [], []),
])
def test_changed_words_marks_only_the_swapped_tokens(a, b, changed_a, changed_b):
    tokens_a, tokens_b = drilldown.changed_words(a, b)
    assert _changed(tokens_a) == changed_a and _changed(tokens_b) == changed_b
    assert "".join(t for t, _ in tokens_a) == a and "".join(t for t, _ in tokens_b) == b  # nothing lost


def test_changed_words_inserted_words_are_marked():
    tokens_a, tokens_b = drilldown.changed_words("The actor was awful.", "The old actor was awful.")
    assert _changed(tokens_a) == [] and _changed(tokens_b) == ["old"]


def test_pair_html_escapes_and_marks():
    row = {"key": "k<1>", "model": "m&n", "text_a": "<script>alert(1)</script> Tom wins.",
           "text_b": "<script>alert(1)</script> Anna wins.", "group_a": "<b>male</b>", "group_b": "female",
           "score_a": 0.75, "score_b": 0.5, "delta": 0.25}
    out = drilldown.pair_html(row)
    assert "<script>" not in out and "<b>male</b>" not in out and "k<1>" not in out
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in out and "m&amp;n" in out
    assert re.findall(r"<mark>(.*?)</mark>", out) == ["Tom", "Anna"]
    assert "0.750" in out and "0.500" in out and "+0.250" in out


def test_pair_html_marks_a_run_of_changed_words_once():
    out = drilldown.pair_html({"key": "k", "model": "m", "text_a": "my older sister is here",
                               "text_b": "my younger brother is here", "group_a": "f", "group_b": "m",
                               "score_a": 0.5, "score_b": 0.5, "delta": 0.0})
    assert re.findall(r"<mark>(.*?)</mark>", out) == ["older sister", "younger brother"]


@pytest.fixture(scope="module")
def eec_result():
    return eec.run(models=["vader"], subsets=["all"], cache=False, n_boot=200, progress=False)


def test_eec_pairs_are_the_papers_pairs_with_their_texts(eec_result):
    gender = eec_drilldown.eec_pairs(eec_result, model="vader", attribute="gender")
    assert tuple(gender.columns) == drilldown.PAIR_COLUMNS
    assert len(gender) == 144 * 30  # 144 template instantiations × (20 name pairs + 10 noun-phrase pairs)
    row = gender.set_index("key").loc["eec-t01-angry|Ebony/Alonzo"]  # first AA female and first AA male name
    assert (row["text_a"], row["text_b"], row["group_a"], row["group_b"]) == (
        "Ebony feels angry.", "Alonzo feels angry.", "female", "male")
    phrase = gender.set_index("key").loc["eec-t01-angry|my sister/my brother"]
    assert (phrase["text_a"], phrase["text_b"]) == ("My sister feels angry.", "My brother feels angry.")
    # the noun-phrase Δ and the mean Δ of a case's name pairs are the study's pairs (toolkit.studies.eec.analysis.pairs)
    frame = eec_result.frames["pairs"]
    study = frame[(frame["attribute"] == "gender") & (frame["subset"] == "all")]
    study = study.set_index(["case_id", "pair"])["delta"]
    assert phrase["delta"] == pytest.approx(study[("eec-t01-angry", "my sister/my brother")])
    phrases = set(study.index.get_level_values("pair")) - {"names (mean)"}
    assert len(phrases) == 10 and "she/he" in phrases
    names = gender[~gender["key"].str.split("|").str[1].isin(phrases)]  # "Ebony/Alonzo", not "she/he"
    assert len(names) == 144 * 20
    mean = names.groupby(names["key"].str.split("|").str[0])["delta"].mean()
    assert mean.to_numpy() == pytest.approx(study.xs("names (mean)", level="pair").reindex(mean.index).to_numpy(),
                                            abs=1e-12)
    race = eec_drilldown.eec_pairs(eec_result, model="vader", attribute="race")
    assert len(race) == 144 * 20 and set(race["group_a"]) == {"African-American"}
    assert race.set_index("key").loc["eec-t01-angry|Ebony/Amanda", "text_b"] == "Amanda feels angry."


def test_eec_pairs_unknown_model_or_attribute_lists_the_choices(eec_result):
    with pytest.raises(UnknownNameError, match="vader"):
        eec_drilldown.eec_pairs(eec_result, model="textblob", attribute="gender")
    with pytest.raises(UnknownNameError, match="gender"):
        eec_drilldown.eec_pairs(eec_result, model="vader", attribute="age")


def test_biasfinder_pairs_of_a_template_from_a_real_run():
    text = "Tom Hanks is great. He carries the film and his smile is warm."
    result = biasfinder.run(corpus=corpus_of([text]), models=["vader", MODEL], instances=["gender"], n_names=3,
                            cache=False, n_boot=100, progress=False)
    template = result.scored["case_id"].iloc[0]
    pairs = biasfinder_drilldown.biasfinder_pairs(result, template=template)
    assert tuple(pairs.columns) == drilldown.PAIR_COLUMNS
    assert pairs.groupby("model").size().to_dict() == {"vader": 9, MODEL: 9}  # 3 female × 3 male names, no original
    assert set(zip(pairs["group_a"], pairs["group_b"])) == {("female", "male")}
    btcs = biasfinder_drilldown.biasfinder_pairs(result, template=template, btcs_only=True)
    assert len(btcs) == 9 and set(btcs["model"]) == {MODEL}  # vader gives every mutant the same label
    assert btcs["delta"].to_numpy() == pytest.approx([0.2 - 0.8] * 9)
    first = btcs.iloc[0]
    assert first["key"].startswith(f"{MODEL}|{template}:female:") and "She carries" in first["text_a"]
    a, b = drilldown.changed_words(first["text_a"], first["text_b"])
    assert {"She", "her"} <= set(_changed(a)) and {"He", "his"} <= set(_changed(b))
    with pytest.raises(UnknownNameError):
        biasfinder_drilldown.biasfinder_pairs(result, template="no such template")


def test_btcsam_pairs_take_each_cases_highest_and_lowest_text():
    rows = []
    for case, template in (("c1", "The {} neighbours were kind."), ("c2", "My {} friend cooked dinner.")):
        for term in ("Christian", "Jewish", "Muslim"):
            rows.append({"case_id": case, "variant_id": f"{case}-{term}", "text": template.format(term),
                         "attribute": "religion", "group": term, "fill": term, "generator": "external:test",
                         "template": "", "is_original": term == "Christian", "bias_type": "religion"})
    result = btcsam.run(sets={"mini": pd.DataFrame(rows)}, models=[MODEL, "vader"], cache=False, progress=False)
    pairs = btcsam_drilldown.btcsam_pairs(result, test_set="mini", model=MODEL)
    assert tuple(pairs.columns) == drilldown.PAIR_COLUMNS
    assert pairs["key"].tolist() == ["mini/c1", "mini/c2"]
    assert pairs[["group_a", "group_b"]].values.tolist() == [["Christian", "Muslim"]] * 2
    assert pairs["text_a"].tolist() == ["The Christian neighbours were kind.", "My Christian friend cooked dinner."]
    assert pairs["delta"].to_numpy() == pytest.approx([0.4, 0.4])
    with pytest.raises(UnknownNameError, match="mini"):
        btcsam_drilldown.btcsam_pairs(result, test_set="eec", model=MODEL)


def test_browser_orders_by_absolute_delta_and_steps():
    pairs = drilldown.pairs_frame([
        {"key": "small", "model": "m", "text_a": "a x", "text_b": "a y", "group_a": "f", "group_b": "m",
         "score_a": 0.5, "score_b": 0.45},
        {"key": "big", "model": "m", "text_a": "Tom wins", "text_b": "Anna wins", "group_a": "m", "group_b": "f",
         "score_a": 0.1, "score_b": 0.9},
        {"key": "mid", "model": "m2", "text_a": "b x", "text_b": "b y", "group_a": "f", "group_b": "m",
         "score_a": 0.7, "score_b": 0.4}])
    widget = drilldown.browser(pairs=pairs, title="gender")
    app = widget.browser
    assert app.rows["key"].tolist() == ["big", "mid", "small"]
    assert "<mark>Tom</mark>" in app.view.value and "−" not in app.count.value and app.previous.disabled
    assert app.count.value == "1 of 3 pairs"
    app.next.click()
    assert app.current()["key"] == "mid" and app.count.value == "2 of 3 pairs"
    app.order.value = "Δ highest first"
    assert app.rows["key"].tolist() == ["mid", "small", "big"] and app.slider.value == 1
    app.model.value = "m2"
    assert app.rows["key"].tolist() == ["mid"] and app.next.disabled
    with pytest.raises(SchemaError):
        drilldown.browser(pairs=pd.DataFrame({"key": ["x"]}))


def test_browser_with_no_pairs_says_so():
    app = drilldown.browser(pairs=drilldown.pairs_frame()).browser
    assert "No pairs" in app.view.value and app.count.value == "0 of 0 pairs" and app.next.disabled
