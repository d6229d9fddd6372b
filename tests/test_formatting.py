"""toolkit.formatting: the one formatter of numbers, intervals, headers and model labels (reports, LaTeX, apps)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from toolkit import formatting as fmt


@pytest.mark.parametrize(("value", "expected"), [
    (1234567, "1,234,567"), (np.int64(7), "7"), (0.0123456, "0.01235"), (-2.5e-7, "-2.5e-07"), (123456.7, "123,456.7"),
    (float("nan"), "—"), (None, "—"), (pd.NA, "—"), (True, "True"), (float("inf"), "∞"), ("text", "text"),
])
def test_formatting_format_value(value, expected):
    assert fmt.format_value(value) == expected


@pytest.mark.parametrize(("value", "kwargs", "expected"), [
    (0.12345, {}, "0.123"), (-0.5, {}, "−0.500"), (-0.0001, {}, "0.000"), (12, {}, "12"), (np.int64(5), {}, "5"),
    (0.00004, {"p_value": True}, "<0.001"), (0.0312, {"p_value": True}, "0.031"), (float("nan"), {}, "—"),
    (None, {}, "—"), (False, {}, "no"), (37.444, {"decimals": 2}, "37.44"), (-float("inf"), {}, "−∞"),
])
def test_formatting_format_number_has_a_true_minus_and_a_p_floor(value, kwargs, expected):
    assert fmt.format_number(value, **kwargs) == expected


@pytest.mark.parametrize(("values", "counts", "expected"), [
    ([1.0, 2.0, 30.0], True, 0), ([1.0, 2.0, 30.0], False, 2), ([0.0, 0.0], False, 3), ([0.5, 3.2], True, 3),
    ([37.4, 1.0], True, 2), ([512.5], True, 1), ([12345.6], True, 0), ([np.nan, 0.25], True, 3), ([], False, 3),
])
def test_formatting_column_decimals_one_precision_per_column(values, counts, expected):
    assert fmt.column_decimals(pd.Series(values, dtype=float), counts=counts) == expected


def test_formatting_estimates_and_intervals_share_one_precision():
    assert fmt.format_estimate(0.01, -0.004, 0.024, decimals=3) == "0.010 [−0.004, 0.024]"
    assert fmt.format_estimate(0.01, np.nan, 0.02) == "0.010"  # no interval: the estimate alone
    assert fmt.format_interval(None, 0.2) == "—"


def test_formatting_headers_are_plain_text():
    assert fmt.header_text(("score_dev", "imdb")) == "score_dev imdb"
    assert fmt.header_text(("n", "")) == "n"
    assert fmt.header_text("ScoreDev") == "ScoreDev"


def test_formatting_short_labels_are_short_and_unique():
    labels = fmt.short_labels(["hf:/tmp/a/tiny-bert?labels=negative,positive", "hf:/tmp/b/tiny-bert", "vader",
                               "ait:svm-unigrams/joy", "py:my.module:score",
                               "hf:/root/.cache/huggingface/hub/models--org--roberta/snapshots/abc123"])
    assert labels["vader"] == "vader" and labels["ait:svm-unigrams/joy"] == "svm-unigrams"
    assert labels["py:my.module:score"] == "score"
    assert labels["hf:/root/.cache/huggingface/hub/models--org--roberta/snapshots/abc123"] == "roberta"
    clashing = [labels["hf:/tmp/a/tiny-bert?labels=negative,positive"], labels["hf:/tmp/b/tiny-bert"]]
    assert len(set(clashing)) == 2 and not any("?" in label for label in clashing)
