"""Templates whose mutants differ only past a model's window are not tests of that model; Parquet results."""
import json

import pandas as pd
import pytest

from toolkit.outputs.files import write_table
from toolkit.outputs.runs import write
from toolkit.scoring import score
from toolkit.studies.biasfinder.analysis import btcs, table4

HEAD = "the good movie was not very"  # 6 words: at max_length=8 everything after them is cut


def _cases():
    rows = []
    for case, texts in {"past": [f"{HEAD} she feels happy", f"{HEAD} he feels angry"],
                        "inside": ["she feels happy", "he feels angry"]}.items():
        for group, text in zip(("female", "male"), texts):
            rows.append({"case_id": case, "variant_id": f"{case}-{group}", "text": text, "attribute": "gender",
                         "group": group, "fill": group, "generator": "biasfinder", "template": f"{case} template",
                         "is_original": False})
    return pd.DataFrame(rows)


@pytest.fixture()
def scored(tiny_bert_dir):
    return score(_cases(), models=[f"hf:{tiny_bert_dir}?max_length=8", "vader"], cache=False)


def test_templates_differing_only_past_the_window_are_flagged_per_model(scored, tiny_bert_dir):
    spec = f"hf:{tiny_bert_dir}?max_length=8"
    counts = btcs(scored).set_index(["model", "case_id"])
    assert counts.loc[(spec, "past"), "past_window"] and counts.loc[(spec, "past"), "n_btcs"] == 0
    assert not counts.loc[(spec, "inside"), "past_window"]
    assert not counts.loc[("vader", "past"), "past_window"]  # a lexicon reads the whole text
    table = table4(btcs(scored)).set_index("model")
    assert table.loc[spec, ["templates", "mutants", "templates_past_window"]].tolist() == [1, 2, 1]
    assert table.loc["vader", ["templates", "mutants", "templates_past_window"]].tolist() == [2, 4, 0]


def test_scored_table_round_trips_through_parquet(scored, tmp_path):
    pytest.importorskip("pyarrow")
    back = pd.read_parquet(write_table(scored, tmp_path / "scored.parquet"))
    as_text = {"text": str, "template": str}  # the categories' own dtype may come back as pandas' str
    pd.testing.assert_frame_equal(back.astype(as_text), scored.astype(as_text))
    assert isinstance(back["text"].dtype, pd.CategoricalDtype)  # each text stored once


def test_results_write_parquet_beside_csv_and_inputs_in_provenance(scored, tmp_path):
    pytest.importorskip("pyarrow")
    counts = btcs(scored)
    paths = write(study="biasfinder", tables={"biasfinder_btcs": counts}, axes={}, scored=scored,
                  fingerprints=scored.attrs.get("fingerprints"), inputs=scored.attrs.get("inputs"),
                  models=list(dict.fromkeys(scored["model"])), settings={}, out_dir=tmp_path, figures_dir=tmp_path,
                  formats=("csv", "parquet"), with_scored=True)
    names = {p.name for p in paths}
    assert {"biasfinder_btcs.csv", "biasfinder_btcs.parquet", "biasfinder_scored.parquet"} <= names
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "biasfinder_btcs.parquet"), counts)
    record = json.loads((tmp_path / "provenance.json").read_text())
    assert record["inputs"]["vader"]["model_inputs"] == 4
    assert min(v["model_inputs"] for v in record["inputs"].values()) == 3


def test_table4_reads_a_btc_table_written_before_the_flag(scored):
    old = btcs(scored).drop(columns="past_window")
    table = table4(old)
    assert (table["templates_past_window"] == 0).all() and table["templates"].tolist() == [2, 2]
    assert table["mutants"].tolist() == [4, 4]
