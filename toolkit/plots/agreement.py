"""Agreement figures: Kendall's τ between the studies' rankings, each model's rank by study."""
from __future__ import annotations

import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes

from toolkit.plots.presets import preset
from toolkit.plots.style import (
    _styled,
    model_colour,
    new_axes,
    short_labels,
)


@_styled
def agreement_tau(tau: pd.DataFrame, *, ax: Axes | None = None) -> Axes:
    """Kendall's τ between the studies' rankings (:func:`toolkit.agreement.agreement`'s ``tau``): a study × study
    matrix, each cell τ with its bootstrap interval; the diagonal is 1; a cell whose τ is undefined (a study that
    ties every model) is grey and says ``undefined``."""
    import numpy as np

    p = preset()
    studies = list(dict.fromkeys([*tau["study_a"], *tau["study_b"]]))
    k = len(studies)
    if ax is None:
        ax = new_axes(figsize=(min(p.width, 1.0 * k + 1.8), min(p.max_height, 0.75 * k + 1.1)))
    cell = (ax.figure.get_figwidth() - 1.6) / max(k, 1)
    sep = "\n" if cell < 0.8 else " "  # the interval's two ends on two lines where a cell is narrow
    matrix = pd.DataFrame(np.eye(k), index=studies, columns=studies)
    labels = pd.DataFrame("1", index=studies, columns=studies)
    for row in tau.itertuples(index=False):
        for a, b in ((row.study_a, row.study_b), (row.study_b, row.study_a)):
            matrix.loc[a, b] = row.tau
            ci = (f"[{row.ci_low:.2f},{sep}{row.ci_high:.2f}]" if np.isfinite(row.ci_low)
                  else f"p={row.p_value:.2f}" if np.isfinite(getattr(row, "p_value", np.nan)) else "")
            labels.loc[a, b] = f"{row.tau:.2f}\n{ci}" if np.isfinite(row.tau) else "undefined"
    sns.heatmap(matrix.astype(float), annot=labels, fmt="", vmin=-1, vmax=1, cmap="vlag", cbar_kws={"label": "τ-b"},
                annot_kws={"fontsize": p.small_size}, ax=ax)
    ax.set_facecolor("0.9")
    for i, j in zip(*matrix.isna().to_numpy().nonzero()):  # seaborn leaves masked (NaN) cells unlabelled
        ax.text(j + 0.5, i + 0.5, "undefined" if sep == " " else "un-\ndefined", ha="center", va="center",
                fontsize=p.small_size, color="0.3")
    n = int(tau["n_models"].iloc[0]) if len(tau) else 0
    ax.set(title=f"Agreement of the studies' rankings ({n} models)", xlabel="", ylabel="")
    return ax


@_styled
def agreement_ranks(headlines: pd.DataFrame, *, ax: Axes | None = None) -> Axes:
    """Each model's rank (1 = most biased) under each study's headline measure, one line per model in its
    :func:`model_colour`."""
    p = preset()
    studies = list(dict.fromkeys(headlines["study"]))
    ax = ax if ax is not None else new_axes(figsize=(min(p.width, 1.1 * len(studies) + 2.6), p.height + 0.3))
    labels = short_labels(sorted(set(headlines["model"])))
    for model, block in headlines.groupby("model", sort=True):
        block = block.set_index("study").reindex(studies)
        ax.plot(range(len(studies)), block["rank"], marker="o", color=model_colour(model), label=labels[model])
    ax.set_xticks(range(len(studies)), studies)
    ax.set_yticks(range(1, int(headlines["rank"].max()) + 1))
    ax.invert_yaxis()
    ax.set(title="Rank by study (1 = most biased)", ylabel="rank")
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5))
    return ax


