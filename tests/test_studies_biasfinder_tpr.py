"""BiasFinder's TPR rules (the paper's and the strict one), the released annotation vocabulary, κ with and without
merging "neutral" and "not sure"; every expected number is worked out by hand in the comments."""
import pandas as pd
import pytest

from toolkit.errors import SchemaError, UnknownNameError
from toolkit.studies.biasfinder import analysis as biasfinder

# As the released annotations write them: capitalised, a trailing space ("Positive ", quoted here only so that no
# editor strips it), "Not sure" in several spellings, "neutral" and "Neutral". Per annotator and BTC: the verdict under the paper's rule / the strict rule.
RELEASED = """btc_id,variant,annotator,coherent,sentiment
b1,a,A,Yes,Positive
b1,b,A,Yes,"Positive "
b2,a,A,Yes,Not sure
b2,b,A,Yes,not  sure
b3,a,A,Yes,Neutral
b3,b,A,Yes,neutral
b4,a,A,Yes,Neutral
b4,b,A,No,Not sure
b1,a,B,Yes,"Positive "
b1,b,B,No,Positive
b2,a,B,Unsure,Not sure
b2,b,B,Yes,Not sure
b3,a,B,yes,Not sure
b3,b,B,YES,Not Sure
b4,a,B,Yes,Negative
b4,b,B,Yes,Negative
"""
# A: b1 TP/TP; b2 (both not sure) TP/not; b3 (both neutral) TP/TP; b4 (b incoherent, neutral vs not sure) not/not
#    → paper 3/4 = 0.75, strict 2/4 = 0.5
# B: b1 (b incoherent) not/not; b2 (a unsure coherence) not/not; b3 (both not sure) TP/not; b4 TP/TP
#    → paper 2/4 = 0.5, strict 1/4 = 0.25


@pytest.fixture
def released(tmp_path):
    path = tmp_path / "annotations.csv"
    path.write_text(RELEASED)
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    assert frame.loc[1, "sentiment"] == "Positive "  # the trailing space survives reading
    return frame


@pytest.mark.parametrize("rule, expected", [("paper", {"A": 0.75, "B": 0.5}), ("strict", {"A": 0.5, "B": 0.25})])
def test_tpr_rules_differ_on_two_not_sure_labels(released, rule, expected):
    table = biasfinder.tpr(released, rule=rule)
    assert list(table.columns) == ["annotator", "n_btcs", "tpr", "rule"]
    assert table.set_index("annotator")["tpr"].to_dict() == expected
    assert table["n_btcs"].tolist() == [4, 4] and table["rule"].eq(rule).all()


def test_tpr_default_is_the_papers_rule(released):
    assert biasfinder.tpr(released).set_index("annotator")["tpr"].to_dict() == {"A": 0.75, "B": 0.5}
    assert list(biasfinder.TPR_COLUMNS) == ["annotator", "n_btcs", "tpr", "rule"]


def test_released_vocabulary_reads_as_the_annotation_apps(released):
    app = released.assign(coherent=released["coherent"].str.lower(),
                          sentiment=released["sentiment"].str.strip().str.lower().str.replace(r"not\s+sure", "unsure",
                                                                                             regex=True))
    assert set(app["sentiment"]) == {"positive", "negative", "neutral", "unsure"}
    assert set(app["coherent"]) == {"yes", "no", "unsure"}
    for rule in ("paper", "strict"):
        pd.testing.assert_frame_equal(biasfinder.tpr(released, rule=rule), biasfinder.tpr(app, rule=rule))
    for merge in (True, False):
        assert biasfinder.kappa(released, field="sentiment", merge_neutral=merge) == pytest.approx(
            biasfinder.kappa(app, field="sentiment", merge_neutral=merge))


def test_kappa_merges_neutral_and_not_sure_by_default(released):
    # sentiment per mutant, A | B: b1a pos|pos, b1b pos|pos, b2a uns|uns, b2b uns|uns, b3a neu|uns, b3b neu|uns,
    # b4a neu|neg, b4b uns|neg.
    # four classes: po = 4/8; A pos 2, neu 3, uns 3; B pos 2, uns 4, neg 2 → pe = (2·2 + 3·4)/64 = 1/4
    #   κ = (1/2 − 1/4) / (3/4) = 1/3
    # merged (neu → uns): po = 6/8; A pos 2, uns 6; B pos 2, uns 4, neg 2 → pe = (2·2 + 6·4)/64 = 7/16
    #   κ = (3/4 − 7/16) / (9/16) = 5/9
    assert biasfinder.kappa(released, field="sentiment", merge_neutral=False) == pytest.approx(1 / 3)
    assert biasfinder.kappa(released, field="sentiment", merge_neutral=True) == pytest.approx(5 / 9)
    assert biasfinder.kappa(released, field="sentiment") == pytest.approx(5 / 9)
    # coherent, A | B: yes|yes, yes|no, yes|unsure, yes|yes, yes|yes, yes|yes, yes|yes, no|yes: po = 5/8;
    # A yes 7, no 1; B yes 6, no 1, unsure 1 → pe = (7·6 + 1·1)/64 = 43/64; κ = (40 − 43)/(64 − 43) = −1/7
    for merge in (True, False):
        assert biasfinder.kappa(released, field="coherent", merge_neutral=merge) == pytest.approx(-1 / 7)


@pytest.mark.parametrize("column, value, allowed", [
    ("sentiment", "maybe", "allowed: negative, neutral, positive, unsure"),
    ("sentiment", "not_sure", "allowed: negative, neutral, positive, unsure"),
    ("coherent", "Y", "allowed: no, unsure, yes"),
    ("variant", "c", "allowed: a, b"),
])
def test_other_values_are_still_a_coded_schema_error(released, column, value, allowed):
    bad = released.copy()
    bad.loc[3, column] = value
    with pytest.raises(SchemaError, match=allowed) as caught:
        biasfinder.tpr(bad)
    assert caught.value.code == "TK101" and repr(value) in str(caught.value)
    with pytest.raises(SchemaError):
        biasfinder.kappa(bad, field="sentiment")


def test_unknown_tpr_rule_lists_the_rules(released):
    with pytest.raises(UnknownNameError, match="unknown TPR rule 'lenient'; available: paper, strict"):
        biasfinder.tpr(released, rule="lenient")


def test_kappa_for_an_annotator_with_no_rows_names_the_ones_found(released):
    from toolkit.errors import InputError

    found = sorted(released["annotator"].unique())
    with pytest.raises(InputError, match="no annotation by 'nobody'") as info:
        biasfinder.kappa(released, field="sentiment", annotators=(found[0], "nobody"))
    assert all(name in str(info.value) for name in found)


def test_no_annotation_yet_gives_an_empty_rate_table_not_a_key_error():
    import pandas as pd

    from toolkit.studies.biasfinder.analysis import (
        ANNOTATION_COLUMNS,
        TPR_COLUMNS,
        TPR_INTERVAL_COLUMNS,
        tpr,
        tpr_table,
    )

    empty = pd.DataFrame(columns=list(ANNOTATION_COLUMNS))
    assert list(tpr(empty).columns) == list(TPR_COLUMNS) and tpr(empty).empty
    assert list(tpr_table(empty).columns) == list(TPR_INTERVAL_COLUMNS) and tpr_table(empty).empty
