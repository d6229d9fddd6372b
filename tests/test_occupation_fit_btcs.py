"""benchmarks/occupation_fit_btcs.py: its counting helpers on hand-written scored tables (expected counts written by
hand); no model is loaded and nothing here needs ../shared."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pandas as pd
import pytest

_PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "occupation_fit_btcs.py"
_spec = importlib.util.spec_from_file_location("occupation_fit_btcs", _PATH)
ob = importlib.util.module_from_spec(_spec)
sys.modules["occupation_fit_btcs"] = ob
_spec.loader.exec_module(ob)


def scored_case(case_id: str, labels: dict[str, str], *, model: str = "m") -> list[dict]:
    """An original row and one mutant per occupation with its predicted label, as score() writes them."""
    rows = [{"case_id": case_id, "variant_id": f"{case_id}:original", "group": "", "fill": "", "label": "positive",
             "is_original": True}]
    rows += [{"case_id": case_id, "variant_id": f"{case_id}:{occ}", "group": occ, "fill": occ, "label": label,
              "is_original": False} for occ, label in labels.items()]
    return [{**r, "model": model, "attribute": "occupation", "score": 0.5, "fill_flag": "",
             "input_id": i} for i, r in enumerate(rows)]


def table(*cases: list[dict]) -> pd.DataFrame:
    return pd.DataFrame([row for case in cases for row in case])


def test_btc_pairs_lists_every_pair_with_different_labels_and_matches_btcs():
    from toolkit.studies.biasfinder.analysis import btcs

    scored = table(scored_case("t1", {"nurse": "positive", "surgeon": "negative", "welder": "negative"}),
                   scored_case("t2", {"lawyer": "positive", "judge": "positive"}),
                   scored_case("t3", {"chef": "positive", "baker": "neutral", "pilot": "negative"}))
    pairs = ob.btc_pairs(scored)
    got = sorted(map(tuple, pairs[["case_id", "occupation_a", "occupation_b"]].to_numpy()))
    assert got == [("t1", "nurse", "surgeon"), ("t1", "nurse", "welder"), ("t3", "baker", "chef"),
                   ("t3", "baker", "pilot"), ("t3", "chef", "pilot")]
    assert len(pairs) == int(btcs(scored)["n_btcs"].sum()) == 5


def test_summary_counts_same_family_shares_and_rejects_a_wrong_pair_listing():
    scored = table(scored_case("t1", {"nurse": "positive", "surgeon": "negative", "welder": "negative"}),
                   scored_case("t2", {"lawyer": "positive", "judge": "positive"}))
    pairs = ob.btc_pairs(scored)
    rows, per_template = ob.summarise("none", scored, pairs, cases=scored[scored["model"] == "m"], seed=0)
    row = rows[0]
    assert (row["templates"], row["mutants"], row["templates_with_btc"], row["btcs"]) == (2, 5, 1, 2)
    assert row["btcs_per_template"] == 1.0
    assert row["same_family_btcs"] == 0.5  # nurse–surgeon (medicine) yes, nurse–welder no
    assert row["pairs_compared"] == 4  # 3 in t1, 1 in t2
    assert row["btc_rate"] == 0.5
    assert row["same_family_compared"] == 0.5  # nurse–surgeon and lawyer–judge
    assert sorted(per_template["n_btcs"]) == [0, 2]
    with pytest.raises(SystemExit, match="differ from btcs"):
        ob.summarise("none", scored, pairs.iloc[:1], cases=scored, seed=0)


def test_templates_past_the_window_count_no_pairs_compared():
    past = [{**r, "input_id": 0} for r in scored_case("t9", {"nurse": "positive", "surgeon": "positive"})]
    scored = table(scored_case("t1", {"nurse": "positive", "welder": "negative"}), past)
    rows, _ = ob.summarise("none", scored, ob.btc_pairs(scored), cases=scored, seed=0)
    assert (rows[0]["templates"], rows[0]["pairs_compared"], rows[0]["btc_rate"]) == (1, 1, 1.0)


def test_keep_fills_keeps_originals_and_the_listed_fills_only():
    cases = table(scored_case("t1", {"nurse": "positive", "surgeon": "negative", "welder": "negative"}))
    kept = cases[ob.keep_fills(cases, {"t1": ("nurse", "surgeon")})]
    assert kept["variant_id"].tolist() == ["t1:original", "t1:nurse", "t1:surgeon"]


def test_top_pairs_orders_by_count_and_names_the_families():
    pairs = pd.DataFrame({"model": "m", "case_id": ["a", "b", "c"],
                          "occupation_a": ["nurse", "nurse", "baker"], "occupation_b": ["surgeon", "surgeon", "pilot"]})
    top = ob.top_pairs(pairs, n=2)
    assert top[["occupation_a", "occupation_b", "btcs", "families"]].values.tolist() == [
        ["nurse", "surgeon", 2, "medicine"], ["baker", "pilot", 1, "food/transport"]]


def test_a_missing_corpus_is_skipped_with_a_message(tmp_path, capsys):
    assert ob.main(["--corpus", str(tmp_path / "absent.csv.gz")]) == 0
    assert "skipped: no corpus" in capsys.readouterr().out
