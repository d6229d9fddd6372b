"""The BiasFinder annotation sample says which BTCs come from flagged fills (fill_flag_a/_b in sample_btcs;
btcs_flagged / sampled_flagged per characteristic × model and per characteristic in sample_strata). Every expected
number below is counted by hand from the frame in _scored()."""
import numpy as np
import pandas as pd
import pytest

from toolkit.errors import InputError, SchemaError
from toolkit.studies import biasfinder
from toolkit.studies.biasfinder.analysis import ANNOTATION_COLUMNS, SAMPLE_COLUMNS, STRATA_COLUMNS
from toolkit.studies.biasfinder.annotation import annotation_app

OLD_SAMPLE_COLUMNS = ("btc_id", "model", "attribute", "case_id", "variant_a", "variant_b", "text_a", "text_b",
                      "group_a", "group_b", "label_a", "label_b")


def _scored():
    """BTCs by hand (a BTC: same template, different group, different label):
    m1 gender  g1: f1+ (vader) / m1− / m2+        → f1–m1: 1 BTC, flagged (side a)
    m1 gender  g2: f1+ / m1−                      → 1 BTC, clean
    m1 gender  g3: f1− / m1+ (word-name) / m2+ (afinn,word-name) → f1–m1, f1–m2: 2 BTCs, both flagged (side b)
    m2 gender  g1: all positive                   → 0
    m2 gender  g2: f1+ / m1−                      → 1 BTC, clean
    m2 gender  g3: f1+ / m1− (word-name) / m2+    → f1–m1: 1 BTC, flagged
    m1 occupation o1: baker+ / chef− / pilot− (textblob) → baker–chef clean, baker–pilot flagged: 2 BTCs
    """
    flags = {"g1:f1": "vader", "g3:m1": "word-name", "g3:m2": "afinn,word-name", "o1:pilot": "textblob"}
    labels = {"m1": {"g1:f1": "positive", "g1:m1": "negative", "g1:m2": "positive", "g2:f1": "positive",
                     "g2:m1": "negative", "g3:f1": "negative", "g3:m1": "positive", "g3:m2": "positive",
                     "o1:baker": "positive", "o1:chef": "negative", "o1:pilot": "negative"},
              "m2": {"g1:f1": "positive", "g1:m1": "positive", "g1:m2": "positive", "g2:f1": "positive",
                     "g2:m1": "negative", "g3:f1": "positive", "g3:m1": "negative", "g3:m2": "positive"}}
    rows = []
    for model, by_variant in labels.items():
        for variant, label in by_variant.items():
            case_id, fill = variant.split(":")
            attribute = "occupation" if case_id.startswith("o") else "gender"
            group = fill if attribute == "occupation" else {"f": "female", "m": "male"}[fill[0]]
            rows.append({"model": model, "attribute": attribute, "case_id": case_id, "variant_id": variant,
                         "group": group, "label": label, "fill_flag": flags.get(variant, ""),
                         "text": f"text of {variant}", "is_original": False})
    return pd.DataFrame(rows)


def _everything(scored=None):
    return biasfinder.sample_btcs(_scored() if scored is None else scored, n=100, seed=0, per_template=5)


def test_sample_rows_carry_both_fill_flags():
    sample = _everything().set_index("btc_id")
    assert tuple(_everything().columns) == SAMPLE_COLUMNS
    assert SAMPLE_COLUMNS[:len(OLD_SAMPLE_COLUMNS)] == OLD_SAMPLE_COLUMNS  # new columns at the end
    assert len(sample) == 8
    assert sample.loc["m1|g1:f1|g1:m1", ["fill_flag_a", "fill_flag_b"]].tolist() == ["vader", ""]
    assert sample.loc["m1|g3:f1|g3:m2", ["fill_flag_a", "fill_flag_b"]].tolist() == ["", "afinn,word-name"]
    assert sample.loc["m1|o1:baker|o1:pilot", ["fill_flag_a", "fill_flag_b"]].tolist() == ["", "textblob"]
    assert sample.loc["m2|g2:f1|g2:m1", ["fill_flag_a", "fill_flag_b"]].tolist() == ["", ""]


def test_missing_or_nan_fill_flag_is_empty_text():
    without = _everything(_scored().drop(columns="fill_flag"))
    assert set(without["fill_flag_a"]) | set(without["fill_flag_b"]) == {""}
    nan = _scored()
    nan.loc[nan["variant_id"] == "g1:f1", "fill_flag"] = np.nan  # a row of another generator after a concat
    row = _everything(nan).set_index("btc_id").loc["m1|g1:f1|g1:m1"]
    assert (row["fill_flag_a"], row["fill_flag_b"]) == ("", "")


def _strata(sample):
    strata = biasfinder.sample_strata(_scored(), sample)
    assert tuple(strata.columns) == STRATA_COLUMNS
    return strata.set_index(["attribute", "model"])[["btcs", "btcs_flagged", "sampled", "sampled_flagged"]]


def test_strata_count_flagged_btcs_per_model_and_in_the_all_row():
    strata = _strata(_everything())
    assert strata.loc[("gender", "m1")].tolist() == [4, 3, 4, 3]
    assert strata.loc[("gender", "m2")].tolist() == [2, 1, 2, 1]
    assert strata.loc[("gender", "all")].tolist() == [6, 4, 6, 4]
    assert strata.loc[("occupation", "m1")].tolist() == [2, 1, 2, 1]
    assert strata.loc[("occupation", "all")].tolist() == [2, 1, 2, 1]


def _part(sample):
    """Four BTCs picked by hand: one flagged on side a, one clean, one flagged on side b, one clean."""
    picked = ["m1|g1:f1|g1:m1", "m1|g2:f1|g2:m1", "m2|g3:f1|g3:m1", "m1|o1:baker|o1:chef"]
    return sample[sample["btc_id"].isin(picked)].reset_index(drop=True)


def test_strata_count_a_flag_on_either_side_and_no_clean_btc():
    strata = _strata(_part(_everything()))
    assert strata.loc[("gender", "m1")].tolist() == [4, 3, 2, 1]  # g1 (side a) counts, g2 (clean) does not
    assert strata.loc[("gender", "m2")].tolist() == [2, 1, 1, 1]  # g3 (side b) counts
    assert strata.loc[("gender", "all")].tolist() == [6, 4, 3, 2]
    assert strata.loc[("occupation", "all")].tolist() == [2, 1, 1, 0]


def test_strata_read_an_old_sample_and_a_csv_round_trip(tmp_path):
    old = _part(_everything()).loc[:, list(OLD_SAMPLE_COLUMNS)]  # a sample made before the flag columns
    assert _strata(old).loc[("gender", "all")].tolist() == [6, 4, 3, 2]  # flags looked up in scored
    path = tmp_path / "sample.csv"
    _part(_everything()).to_csv(path, index=False)  # empty flags come back as NaN
    assert _strata(pd.read_csv(path)).loc[("gender", "all")].tolist() == [6, 4, 3, 2]
    unflagged = biasfinder.sample_strata(_scored().drop(columns="fill_flag"), old).set_index(["attribute", "model"])
    assert unflagged.loc[("gender", "all"), ["btcs_flagged", "sampled_flagged"]].tolist() == [0, 0]


def test_old_annotation_file_and_old_sample_still_work_in_the_app(tmp_path):
    path = tmp_path / "ann.csv"
    old = _part(_everything()).loc[:, list(OLD_SAMPLE_COLUMNS)]
    pd.DataFrame([{"btc_id": old.at[0, "btc_id"], "variant": v, "annotator": "ann1", "coherent": "yes",
                   "sentiment": "positive"} for v in "ab"]).to_csv(path, index=False)  # an old annotation file
    assert len(biasfinder.read_annotations(path)) == 2
    app = annotation_app(old, annotator="ann1", path=path)
    assert app.position == 1  # resumes after the BTC the old file finished
    app.record(variant="a", coherent="no", sentiment="negative")
    app = annotation_app(_part(_everything()), annotator="ann1", path=path)  # a new sample, same file
    assert app.n_done() == 1 and app.position == 1
    written = pd.read_csv(path, dtype=str, keep_default_na=False)
    assert tuple(written.columns) == ANNOTATION_COLUMNS  # the sample's flag columns do not leak into the file
    assert len(written) == 3


def _answers(annotator, btc_id, *, coherent_b="yes", sentiment_b="positive"):
    return [{"btc_id": btc_id, "variant": "a", "annotator": annotator, "coherent": "yes", "sentiment": "positive"},
            {"btc_id": btc_id, "variant": "b", "annotator": annotator, "coherent": coherent_b,
             "sentiment": sentiment_b}]


def _annotations():
    """ann1: g1 (flagged) TP, g2 (clean) TP, g3 (flagged) TP, o1 baker–chef (clean) not (sentiments differ), and a
    BTC of another sample TP → over all 4 of 5 = 0.8; over the sample's unflagged BTCs 1 of 2 = 0.5.
    ann2: only g1 (flagged) → absent from the unflagged table."""
    rows = (_answers("ann1", "m1|g1:f1|g1:m1") + _answers("ann1", "m1|g2:f1|g2:m1")
            + _answers("ann1", "m2|g3:f1|g3:m1") + _answers("ann1", "m1|o1:baker|o1:chef", sentiment_b="negative")
            + _answers("ann1", "m9|other:a|other:b") + _answers("ann2", "m1|g1:f1|g1:m1"))
    return pd.DataFrame(rows)


def test_tpr_table_over_btcs_without_flagged_fills():
    sample = _part(_everything())
    every = biasfinder.tpr_table(_annotations()).set_index("annotator")
    assert every.loc["ann1", ["n_btcs", "true_positives"]].tolist() == [5, 4]
    clean = biasfinder.tpr_table(_annotations(), unflagged_in=sample)
    assert clean["annotator"].tolist() == ["ann1"]
    assert clean.loc[0, ["n_btcs", "true_positives", "tpr"]].tolist() == [2, 1, 0.5]


def test_tpr_table_unflagged_needs_a_sample_with_flags_and_an_unflagged_btc():
    old = _part(_everything()).loc[:, list(OLD_SAMPLE_COLUMNS)]
    with pytest.raises(SchemaError) as found:
        biasfinder.tpr_table(_annotations(), unflagged_in=old)
    assert found.value.code == "TK101" and "sample_btcs" in found.value.fix
    only_flagged = _annotations()[lambda f: f["annotator"] == "ann2"]
    with pytest.raises(InputError, match="free of flagged fills"):
        biasfinder.tpr_table(only_flagged, unflagged_in=_part(_everything()))


def test_a_missing_flag_of_any_missing_kind_is_clean():
    import numpy as np

    from toolkit.studies.biasfinder.sampling import _flag

    for missing in (None, float("nan"), np.float32("nan"), pd.NA, np.nan):
        assert _flag(pd.Series({"fill_flag": missing}, dtype=object)) == "", repr(missing)
    assert _flag(pd.Series({"fill_flag": "vader"})) == "vader"
