"""Issue 37, round three (part B): statistics on designs that cannot be estimated and statistics options out of
range end in a coded error naming the fix, at every entry point (estimators, study functions, CLI, apps)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from toolkit import checks, stats
from toolkit.errors import InputError, ToolkitError

GOOD = np.array([[0.10, 0.20, 0.25], [0.30, 0.35, 0.50], [0.20, 0.15, 0.40], [0.05, 0.30, 0.20]])


@pytest.mark.parametrize("matrix, pattern", [
    (np.array([[0.1, 0.2, 0.3]]), r"at least 2 of each; got shape \(1, 3\)"),  # one template
    (np.array([[0.1], [0.2], [0.4]]), r"at least 2 of each; got shape \(3, 1\)"),  # one name
    (np.array([[0.1, np.nan], [0.2, 0.3], [0.4, 0.5]]), r"1 NaN or infinite cell"),
    (np.array([[0.1, np.inf], [0.2, 0.3], [0.4, 0.5]]), r"1 NaN or infinite cell"),
    (np.array([[0.1, -np.inf], [np.nan, 0.3], [0.4, 0.5]]), r"2 NaN or infinite cell"),
])
def test_two_way_bootstrap_of_a_design_it_cannot_estimate_is_tk102_never_a_p(matrix, pattern):
    with pytest.raises(InputError, match=pattern) as excinfo:
        stats.two_way_bootstrap(matrix)
    assert excinfo.value.code == "TK102" and excinfo.value.fix
    with pytest.raises(InputError, match=pattern):
        stats.variance_components(matrix)


def test_two_way_bootstrap_of_a_good_design_still_gives_an_interval_around_its_estimate():
    result = stats.two_way_bootstrap(GOOD, n_boot=checks.N_BOOT_MIN)
    assert result["estimate"] == pytest.approx(GOOD.mean())
    assert 0 < result["p_value"] <= 1 and np.isfinite(result["ci_low"]) and np.isfinite(result["ci_high"])


@pytest.mark.parametrize("call", [
    lambda **k: stats.two_way_bootstrap(GOOD, **k),
    lambda **k: stats.kappa_interval(list("aabbaab"), list("abbbaab"), **k),
    lambda **k: stats.kendall_tau([1, 2, 3, 4, 5], [1, 3, 2, 5, 4], **k),
])
@pytest.mark.parametrize("kwargs, pattern", [
    ({"n_boot": 0}, r"n_boot must be a whole number from 10 to 100,000; got 0"),
    ({"n_boot": -5}, r"n_boot must be a whole number from 10 to 100,000; got -5"),
    ({"n_boot": 2}, r"n_boot .* got 2"),
    ({"n_boot": 10**9}, r"n_boot .* got 1,000,000,000"),
    ({"n_boot": 2.5}, r"n_boot .* got 2\.5"),
    ({"alpha": 2}, r"alpha must be a number strictly between 0 and 0\.5; got 2"),
    ({"alpha": -1}, r"alpha .* got -1"),
    ({"alpha": 0}, r"alpha .* got 0"),
    ({"alpha": float("nan")}, r"alpha .* got nan"),
    ({"seed": -1}, r"seed .* got -1"),
])
def test_bootstrap_estimators_check_alpha_n_boot_and_seed_at_entry(call, kwargs, pattern):
    with pytest.raises(InputError, match=pattern):
        call(**kwargs)


@pytest.mark.parametrize("call", [
    lambda: stats.kappa_interval(list("aabba"), list("abbb")),
    lambda: stats.kendall_tau([1, 2, 3, 4], [1, 3, 2]),
])
def test_paired_statistics_of_unequal_lengths_are_tk102(call):
    with pytest.raises(InputError, match=r"paired but have \d and \d items"):
        call()


def test_kendall_tau_with_a_missing_value_is_tk102_not_a_nan_tau_with_an_interval():
    with pytest.raises(InputError, match=r"y holds 1 NaN and 0 infinite value\(s\) of 6"):
        stats.kendall_tau([1, 2, 3, 4, 5, 6], [1, 3, 2, 4, np.nan, 6])


@pytest.mark.parametrize("p", [[-0.5, 0.2], [0.2, 1.5], [0.1, np.inf]])
def test_adjust_refuses_p_values_outside_the_unit_interval(p):
    with pytest.raises(InputError, match=r"p_values must lie in \[0, 1\]"):
        stats.adjust(p)


def test_adjust_keeps_nan_as_not_tested_and_never_returns_a_negative_p():
    out = stats.adjust([0.0, np.nan, 0.2, 1.0], method="holm")
    assert np.isnan(out[1]) and (out[~np.isnan(out)] >= 0).all() and (out[~np.isnan(out)] <= 1).all()


@pytest.mark.parametrize("args, pattern", [
    ((5, 3, 1, 3), r"k_a must lie in \[0, n\]; got 5 of 3"),
    ((1, 3, 4, 3), r"k_b must lie in \[0, n\]; got 4 of 3"),
    ((-1, 3, 1, 3), r"k_a must lie in \[0, n\]"),
    ((np.nan, 3, 1, 3), r"finite numbers"),
])
def test_rate_difference_refuses_counts_outside_their_totals(args, pattern):
    with pytest.raises(InputError, match=pattern):
        stats.rate_difference(*args)


def test_rate_difference_accepts_rates_times_totals_with_float_noise():
    n = 7
    k = (3 / n) * n  # 3.0000000000000004 on some platforms: a count, not an error
    assert stats.rate_difference(k, n, 1, n)["estimate"] == pytest.approx(2 / 7)


@pytest.mark.parametrize("call", [
    lambda: stats.paired_t([0.1, 0.2, 0.3], alpha=0.7),
    lambda: stats.wilson(0, 0, alpha=0.7),  # an empty count used to skip the check
    lambda: stats.verdict(estimate=0.1, se=0.01, df=10, p_adjusted=0.01, alpha=0.9),
])
def test_every_estimator_checks_alpha_at_entry(call):
    with pytest.raises(InputError, match=r"alpha must be"):
        call()


def test_paired_t_with_an_infinite_difference_is_tk102():
    with pytest.raises(InputError, match=r"differences holds 0 NaN and 1 infinite"):
        stats.paired_t([0.1, np.inf, 0.2])


def test_bootstrap_size_refuses_more_replicates_than_memory_holds_and_names_the_most_that_fit():
    with pytest.raises(InputError, match=r"at most 50,000 ") as excinfo:
        checks.bootstrap_size(n_boot=100_000, cells=10_000)
    assert "GiB" in str(excinfo.value)
    checks.bootstrap_size(n_boot=100_000, cells=5000)  # 5e8: exactly at the limit, accepted


def test_n_boot_bounds_are_inclusive_and_zero_only_where_it_skips_intervals():
    assert checks.n_boot(10) == 10 and checks.n_boot(100_000) == 100_000 and checks.n_boot(1e3) == 1000
    assert checks.n_boot(0, allow_zero=True) == 0
    with pytest.raises(InputError, match=r"from 10 to 100,000 \(or 0: no intervals\); got 5"):
        checks.n_boot(5, allow_zero=True)
    with pytest.raises(InputError, match=r"from 100 to 100,000"):
        checks.n_boot(50, minimum=100)


def test_checks_lists_the_same_corrections_as_stats():
    assert checks.CORRECTIONS == stats.METHODS


@pytest.mark.parametrize("n_boot", [1, 2, 10**9])
def test_psa_summary_and_label_dist_refuse_n_boot_out_of_range_but_keep_zero(n_boot):
    from toolkit.studies.psa import analysis as psa

    with pytest.raises(InputError, match=rf"n_boot .* \(or 0: no intervals\); got {n_boot:,}"):
        psa.summary(pd.DataFrame(), n_boot=n_boot)
    with pytest.raises(InputError, match=r"n_boot"):
        psa.label_dist(pd.DataFrame(), n_boot=n_boot)


@pytest.mark.parametrize("n_boot", ["1", "2", str(10**9)])
def test_cli_psa_n_boot_out_of_range_is_tk102_before_scoring(n_boot, capsys, monkeypatch, tmp_path):
    from toolkit import __main__ as cli
    from toolkit.studies import psa

    monkeypatch.setattr(psa, "score", lambda *a, **k: pytest.fail("scored before checking --n-boot"))
    code = cli.main(["psa", "--model", "vader", "--n-boot", n_boot, "--no-cache", "--out",
                     str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code != 0 and "[TK102] n_boot must be a whole number from 10 to 100,000" in err, err


def test_cli_eec_n_boot_above_the_cap_is_tk102(capsys, tmp_path):
    from toolkit import __main__ as cli

    code = cli.main(["eec", "--model", "vader", "--n-boot", str(10**9), "--no-cache", "--out",
                     str(tmp_path / "out")])
    assert code != 0 and "[TK102] n_boot must be a whole number from 100 to 100,000" in capsys.readouterr().err


@pytest.mark.parametrize("kwargs, pattern", [({"n_boot": 0}, "n_boot"), ({"alpha": 0.7}, "alpha"),
                                             ({"seed": -3}, "seed")])
def test_agreement_checks_its_statistics_options_first(kwargs, pattern):
    from toolkit.studies import agreement

    with pytest.raises(InputError, match=pattern):
        agreement.agreement(scored={}, **kwargs)


@pytest.mark.parametrize("kwargs", [{"n_boot": 1}, {"alpha": 1.0}])
def test_biasfinder_kappa_table_checks_its_options_first(kwargs):
    from toolkit.studies.biasfinder import analysis as biasfinder

    with pytest.raises(ToolkitError, match=next(iter(kwargs))):
        biasfinder.kappa_table(pd.DataFrame(), field="coherent", **kwargs)


def test_annotation_app_checks_n_boot(tmp_path):
    from toolkit.studies.biasfinder.annotation import annotation_app

    btcs = pd.DataFrame({"btc_id": ["b"], "variant": ["a"], "text": ["t"]})
    with pytest.raises(InputError, match=r"n_boot .* got 3"):
        annotation_app(btcs, annotator="x", path=tmp_path / "a.csv", n_boot=3)


@pytest.mark.parametrize("call, pattern", [
    (lambda: __import__("toolkit.studies.eec.analysis", fromlist=["x"]).null_baseline(pd.DataFrame(), attribute="gender",
                                                                             n_null=0), r"n_null .* got 0"),
    (lambda: __import__("toolkit.studies.eec.analysis", fromlist=["x"]).null_baseline(pd.DataFrame(), attribute="gender",
                                                                             seed=-1), r"seed .* got -1"),
    (lambda: __import__("toolkit.studies.psa.analysis", fromlist=["x"]).gender_gap(pd.DataFrame(), n_null=10**9),
     r"n_null .* got 1,000,000,000"),
    (lambda: __import__("toolkit.studies.biasfinder.analysis", fromlist=["x"]).rates(pd.DataFrame(), seed=-1),
     r"seed .* got -1"),
    (lambda: __import__("toolkit.studies.btcsam.analysis", fromlist=["x"]).detection_intervals(pd.DataFrame(), alpha=0.9),
     r"alpha .* got 0\.9"),
    (lambda: __import__("toolkit.studies.btcsam.analysis", fromlist=["x"]).pooled_failure_percentage(pd.DataFrame(),
                                                                                            alpha=0.9),
     r"alpha .* got 0\.9"),
])
def test_study_functions_check_null_splits_seeds_and_alpha_before_reading_the_table(call, pattern):
    with pytest.raises(InputError, match=pattern):
        call()


def test_checks_is_a_leaf_importing_only_toolkit_errors():
    import ast
    from pathlib import Path

    tree = ast.parse(Path(checks.__file__).read_text(encoding="utf-8"))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert {m for m in imported if m.startswith("toolkit")} == {"toolkit.errors"}


def test_model_list_still_takes_a_loaded_model_as_a_list_of_one():
    from toolkit.models import load

    model = load("vader")
    assert checks.model_list(model) == [model] and checks.model_list([model, "afinn"]) == [model, "afinn"]


@pytest.mark.parametrize("margin", [float("nan"), float("inf"), 0, -0.1, 1.5])
def test_verdict_refuses_a_margin_that_is_not_a_positive_number_below_1(margin):
    with pytest.raises(InputError, match=r"margin must be positive and below 1"):
        stats.verdict(estimate=0.0, se=0.001, df=10, p_adjusted=1.0, margin=margin)
