"""The multilingual study's figure: per language, each system's gap with its simultaneous interval, one panel per
attribute (data in, matplotlib Axes out, in the active preset of :mod:`toolkit.plots.style`)."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from toolkit.errors import InputError
from toolkit.formatting import short_labels
from toolkit.plots.presets import preset
from toolkit.plots.style import _figure_legend, _grid, _styled, model_palette

LANGUAGE_NAMES = {"es": "Spanish", "ar": "Arabic", "de": "German", "ja": "Japanese", "zh": "Chinese",
                  "en_es": "English (Latino names)", "en_ar": "English (Arab names)"}
SOURCE_NAMES = {"camara2022": "Câmara", "goldfarb_tarrant2023": "Goldfarb-Tarrant"}
FILLED = "filled: a difference (verdict)"
OPEN = "open: no difference shown"


@_styled
def cross_language(stats: pd.DataFrame, *, attributes: Sequence[str] = ("gender", "race"), subset: str = "all",
                   task: str | None = None, models: Sequence[str] | None = None, alpha: float = 0.05) -> list[Axes]:
    """One panel per attribute: a row per language × corpus, each system's ``estimate`` as a point with its
    ``ci_low``–``ci_high`` interval (the family's simultaneous interval), a filled point where the verdict is a
    difference; one ``task`` (default valence when present, else the first), systems of one kind in one colour
    across languages (``ait:ridge-chars/valence@es`` and ``…@ar``). ``stats`` from
    :func:`toolkit.studies.multilingual.analysis.statistics`; rows without an estimate are left out (their
    ``reason`` says why). ``alpha``: the statistics' level, named on the axis (a 1 − ``alpha`` simultaneous
    interval); filled and open points are in the legend."""
    data = stats[(stats["subset"] == subset) & stats["attribute"].isin(attributes) & stats["estimate"].notna()]
    if task is None and len(data):
        task = "valence" if "valence" in set(data["task"]) else str(data["task"].iloc[0])
    data = data[data["task"] == task] if task is not None else data
    if models is not None:
        data = data[data["model"].isin(models)]
    if data.empty:
        raise InputError(f"no estimates for attributes {list(attributes)} in subset {subset!r}.",
                         fix="pass statistics() of a scored table holding them.")
    present = [a for a in attributes if a in set(data["attribute"])]
    order = list(dict.fromkeys(zip(data["source"], data["language"])))
    gap = " " if preset().double else "\n"  # a column's width: the source under the language
    names = [f"{LANGUAGE_NAMES.get(lang, lang)}{gap}({SOURCE_NAMES.get(src, src)})" for src, lang in order]
    systems = list(dict.fromkeys(data["model"]))
    kinds = {m: m.partition("@")[0] for m in systems}  # one colour per system kind across languages
    palette = {m: c for kind, c in model_palette(dict.fromkeys(kinds.values())).items() for m in systems
               if kinds[m] == kind}
    kind_labels = short_labels(dict.fromkeys(kinds.values()))
    labels = {m: kind_labels[kinds[m]] for m in systems}
    _, axes = _grid(len(present), panel_width=3.2)
    step = 0.8 / max(len(systems), 1)
    for ax, attribute in zip(axes, present):
        part = data[data["attribute"] == attribute]
        for j, model in enumerate(systems):
            rows = part[part["model"] == model]
            for r in rows.itertuples():
                y = order.index((r.source, r.language)) - 0.4 + step * (j + 0.5)
                filled = r.verdict in ("a higher", "b higher")
                ax.errorbar([r.estimate], [y], xerr=[[r.estimate - r.ci_low], [r.ci_high - r.estimate]], fmt="o",
                            color=palette[model], markerfacecolor=palette[model] if filled else "white",
                            markersize=3.5, elinewidth=0.8, capsize=1.5)
        ax.axvline(0.0, color="black", linewidth=0.6)
        if not preset().double:  # a column's narrow axis: fewer ticks, so their labels never touch
            ax.xaxis.set_major_locator(MaxNLocator(nbins=4))
        ax.set_yticks(np.arange(len(order)), names)
        ax.invert_yaxis()
        a, b = part["group_a"].iloc[0], part["group_b"].iloc[0]
        ax.set_xlabel(f"Δ = {a} − {b} (score), {100 * (1 - alpha):g}\u00a0% simultaneous interval")
        ax.set_title(f"{attribute} ({task})" if task else attribute)
    handles = [Line2D([], [], color=palette[m], marker="o", markersize=3.5, linewidth=0.8)
               for m in dict((labels[m], m) for m in systems).values()]
    texts = list(dict.fromkeys(labels[m] for m in systems))
    for face, words in (("0.35", FILLED), ("white", OPEN)):
        handles.append(Line2D([], [], color="0.35", marker="o", markerfacecolor=face, markersize=3.5,
                              linestyle="none"))
        texts.append(words)
    axes[-1].legend(handles, texts, title=f"system ({task})")
    _figure_legend(axes[0].figure, axes)  # under the panels, at any width
    return axes
