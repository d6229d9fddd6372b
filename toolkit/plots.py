"""Figures: data in, matplotlib Axes out (seaborn underneath). Saving is the caller's choice (see ``save``)."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

from toolkit.errors import InputError
from toolkit.studies import eec as eec_study

_DIRECTION_COLOURS = ("#9e9e9e", "#d95f02", "#1b9e77")  # not significant, a↑–b↓, a↓–b↑


def eec_deltas(pairs: pd.DataFrame, tests: pd.DataFrame, *, attribute: str, subset: str = "all",
               order: Sequence[str] | None = None, ax: plt.Axes | None = None) -> plt.Axes:
    """Box plots of Δ per system, coloured by the paper's significance group (Figures 1 and 2).

    ``pairs`` from :func:`toolkit.studies.eec.pairs`, ``tests`` from :func:`toolkit.studies.eec.ttests`; ``order``
    lists the systems left to right (default: by mean Δ, as the paper sorts by rank).
    """
    data = pairs[(pairs["attribute"] == attribute) & (pairs["subset"] == subset)]
    groups = tests[(tests["attribute"] == attribute) & (tests["subset"] == subset)][["model", "direction"]]
    data = data.merge(groups, on="model", how="left")
    if data.empty:
        raise InputError(f"no pairs for attribute={attribute!r}, subset={subset!r}.",
                         fix="pass the pairs and tests of that attribute and subset.")
    models = list(dict.fromkeys(data["model"]))
    if order is None:
        order = data.groupby("model")["delta"].mean().sort_values().index.tolist()
    else:
        unknown = [m for m in order if m not in models]
        if unknown or set(models) - set(order):
            raise InputError(f"order must list each scored model once; got {list(order)} for {models}.",
                             fix=f"use a permutation of {models}.")
    ax = ax or plt.subplots(figsize=(max(4.0, 0.9 * len(order) + 2), 4))[1]
    palette = dict(zip(eec_study.directions(attribute), _DIRECTION_COLOURS))
    sns.boxplot(data=data, x="model", y="delta", hue="direction", order=list(order), palette=palette,
                hue_order=[d for d in palette if d in set(data["direction"])], dodge=False, fliersize=2, ax=ax)
    _, _, a, b = eec_study.ATTRIBUTES[attribute]
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.set(xlabel="system", ylabel=f"Δ = score({a}) − score({b})", title=f"EEC {attribute} ({subset})")
    ax.tick_params(axis="x", rotation=30)
    ax.legend(title="", fontsize="small", loc="best")
    return ax


def save(ax: plt.Axes, path: str | Path) -> Path:
    """Save the figure holding ``ax`` (folders created) and return the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    ax.figure.tight_layout()
    ax.figure.savefig(path, dpi=150)
    return path
