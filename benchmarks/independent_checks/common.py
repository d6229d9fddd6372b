"""Shared helpers for the review simulations (own code; only the project's estimators are called)."""
import numpy as np
from statsmodels.stats.proportion import proportion_confint


def rate(k, n):
    """k/n with the Wilson 95 % interval, as a string."""
    lo, hi = proportion_confint(k, n, alpha=0.05, method="wilson")
    return f"{k}/{n} = {100 * k / n:.2f} % [{100 * lo:.2f}, {100 * hi:.2f}]"
