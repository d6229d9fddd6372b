import pandas as pd
import pytest

from toolkit.errors import InputError, SchemaError
from toolkit.studies.biasfinder import analysis as biasfinder


@pytest.mark.parametrize("population, expected", [(14916, 375), (109386, 383), (5296, 358)])
def test_sample_size_matches_the_papers_numbers(population, expected):
    assert biasfinder.sample_size(population, margin=0.05, confidence=0.95) == expected


def test_sample_size_never_exceeds_the_population_and_checks_input():
    assert biasfinder.sample_size(10) == 10
    with pytest.raises(InputError):
        biasfinder.sample_size(100, margin=0)


def _scored():
    rows = [("t1", "female", "positive"), ("t1", "female", "positive"), ("t1", "female", "negative"),
            ("t1", "male", "positive"), ("t1", "male", "negative"),
            ("t2", "nurse", "positive"), ("t2", "pilot", "negative"), ("t2", "chef", "positive")]
    frame = pd.DataFrame(rows, columns=["case_id", "group", "label"])
    frame["attribute"] = frame["case_id"].map({"t1": "gender", "t2": "occupation"})
    frame["is_original"] = False
    original = pd.DataFrame([{"case_id": "t1", "group": "", "label": "negative", "attribute": "gender",
                              "is_original": True}])
    return pd.concat([frame, original], ignore_index=True).assign(model="m")


def test_btcs_count_cross_class_pairs_with_different_labels():
    counts = biasfinder.btcs(_scored()).set_index("case_id")
    assert counts.loc["t1", "n_btcs"] == 2 * 1 + 1 * 1  # pos_F × neg_M + neg_F × pos_M
    assert counts.loc["t2", "n_btcs"] == 2  # nurse–pilot and pilot–chef
    assert counts.loc["t1", "n_mutants"] == 5 and counts.loc["t2", "n_classes"] == 3


def test_table4_sums_per_characteristic():
    table = biasfinder.table4(biasfinder.btcs(_scored())).set_index("attribute")
    assert table.loc["gender", ["templates", "mutants", "templates_with_btc", "btcs"]].tolist() == [1, 5, 1, 3]


ANNOTATIONS = """btc_id,variant,annotator,coherent,sentiment
1,a,A,yes,positive
1,b,A,yes,positive
2,a,A,no,negative
2,b,A,yes,negative
1,a,B,yes,positive
1,b,B,no,positive
2,a,B,no,negative
2,b,B,yes,unsure
"""


@pytest.fixture
def annotations(tmp_path):
    path = tmp_path / "annotations.csv"
    path.write_text(ANNOTATIONS)
    return pd.read_csv(path)


def test_tpr_per_annotator(annotations):
    table = biasfinder.tpr(annotations).set_index("annotator")
    assert table.loc["A", "n_btcs"] == 2 and table.loc["A", "tpr"] == 0.5
    assert table.loc["B", "tpr"] == 0.0


def test_cohens_kappa_by_hand(annotations):
    # coherent: agreement 3/4, chance 3/4·2/4 + 1/4·2/4 = 1/2 → κ = 0.5
    assert biasfinder.kappa(annotations, field="coherent") == pytest.approx(0.5)
    # sentiment: agreement 3/4, chance .5·.5 + .5·.25 = .375 → κ = .375 / .625 = 0.6
    assert biasfinder.kappa(annotations, field="sentiment") == pytest.approx(0.6)


def test_annotation_errors(annotations):
    with pytest.raises(SchemaError, match="only one mutant"):
        biasfinder.tpr(annotations.drop(index=0))
    with pytest.raises(SchemaError, match="lacks column 'coherent'"):
        biasfinder.tpr(annotations.drop(columns="coherent"))
    with pytest.raises(InputError, match="unknown field"):
        biasfinder.kappa(annotations, field="mood")


def test_public_api_lives_under_toolkit_biasfinder():
    from toolkit.studies import biasfinder as api

    assert api.sample_size(5296) == 358 and callable(api.tpr) and callable(api.kappa)


def test_annotation_values_are_checked_and_kappa_needs_two_categories(annotations):
    bad = annotations.copy()
    bad.loc[0, "coherent"] = "y"
    with pytest.raises(SchemaError, match="allowed: no, unsure, yes"):
        biasfinder.tpr(bad)
    with pytest.raises(SchemaError, match="twice"):
        biasfinder.tpr(pd.concat([annotations, annotations.head(1)]))
    same = annotations.assign(coherent="yes")
    with pytest.raises(InputError, match="undefined"):
        biasfinder.kappa(same, field="coherent")


def test_btcs_count_every_classed_row_when_there_is_no_unperturbed_original():
    scored = _scored()
    scored.loc[scored["case_id"] == "t2", "is_original"] = [True, False, False]  # a loader marking its first row
    assert biasfinder.btcs(scored).set_index("case_id").loc["t2", "n_btcs"] == 2


def _templates():
    """gender: five templates of 3, 1, 4, 2 and 5 rows; occupation: two templates of 2 rows."""
    sizes = {("gender", "g1"): 3, ("gender", "g2"): 1, ("gender", "g3"): 4, ("gender", "g4"): 2, ("gender", "g5"): 5,
             ("occupation", "o1"): 2, ("occupation", "o2"): 2}
    rows = [{"attribute": a, "case_id": c, "variant_id": f"{c}:{i}"} for (a, c), n in sizes.items() for i in range(n)]
    return pd.DataFrame(rows), {c: n for (_, c), n in sizes.items()}


def test_sample_templates_caps_each_characteristic_and_keeps_whole_templates():
    cases, sizes = _templates()
    sample = biasfinder.sample_templates(cases, max_templates=3, seed=0)
    kept = sample.groupby("attribute")["case_id"].nunique()
    assert kept["gender"] == 3 and kept["occupation"] == 2  # occupation has only two
    assert all(n == sizes[case_id] for case_id, n in sample.groupby("case_id").size().items())
    assert sample.index.is_monotonic_increasing  # original row order


def test_sample_templates_is_seeded_and_nested():
    cases, _ = _templates()
    draws = {seed: set(biasfinder.sample_templates(cases, max_templates=2, seed=seed)["case_id"]) for seed in range(8)}
    assert draws[3] == set(biasfinder.sample_templates(cases, max_templates=2, seed=3)["case_id"])
    assert len({frozenset(d) for d in draws.values()}) > 1  # the seed matters
    assert draws[5] <= set(biasfinder.sample_templates(cases, max_templates=4, seed=5)["case_id"])


@pytest.mark.parametrize("bad", [0, -2])
def test_sample_templates_rejects_fewer_than_one(bad):
    cases, _ = _templates()
    with pytest.raises(InputError, match=r"\[TK102\] max_templates must be at least 1"):
        biasfinder.sample_templates(cases, max_templates=bad)


def test_studies_biasfinder_split_keeps_every_name_importable():
    """The split into counting / sampling / judgements / btc_rates keeps the old names on the package; the CSV reader
    moved to toolkit.studies.biasfinder.annotation_files, a layer above, and the old name's error names it."""
    import toolkit.studies.biasfinder.analysis as package
    from toolkit.studies.biasfinder import btc_rates, counting, judgements, sampling
    from toolkit.studies.biasfinder.annotation_files import read_annotation_csv

    for name, module in [("btcs", counting), ("table4", counting), ("sample_templates", counting),
                         ("pair_counts", counting), ("sample_btcs", sampling), ("sample_strata", sampling),
                         ("sample_size", sampling), ("tpr", judgements), ("kappa", judgements),
                         ("tpr_table", judgements), ("kappa_table", judgements), ("rates", btc_rates),
                         ("table4_rates", btc_rates)]:
        assert getattr(package, name) is getattr(module, name)
    assert callable(read_annotation_csv)
    with pytest.raises(AttributeError, match="toolkit.studies.biasfinder.annotation_files.read_annotation_csv"):
        package.read_annotation_csv
