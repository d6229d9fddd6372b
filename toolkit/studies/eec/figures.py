"""EEC figures (Kiritchenko & Mohammad 2018): Δ box plots per system (Figures 1-2) and the mean Δ with its
two-way interval, one panel per task."""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from matplotlib.path import Path

from toolkit import stats, verdicts
from toolkit.errors import InputError
from toolkit.errors import unknown as unknown_name
from toolkit.plots.presets import preset
from toolkit.plots.style import (
    _DIRECTION_COLOURS,
    MARGIN_BAND,
    NOISE,
    SCORE_RANGE,
    ZERO_MARK,
    _caption_only,
    _figure_legend,
    _grid,
    _legend_columns,
    _legend_outside,
    _min_span,
    _own_axes,
    _styled,
    _tick_labels,
    _zero_models,
    new_axes,
    short_labels,
)
from toolkit.studies.eec import analysis as eec_study

MEAN_MARK = {"marker": "x", "markersize": 4.0, "markeredgewidth": 0.9, "color": "black", "linestyle": "none",
             "zorder": 7}
"""How a box's mean Δ is drawn (the statistic the paper tests and the default order sorts by)."""
FLAT_BOX = Path([(-1.0, -0.3), (1.0, -0.3), (1.0, 0.3), (-1.0, 0.3), (-1.0, -0.3)], closed=True)
"""The collapsed box's mark: a bar as wide as it is flat (a marker path is scaled by its longer side)."""
COLLAPSED_MARK = {"marker": FLAT_BOX, "markersize": 11.0, "markeredgecolor": "black", "markeredgewidth": 0.6,
                  "linestyle": "none", "zorder": 6}
"""How a significant system whose box is too thin to show its colour is drawn: a flat bar in its colour at its
median, wider than the mean's × drawn over it, so its colour shows either side (round 21: a 4.5-pt square hid under
the ×; round 28: a square read as a spread the box does not have)."""
COLLAPSED_KEY = "box too thin to show its colour (IQR ≈ 0): a flat bar in its colour"
THIN_BOX_PT = 2.0
"""A significant box whose interquartile range spans less than this many points of the axis shows no colour (a line;
round-11 readers could not read five of ten systems' colours): it gets :data:`COLLAPSED_MARK`."""
COLOUR_BY = ("paper", "two-way")
"""What colours the boxes: ``paper``, the paper's paired t-test over sentence pairs with its Bonferroni family (the
default, as Figures 1-2), or ``two-way``, this toolkit's names × templates test (``significant_two_way``: its
corrected p below alpha) — the verdict the intervals figure shows."""
DISAGREES = "\u2020"
"""The mark after a system's name in a box plot coloured by the paper's test where the names × templates test gives
the other verdict (significant against not), so the figure itself says which colours that test does not bear out."""


def _disagreements(tests: pd.DataFrame, *, ns_group: str) -> set[str] | None:
    """The systems whose paper verdict (``direction`` not ``ns_group``) and names × templates verdict
    (``significant_two_way``) differ; None when the table has no two-way verdict to compare with."""
    if "significant_two_way" not in tests.columns or tests["significant_two_way"].isna().all():
        return None
    rows = tests.drop_duplicates("model")
    return set(rows.loc[(rows["direction"] != ns_group) != _significant_two_way(rows), "model"])


def _significant_two_way(tests: pd.DataFrame) -> pd.Series:
    """The names × templates verdict per row as booleans (a CSV reads ``True``/``true``/``1``)."""
    return tests["significant_two_way"].astype(str).str.lower().isin(("true", "1"))


def _box_groups(tests: pd.DataFrame, *, attribute: str, colour_by: str) -> pd.DataFrame:
    """``model`` and ``direction`` per system: the paper's groups (``colour_by="paper"``) or the same three groups
    read from the two-way test (not significant; significant with mean Δ above 0; below 0)."""
    if colour_by not in COLOUR_BY:
        raise unknown_name("colour_by", colour_by, COLOUR_BY)
    if colour_by == "paper":
        return tests[["model", "direction"]].drop_duplicates("model")
    missing = [c for c in ("significant_two_way", "estimate") if c not in tests.columns]
    if missing:
        raise InputError(f"colour_by='two-way' needs the tests' {' and '.join(missing)} column.",
                         fix="pass toolkit.studies.eec.analysis.ttests(...) of this toolkit (or colour_by='paper').")
    groups = eec_study.directions(attribute)
    significant = _significant_two_way(tests)
    direction = [groups[0] if not sig else groups[1] if est > 0 else groups[2]
                 for sig, est in zip(significant, tests["estimate"].astype(float))]
    return tests.assign(direction=direction)[["model", "direction"]].drop_duplicates("model")


def _groups_words(attribute: str) -> str:
    """The attribute's short group names spelled out: "AA, EA: African-American, European names"."""
    full_a, full_b, a, b = eec_study.ATTRIBUTES[attribute]
    return f"{a}, {b}: {full_a}, {full_b}" + (" names" if attribute == "race" else "")


def subset_words(subset: str) -> str:
    """An EEC subset as a title says it: ``all`` → "all sentences", ``neutral`` → "no emotion word",
    ``emotion:anger`` → "anger words" (round 20: "(all)" was read as undefined)."""
    named = {"all": "all sentences", "neutral": "no emotion word"}
    return named.get(subset, f"{subset.partition(':')[2]} words" if subset.startswith("emotion:") else subset)


@_styled
def eec_deltas(pairs: pd.DataFrame, tests: pd.DataFrame, *, attribute: str, subset: str = "all",
               order: Sequence[str] | None = None, colour_by: str = "paper", ax: Axes | None = None) -> Axes:
    """Box plots of Δ per system, coloured by the paper's significance group (Figures 1 and 2; ``colour_by``,
    :data:`COLOUR_BY`: ``"two-way"`` colours by the names × templates test instead); a system whose Δ is
    exactly 0 for every pair is a diamond on the zero line marked ``all Δ = 0`` (its box would hide in the line),
    and a group whose systems are all diamonds has no box key in the legend.

    ``pairs`` from :func:`toolkit.studies.eec.analysis.pairs`, ``tests`` from :func:`toolkit.studies.eec.analysis.ttests`; ``order``
    lists the systems left to right (default: by mean Δ, said in the axis label). Systems by :func:`short_label`.
    """
    data = pairs[(pairs["attribute"] == attribute) & (pairs["subset"] == subset)]
    groups = _box_groups(tests[(tests["attribute"] == attribute) & (tests["subset"] == subset)], attribute=attribute,
                         colour_by=colour_by)
    data = data.merge(groups, on="model", how="left")
    if data.empty:
        raise InputError(f"no pairs for attribute={attribute!r}, subset={subset!r}.",
                         fix="pass the pairs and tests of that attribute and subset.")
    models = list(dict.fromkeys(data["model"]))
    xlabel = "system"
    if order is None:
        order = data.groupby("model")["delta"].mean().sort_values(kind="stable").index.tolist()
        xlabel = "system (by mean Δ)"
    else:
        unknown = [m for m in order if m not in models]
        if unknown or set(models) - set(order):
            raise InputError(f"order must list each scored model once; got {list(order)} for {models}.",
                             fix=f"use a permutation of {models}.")
    labels = short_labels(order)
    data = data.assign(system=data["model"].map(labels))
    ax = ax if ax is not None else new_axes()
    palette = dict(zip(eec_study.directions(attribute), _DIRECTION_COLOURS))
    present = [d for d in palette if d in set(data["direction"])]
    present_ns = eec_study.directions(attribute)[0]
    sns.boxplot(saturation=1, data=data, x="system", y="delta", hue="direction", order=[labels[m] for m in order],
                palette=palette, hue_order=present, dodge=False, fliersize=1.5, linewidth=0.6, width=0.6, ax=ax)
    ax.axhline(0.0, color="black", linewidth=0.6, zorder=1)
    ax.margins(y=0.06)  # the outermost pairs off the frame
    direction = groups.drop_duplicates("model").set_index("model")["direction"]
    zero = _zero_models(data, "delta")
    collapsed = False
    low, high = ax.get_ylim()
    thin = max(NOISE, (high - low) * THIN_BOX_PT / (ax.bbox.height * 72 / ax.figure.dpi))  # Δ of THIN_BOX_PT
    for i, model in enumerate(order):
        colour = palette.get(direction.get(model), "#bbbbbb")
        if model in zero:
            ax.plot([i], [0.0], color=colour, **ZERO_MARK)
            continue
        deltas = data.loc[data["model"] == model, "delta"]
        q1, median, q3 = deltas.quantile([0.25, 0.5, 0.75])
        if q3 - q1 <= thin and direction.get(model) != present_ns:  # a significant box drawn as a line
            ax.plot([i], [median], color=colour, **COLLAPSED_MARK)
            collapsed = True
        ax.plot([i], [deltas.mean()], **MEAN_MARK)  # what the test and the order read; the box shows the median
    _, _, a, b = eec_study.ATTRIBUTES[attribute]
    differ = _disagreements(tests[(tests["attribute"] == attribute) & (tests["subset"] == subset)],
                            ns_group=present_ns) if colour_by == "paper" else None
    _tick_labels(ax, [labels[m] + (f" {DISAGREES}" if differ and m in differ else "") for m in order])
    ax.set(xlabel=xlabel, ylabel=f"Δ ({a} − {b}), {SCORE_RANGE}", title=f"EEC {attribute} ({subset_words(subset)})")
    handles, texts = ax.get_legend_handles_labels()
    boxed = {direction.get(m) for m in order if m not in zero}  # a group drawn only as diamonds has no box to key
    unboxed = {t for t in texts if t in palette and t not in boxed}
    for artist in [*ax.patches, *ax.containers, *ax.collections, *ax.artists]:
        if artist.get_label() in unboxed:  # unlabelled, so no legend gathered from the Axes later brings it back
            artist.set_label(f"_{artist.get_label()}")
    kept = [(h, t) for h, t in zip(handles, texts) if t not in unboxed]
    handles, texts = [h for h, _ in kept], [t for _, t in kept]
    if len(zero) < len(order):
        handles.append(Line2D([], [], **MEAN_MARK))
        texts.append("mean Δ")
    if zero:
        handles.append(Line2D([], [], color="#bbbbbb", **ZERO_MARK))
        texts.append("all Δ = 0")
    if collapsed:
        handles.append(Line2D([], [], color="0.3", **COLLAPSED_MARK))
        texts.append(COLLAPSED_KEY)
    outliers = [line for line in ax.get_lines() if line.get_marker() == "o" and len(line.get_xydata())
                and str(line.get_linestyle()) in ("None", "none", "")]  # the boxes' fliers
    if outliers:
        first = outliers[0]
        handles.append(Line2D([], [], color="none", marker="o", markersize=first.get_markersize(),
                              markerfacecolor=first.get_markerfacecolor(), markeredgecolor=first.get_markeredgecolor(),
                              linestyle="none"))
        texts.append("pair beyond 1.5 × IQR")
    handles.append(Line2D([], [], linestyle="none"))  # the groups' short names, spelled out (round 20)
    texts.append(_groups_words(attribute))
    _caption_only(ax, _delta_words(attribute) + " Boxes: quartiles of Δ over the pairs, whiskers to 1.5 × IQR. " + (
        "The colours reproduce the EEC paper's Figures 1 and 2: its paired t-test takes every pair as independent, "
        "though the pairs share the 11 templates and the names. The names × templates test takes both as samples; "
        f"{DISAGREES} after a system's name marks where it gives the other verdict (significant against not), and "
        "there its verdict is the one to read." if colour_by == "paper" else
        "The colours: the names × templates test, which takes the names and the templates as samples."))
    shown = tests[(tests["attribute"] == attribute) & (tests["subset"] == subset)]
    _legend_outside(ax, handles, texts, title=_test_words(shown, colour_by=colour_by))
    return ax


def _delta_words(attribute: str) -> str:
    """The caption's definition of the EEC's Δ for ``attribute`` (:func:`toolkit.studies.eec.analysis.pairs`)."""
    full_a, full_b, a, b = eec_study.ATTRIBUTES[attribute]
    nouns = (" and, for each of the 10 noun-phrase pairs ('she'/'he', 'my daughter'/'my son', …), the sentence with "
             "the female phrase minus the one with the male phrase" if attribute == "gender" else "")
    return (f"Δ ({a} − {b}) per pair: in each EEC sentence (a template with one emotion word), the system's mean "
            f"score over the {full_a} names minus over the {full_b} names{nouns}; the rest of the sentence is "
            "identical.")


def _test_words(tests: pd.DataFrame, *, colour_by: str = "paper") -> str:
    """What colours the boxes: the paper's paired t-test and its Bonferroni family, or the names × templates test
    and its family (the legend's title)."""
    column = "n_tests" if colour_by == "paper" else "n_family"
    m = int(tests[column].max()) if column in tests.columns and tests[column].notna().any() else 0
    correction = str(tests["correction"].dropna().iloc[0]).capitalize() if colour_by != "paper" and \
        "correction" in tests.columns and tests["correction"].notna().any() else "Bonferroni"
    family = f"{correction} over {_tests_words(tests, m)}" if m > 1 else "uncorrected"
    test, other = (("the EEC paper's paired t-test", _disagree_words(tests)) if colour_by == "paper" else
                   ("the names × templates test", "the EEC paper's paired t-test may disagree (tests table)"))
    if not preset().double:  # a column's width: the test alone, on two lines (and the mark, when drawn)
        marked = colour_by == "paper" and other.startswith(DISAGREES)
        return f"colour: {test},\n{family}" + (f";\n{DISAGREES}: names × templates test disagrees" if marked else "")
    return f"colour: {test} ({family});\n{other}"


def _disagree_words(tests: pd.DataFrame) -> str:
    """The legend's line on the names × templates test beside the paper's colours: what :data:`DISAGREES` marks,
    that it agrees on every system, or (no two-way verdict in the table) that it may disagree."""
    found = []
    keys = [c for c in ("task", "attribute", "subset") if c in tests.columns]
    for _, block in tests.groupby(keys, sort=False):
        differ = _disagreements(block, ns_group=eec_study.directions(block["attribute"].iloc[0])[0])
        if differ is None:
            return "the names × templates test may disagree (tests table)"
        found.append(bool(differ))
    if not any(found):
        return "the names × templates test (names, templates as samples) agrees on every system"
    return f"{DISAGREES} after a system: the names × templates test (names, templates as samples) disagrees"


def _task_panels(data: pd.DataFrame, *, value: str, what: str, attribute: str, subset: str,
                 pearson: Mapping[str, float] | None) -> list[tuple[str, pd.DataFrame, list[str], str, Axes]]:
    """One new Figure with a panel per task of ``data`` (the paper's task order; :func:`_grid` lays them out); per
    panel the task, its rows, its systems ordered by ``pearson`` (best first), those without an r after them by
    name (by their mean ``value`` when none has one), and the axis label saying which order that is."""
    tasks = [t for t in eec_study.TASK_ORDER if t in set(data["task"])]
    if not tasks:
        raise InputError(f"no {what} for attribute={attribute!r}, subset={subset!r}.",
                         fix=f"pass the {what} of that attribute and subset.")
    pearson = dict(pearson or {})
    widest = max(data.loc[data["task"] == t, "model"].nunique() for t in tasks)
    _, cells = _grid(len(tasks), panel_width=0.35 * widest + 1.2)
    panels = []
    for task, ax in zip(tasks, cells):
        block = data[data["task"] == task]
        mean = block.groupby("model")[value].mean()
        ranked = sorted((m for m in mean.index if m in pearson), key=lambda m: (-pearson[m], m))
        rest = [m for m in mean.index if m not in pearson]
        # a mix: the systems without an r by name, so gender and race put them in one order (by mean Δ they
        # swapped places between the two figures, round-12 readers); none has an r: by mean Δ, a sorted dot plot
        order = ranked + (sorted(rest) if ranked else sorted(rest, key=lambda m: (mean[m], m)))
        label = ("system (by mean Δ)" if not ranked else "system (by Pearson r, best first)"
                 if len(ranked) == len(order) else "system (by Pearson r on the test set, then by name)")
        panels.append((task, block, order, label, ax))
    return panels


PEARSON_WORDS = ("Systems ordered by Pearson r: the correlation of each system's scores with the gold intensities "
                 "of the SemEval-2018 Task 1 test set of the panel's task, best first (as the EEC paper ordered its "
                 "systems by their official rank); a system without one (not trained on the task) follows by name.")
"""The caption's definition of the EEC figures' system order, said where an order uses it."""


def _titles(axes: list[Axes], title: str, orders: list[tuple[str, str]]) -> None:
    """One title per figure: a single panel says it all in its own title (the task after the attribute) and the
    systems' order as its x label; several panels share ``title`` above them and each names its task and order —
    the order said once in the shared title when every panel has the same one, the scores' range in the shared
    title (each panel's y label without it), and the systems named only under the bottom panel when the panels are stacked in one column with the same systems in the same order
    (:func:`_stacked_alike`)."""
    if any("Pearson r" in label for _, label in orders):  # round 28: "Pearson r on the test set" undefined
        _caption_only(axes[0], PEARSON_WORDS)
    if len(axes) == 1:
        task, label = orders[0]
        head, _, tail = title.partition(": ")
        axes[0].set(title=f"{head}, {task}: {tail}", xlabel=label)
        return
    for ax in axes:  # the score's range said once, in the shared title: a stacked panel's y label stays short
        ax.set_ylabel(ax.get_ylabel().removesuffix(f", {SCORE_RANGE}"))
    head, _, tail = title.partition(": ")
    title = f"{head}: {tail} ({SCORE_RANGE})" if tail else f"{title} ({SCORE_RANGE})"
    labels = {label for _, label in orders}
    if len(labels) == 1:
        title = f"{title}; {labels.pop().replace('system (by ', 'systems by ').removesuffix(')')}"
        for ax, (task, _) in zip(axes, orders):
            ax.set_title(task)
    if _stacked_alike(axes):
        for ax in axes[:-1]:
            ax.tick_params(axis="x", labelbottom=False)
    axes[0].figure.suptitle(title, fontsize=preset().title_size)


def _stacked_alike(axes: list[Axes]) -> bool:
    """Whether ``axes`` are stacked in one column and name the same systems, in the same order, on their x axes."""
    columns = {ax.get_subplotspec().colspan.start for ax in axes if ax.get_subplotspec() is not None}
    ticks = {tuple(t.get_text() for t in ax.get_xticklabels()) for ax in axes}
    return len(columns) == 1 and len(ticks) == 1


def _panel_title(task: str, order_label: str) -> str:
    """A task panel's title: the task and the systems' order (``anger: by mean Δ``)."""
    return f"{task}: " + order_label.replace("system (by ", "by ").removesuffix(")")


@_styled
def eec_task_deltas(pairs: pd.DataFrame, tests: pd.DataFrame, *, attribute: str, subset: str = "all",
                    pearson: Mapping[str, float] | None = None, colour_by: str = "paper") -> list[Axes]:
    """Figures 1–2 per task: one panel per task (anger, fear, joy, sadness, valence, as the paper) of Δ box plots,
    systems ordered left to right by ``pearson`` (spec → Pearson r on the task's test set), best first — as the
    paper ordered them by official rank; systems without one follow by name (by mean Δ when none has one; the
    axis label says which). One
    new Figure at the preset's width; returns its Axes. ``colour_by``: as :func:`eec_deltas`."""
    data = pairs[(pairs["attribute"] == attribute) & (pairs["subset"] == subset)]
    axes, orders = [], []
    for task, block, order, label, ax in _task_panels(data, value="delta", what="pairs", attribute=attribute,
                                                      subset=subset, pearson=pearson):
        eec_deltas(block, tests[tests["task"] == task], attribute=attribute, subset=subset, order=order,
                   colour_by=colour_by, ax=ax)
        ax.set(title=_panel_title(task, label), xlabel="")
        axes.append(ax)
        orders.append((task, label))
    _titles(axes, f"EEC {attribute} ({subset_words(subset)}): Δ per system", orders)
    shown = tests[(tests["attribute"] == attribute) & (tests["subset"] == subset)]
    _figure_legend(axes[0].figure, axes, title=_test_words(shown, colour_by=colour_by))
    return axes


T_COLOUR = "#333333"  # the paper's t interval: dark (T_MARKS' marks); the two-way verdicts are coloured
T_MARKS = {"a": "^", "b": "v", "none": "o"}
T_KEY_ORDER = ("significant", "not significant")  # the t-test's keys in a grid's gathered key: the finds first
""":func:`eec_intervals`' mark of the paper's t-test: a triangle pointing to the group it found higher (up: the first
group's Δ above 0), a circle where not significant (round 22 could not tell the two direction colours apart)."""
T_FACES = {"a": _DIRECTION_COLOURS[1], "b": _DIRECTION_COLOURS[2], "none": "white"}
_VERDICT_COLOURS = {"a higher": _DIRECTION_COLOURS[1], "b higher": _DIRECTION_COLOURS[2],
                    "different but within ±m": "#cc78bc",
                    "equivalent": "#029e73", "inconclusive": "#949494", stats.IDENTICAL: "#000000"}


HELD_BACK = "held back"
"""The legend key of an inconclusive verdict the sparse-sensitivity rule held back from equivalence (drawn open)."""


def _verdict_kind(verdict: str) -> str:
    """The colour key of a verdict string (:data:`toolkit.stats.VERDICTS`; the margin dropped)."""
    text = str(verdict)
    if text.startswith("equivalent"):
        return "equivalent"
    return "different but within ±m" if text.startswith("different but within") else text


def _level(tests: pd.DataFrame) -> str:
    """How the intervals of an EEC tests table are made, for a title: simultaneous over m tests, or 95 %."""
    if "n_family" in tests.columns and tests["n_family"].notna().any():
        m = int(tests["n_family"].max())
        return "95\u00a0% CIs" + (f", simultaneous over {_tests_words(tests, m)}" if m > 1 else "")
    return "95\u00a0% CIs"


def _tests_words(tests: pd.DataFrame, m: int) -> str:
    """"2 attributes × 4 systems = 8 tests": m and what it counts, read from the table's ``family`` (``eec:all: 2
    attributes × 4 systems = 8 tests``) when it counts m; "m tests" otherwise (a family given by size)."""
    if "family" in tests.columns and tests["family"].notna().any():
        found = re.search(r":\s*([^:=]+?)\s*=\s*(\d+) tests\s*$", str(tests["family"].dropna().iloc[0]))
        if found and int(found.group(2)) == m:
            return f"{found.group(1)} = {m} tests"
    return f"{m} tests"


@_styled
def eec_intervals(tests: pd.DataFrame, *, attribute: str, subset: str = "all", order: Sequence[str] | None = None,
                  ax: Axes | None = None, key_columns: bool = True) -> Axes:
    """Per system, side by side: the paper's mean Δ with its t interval over sentences (a dark mark, :data:`T_MARKS`:
    a triangle in the box plots' direction colour pointing to the group found higher where the paper's test is
    significant, ``significant``, else an open circle; one system's pair named in place, :func:`_name_pair`) and the
    two-way estimate with its interval (names and templates as samples, simultaneous over the verdict's family:
    ``estimate``, ``ci_low``/``ci_high``; filled, coloured by ``verdict``); a zero line and the ±``margin`` band; a
    system whose Δ is exactly 0 is a diamond on the zero line (``all Δ = 0`` in the legend, above the Axes).

    ``tests`` from :func:`toolkit.studies.eec.analysis.ttests`; ``order`` lists the systems left to right (default: by mean
    Δ, as :func:`eec_deltas`, so the two figures line up).
    """
    data = tests[(tests["attribute"] == attribute) & (tests["subset"] == subset)].drop_duplicates("model")
    if data.empty or "ci_low" not in data.columns:
        raise InputError(f"no intervals for attribute={attribute!r}, subset={subset!r}.",
                         fix="pass toolkit.studies.eec.analysis.ttests(...) of that attribute and subset.")
    models = list(data["model"])
    xlabel = "system"
    if order is None:
        order = data.set_index("model")["mean_diff"].sort_values(kind="stable").index.tolist()
        xlabel = "system (by mean Δ)"
    elif [m for m in order if m not in models] or set(models) - set(order):
        raise InputError(f"order must list each tested model once; got {list(order)} for {models}.",
                         fix=f"use a permutation of {models}.")
    data = data.set_index("model").loc[list(order)]
    ax = ax if ax is not None else new_axes()
    margin = float(data["margin"].iloc[0])
    band = ax.axhspan(-margin, margin, **MARGIN_BAND)
    ax.axhline(0.0, color="black", linewidth=0.6, zorder=1)
    kinds, zero, t_kinds, spans = [], False, set(), []
    for i, (_, row) in enumerate(data.iterrows()):
        if all(abs(row[c]) <= NOISE for c in ("estimate", "ci_low", "ci_high", "t_ci_low", "t_ci_high")):
            ax.plot([i], [0.0], color="#bbbbbb", **ZERO_MARK)
            zero = True
            continue
        ends = np.array([row["t_ci_high"], row["ci_high"], row["mean_diff"], row["t_ci_low"], row["ci_low"],
                         row["estimate"]], dtype=float)
        if np.isfinite(ends).all():  # where the pair can be named: both marks drawn whole
            spans.append((i, float(ends.max()), float(ends.min())))
        ax.vlines(i - 0.14, row["t_ci_low"], row["t_ci_high"], color=T_COLOUR, linewidth=2.2, zorder=3)
        flag = row.get("significant", False)
        paper_sig = bool(pd.notna(flag) and flag) and row["mean_diff"] != 0  # NaN: not tested, drawn open
        t_kind = ("a" if row["mean_diff"] > 0 else "b") if paper_sig else "none"
        t_kinds.add(t_kind)
        ax.plot([i - 0.14], [row["mean_diff"]], T_MARKS[t_kind], color=T_COLOUR, markerfacecolor=T_FACES[t_kind],
                markersize=4.0 if paper_sig else 3.5, markeredgewidth=0.8, zorder=4)
        kind = _verdict_kind(row["verdict"])
        held = kind == "inconclusive" and eec_study.sparse_sensitivity(row)
        kinds.append(HELD_BACK if held else kind)
        colour = _VERDICT_COLOURS.get(kind, "#949494")
        ax.errorbar(i + 0.14, row["estimate"], yerr=[[row["estimate"] - row["ci_low"]],
                                                     [row["ci_high"] - row["estimate"]]],
                    fmt="s" if held else "o", color=colour, capsize=2, linewidth=1.5, markersize=3.5, zorder=4,
                    markerfacecolor="white" if held else colour)
    # each mark of the paper's test keyed as drawn (round 20: an open key beside filled red and purple circles, and
    # purple named nowhere); "left"/"right": which of a system's two marks each key is
    _, _, a, b = eec_study.ATTRIBUTES[attribute]
    left, right, shared = [], [], []  # (handle, text): the paper's test, the two-way test, both
    if t_kinds:  # what the left mark is, said once (a key of its own: every panel of a task grid says it alike)
        left.append((Line2D([], [], color=T_COLOUR, linewidth=2.2),  # its CI: the thick dark line
                     "left: the EEC paper's paired t-test\n(mean Δ; its CI mostly inside the mark)"))
    for kind, words in (("a", f"significant, {a} higher"), ("b", f"significant, {b} higher"),
                        ("none", "not significant")):
        if kind in t_kinds:
            left.append((Line2D([], [], color=T_COLOUR, linewidth=2.2, marker=T_MARKS[kind],
                                markerfacecolor=T_FACES[kind], markersize=4.0 if kind != "none" else 3.5),
                         f"t-test: {words}"))
    if kinds:
        right.append((Line2D([], [], linestyle="none"), "right: the two-way test\n(names × templates as samples)"))
    for kind, colour in _VERDICT_COLOURS.items():
        if kind in kinds:
            right.append((Line2D([], [], color=colour, marker="o", linewidth=1.5, markersize=3.5),
                          "two-way: " + verdicts.legend_label(kind, groups=eec_study.VERDICT_GROUPS[attribute],
                                                              margin=f"±{margin:g}")))
    if HELD_BACK in kinds:
        right.append((Line2D([], [], color=_VERDICT_COLOURS["inconclusive"], marker="s", linewidth=1.5,
                             markersize=3.5, markerfacecolor="white"),
                      "two-way: inconclusive; no equivalence claimed,\nas some names never move the score"))
    shared.append((band, f"±{margin:g} (equivalence margin)"))
    if zero:
        shared.append((Line2D([], [], color="#bbbbbb", **ZERO_MARK), "all Δ = 0"))
    shared.append((Line2D([], [], linestyle="none"), _groups_words(attribute)))  # the short names, spelled out
    handles, texts, ncol = _key_columns(left, right, shared, width=ax.figure.get_figwidth() * 0.95,
                                        columns=key_columns and _own_axes(ax))  # a grid's key: _task_key
    _tick_labels(ax, list(short_labels(order).values()))
    ax.set_xlim(-0.6, len(order) - 0.4)
    ax.set(xlabel=xlabel, ylabel=f"Δ ({a} − {b}), {SCORE_RANGE}",
           title=f"EEC {attribute} ({subset_words(subset)}): Δ with {_level(data)}")
    _min_span(ax, span=2.5 * margin if margin > 0 else 0.01)
    if spans:
        _name_pair(ax, spans)
    _caption_only(ax, _delta_words(attribute) + " Per system, left: the EEC paper's mean Δ with its paired t-test's "
                  "interval over the pairs (which takes them as independent); right: the two-way estimate, whose "
                  "interval takes the names and the 11 templates as samples (two-way random effects), simultaneous "
                  "over the family in the title, its verdict from a difference "
                  f"test and an equivalence test (TOST) at ±{margin:g}, the band.")
    _legend_outside(ax, handles, texts, ncol=ncol)
    return ax


def _key_columns(left: list, right: list, shared: list, *, width: float, columns: bool = True
                 ) -> tuple[list, list, int | None]:
    """The interval figure's key: the paper's test's entries (``left``) in one column and the two-way test's
    (``right``) in the next, ``shared`` ones under them, as (handles, texts, columns) for a legend filled column
    by column; in that order and columns left to the legend (``None``) where two are wider than ``width`` inches
    or not ``columns`` (a panel of a grid) (round 23: in one column the key was taller than the plot)."""
    first, second = list(left), list(right)
    for pair in shared:  # each under the column with fewer lines so far, so the two end level
        lines = [sum(t.count("\n") + 1 for _, t in column) for column in (first, second)]
        (first if lines[0] <= lines[1] else second).append(pair)
    rows = max(len(first), len(second))
    blank = (Line2D([], [], linestyle="none"), "")
    pairs = first + [blank] * (rows - len(first)) + second + [blank] * (rows - len(second))
    if columns and left and right and _legend_columns([t for _, t in pairs], width) >= 2:
        return [h for h, _ in pairs], [t for _, t in pairs], 2
    pairs = left + right + shared
    return [h for h, _ in pairs], [t for _, t in pairs], None


def _name_pair(ax: Axes, spans: list[tuple[int, float, float]]) -> None:
    """Name one system's two marks in :func:`eec_intervals` where they stand ("t-test", "two-way", upright text
    inside the axes; round 22: a nine-line legend to decode which mark was which): the leftmost system of ``spans``
    (x, its marks' highest and lowest value) with room for the words above or below its marks; none where no
    system has room, where the two marks stand too close for two upright words, or in a task grid's panel (too
    short)."""
    if len(ax.figure.axes) > 1:
        return  # a panel of a task grid: too short for the words at a column's width; the legend says them
    left, right = ax.get_xlim()
    apart = 0.28 / (right - left) * ax.get_position().width * ax.figure.get_figwidth() * 72  # the marks, in points
    if apart < 1.3 * preset().small_size:
        return  # the two upright words would touch: the legend says them
    bottom, top = ax.get_ylim()
    inches = ax.get_position().height * ax.figure.get_figheight()  # before the layout, which takes room for the
    # legend and labels (1.6: the axes drawn are about that much shorter)
    need = 1.6 * (len("two-way") * 0.62 * preset().small_size + 6) / 72 / max(inches, 0.1) * (top - bottom)
    room = next(((x, top - high, low - bottom) for x, high, low in spans
                 if max(top - high, low - bottom) >= need), None)
    if room is None:
        return  # no system leaves room above or below its marks: the words would cover data
    x, above, _ = room
    at_top = above >= need
    for offset, words in ((-0.14, "t-test"), (0.14, "two-way")):
        ax.annotate(words, (x + offset, 1.0 if at_top else 0.0), xycoords=("data", "axes fraction"),
                    xytext=(0, -2 if at_top else 2), textcoords="offset points", rotation=90, ha="center",
                    va="top" if at_top else "bottom", fontsize=preset().small_size, color="0.3")


@_styled
def eec_task_intervals(tests: pd.DataFrame, *, attribute: str, subset: str = "all",
                       pearson: Mapping[str, float] | None = None) -> list[Axes]:
    """:func:`eec_intervals` per task (one panel each, the paper's task order), systems ordered as
    :func:`eec_task_deltas` orders them (``pearson`` best first, then by mean Δ). One new Figure; returns its Axes."""
    data = tests[(tests["attribute"] == attribute) & (tests["subset"] == subset)]
    axes, orders = [], []
    for task, block, order, label, ax in _task_panels(data, value="mean_diff", what="tests", attribute=attribute,
                                                      subset=subset, pearson=pearson):
        eec_intervals(block, attribute=attribute, subset=subset, order=order, ax=ax, key_columns=False)
        ax.set(title=_panel_title(task, label), xlabel="")
        axes.append(ax)
        orders.append((task, label))
    _titles(axes, f"EEC {attribute} ({subset_words(subset)}): Δ with {_level(data)}", orders)
    figure = axes[0].figure
    _figure_legend(figure, axes, arrange=lambda pairs: _task_key(pairs, width=figure.get_figwidth() * 0.95))
    return axes


def _task_key(pairs: list[tuple[object, str]], *, width: float) -> tuple[list, list, int | None]:
    """The gathered key of :func:`eec_task_intervals`' panels laid out as :func:`eec_intervals` lays out its own
    (:func:`_key_columns`): each entry to its test by the words it starts with, the paper's t-test's in their
    drawn order (its description first), the two-way test's likewise (a panel may key what an earlier one did not)."""
    left = sorted((p for p in pairs if p[1].startswith(("left:", "t-test:"))),
                  key=lambda p: (not p[1].startswith("left:"), T_KEY_ORDER.index(p[1].split(": ", 1)[-1].split(",")[0])
                                 if p[1].startswith("t-test:") else 0))
    right = sorted((p for p in pairs if p[1].startswith(("right:", "two-way:"))),
                   key=lambda p: not p[1].startswith("right:"))
    shared = [p for p in pairs if p not in left and p not in right]
    return _key_columns(left, right, shared, width=width)


