"""Names and templates as the instrument: the group gap before and after the name-frequency adjustment,
the estimate across template wordings, and the gender × race contrasts; data in, Axes out."""
from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from functools import partial

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from toolkit import verdicts
from toolkit.errors import InputError, unknown
from toolkit.formatting import short_labels
from toolkit.plots.presets import preset
from toolkit.plots.style import (
    SCORE_RANGE,
    ZERO_GREY,
    ZERO_MARK,
    _caption_only,
    _grid,
    _legend_outside,
    _note_below,
    _styled,
    _zero_models,
    model_markers,
    model_palette,
    new_axes,
    open_edge,
    short_label,
    text_colour,
)
from toolkit.resources import load_json

ANALYSIS_STYLE = {"raw": ("o", "as measured"), "adjusted": ("s", "adjusted for name frequency"),
                  "overlap": ("s", "adjusted, names in common support"), "matched": ("^", "frequency-matched names")}
HOLLOW = {"overlap"}
"""The analyses drawn open: the common-support adjustment is the frequency adjustment on fewer names (same square)."""
CONFOUNDS_ZERO = ZERO_GREY
"""The fill of a :func:`confounds` estimate that is exactly 0 (its analysis's marker kept, so each stays readable)."""
ZERO_EDGE = "0.35"
"""The edge of a filled exact 0 (:data:`CONFOUNDS_ZERO`): a darker grey, so the shape reads and the mark stays grey."""
WORDING_SET = re.compile(r"w(\d+)")
"""A reworded template set named by its number (``w3``): the number drawn beside its intervals is that number, and
its parity says the side (odd right, even left). Sets named otherwise are numbered in order and keyed in the legend
(round 20: digits drawn on the lines ran together; a review: numbering by order named w3 "2" where w2 was absent)."""
WORDING_POINT = 3.2
"""A reworded set's point (points; the published set's is 4.5)."""
REWORDINGS = ("the EEC's {n} templates reworded by this project, meaning kept; set k takes each template's k-th "
              "rewording (a determiner, a preposition, a synonym, a time adverbial, a cleft or a voice change)")
"""What the reworded sets of :func:`wording` are (``resources/eec_wordings.json``, whose source says the kinds of
change), said under the figure; ``{n}``: its number of templates."""
ROW_INCHES = 0.3
"""Height each system past the fourth adds to :func:`confounds` and :func:`wording` (rows of four or five markers
each stay apart)."""
GROUPS = {"race": ("African-American", "European", "AA", "EA"), "gender": ("female", "male", "F", "M")}
"""Per attribute, the two groups of a names-and-templates difference (a − b) and their short forms."""


def _left_names_only(cells: list[Axes]) -> None:
    """In a grid of task panels (:func:`_grid`) that all name the same rows, only the left column names them."""
    if len({tuple(t.get_text() for t in cell.get_yticklabels()) for cell in cells}) == 1:
        for cell in cells:
            if cell.get_subplotspec().colspan.start > 0:
                cell.tick_params(axis="y", labelleft=False)


def _column_bottoms(cells: list[Axes]) -> list[Axes]:
    """The last panel of each column of a grid of task panels: where the shared axis label goes."""
    return list({cell.get_subplotspec().colspan.start: cell for cell in cells}.values())


def _task_grid(table: pd.DataFrame, *, tasks: list[str], draw) -> tuple[list[Axes], list]:
    """One new Figure with a panel per task of ``table`` (:func:`_grid`), each drawn by ``draw(ax, rows)`` and
    titled by its task, at most four x ticks, the rows named in the left column only (:func:`_left_names_only`);
    returns the panels and what ``draw`` returned for each."""
    widest = max(table.loc[table["task"] == t, "model"].nunique() for t in tasks)
    _, cells = _grid(len(tasks), panel_width=2.6 + 0.02 * widest)
    drawn = []
    for task, cell in zip(tasks, cells):
        drawn.append(draw(cell, table[table["task"] == task]))
        cell.xaxis.set_major_locator(MaxNLocator(nbins=4))
        cell.set(title=task, xlabel="", ylabel="")
    _left_names_only(cells)
    return cells, drawn


def _zero_entry(label: str = "identical scores: no name moves the score") -> tuple[Line2D, str]:
    """The legend entry of :data:`ZERO_MARK` (a result exactly 0: nothing to draw as an interval)."""
    return Line2D([], [], color="0.6", **ZERO_MARK), label


def _ranges(ax: Axes, y: np.ndarray, est, low, high, *, colour: str, marker: str, label: str | None,
            filled=None, zero_colour: str | None = None, zero_marker: str | None = None) -> bool:
    """Point-ranges at ``y``; a result exactly 0 with no width is a diamond (:data:`ZERO_MARK`, in ``zero_colour``,
    default ``colour``), or ``zero_marker`` filled with ``zero_colour`` when given; ``filled`` (booleans) draws the
    others filled where True, open where False. Returns whether an exact 0 was drawn."""
    est, low, high = (np.asarray(v, dtype=float) for v in (est, low, high))
    ok = np.isfinite(est)
    zero = ok & (np.abs(est) <= 1e-12) & (np.abs(high - low) <= 1e-12)
    filled = np.ones(len(est), dtype=bool) if filled is None else np.asarray(filled, dtype=bool)
    for face, part in ((True, ok & ~zero & filled), (False, ok & ~zero & ~filled)):
        if part.any():
            ax.errorbar(est[part], y[part], xerr=[est[part] - low[part], high[part] - est[part]], fmt=marker,
                        color=colour, markerfacecolor=colour if face else "white", markersize=4, elinewidth=1,
                        capsize=2, markeredgewidth=1.0 if face else open_edge(marker))
    if label is not None:  # the legend entry: the model's colour and marker, whatever was drawn
        face = colour if filled.all() else "white"
        ax.errorbar([], [], xerr=[], fmt=marker, color=colour, markersize=4, elinewidth=1, capsize=2, label=label,
                    markerfacecolor=face, markeredgewidth=1.0 if filled.all() else open_edge(marker))
    if zero.any() and zero_marker is not None:  # filled estimates filled grey, open ones open with a grey edge
        for face, part in ((True, zero & filled), (False, zero & ~filled)):
            if part.any():
                ax.plot(est[part], y[part], linestyle="none", marker=zero_marker, markersize=4.5,
                        markerfacecolor=(zero_colour or colour) if face else "white",
                        markeredgecolor=ZERO_EDGE if face else (zero_colour or colour), markeredgewidth=0.9,
                        zorder=6)  # all grey: round 15 read a black edge as breaking "grey = exactly 0"
    elif zero.any():
        ax.plot(est[zero], y[zero], color=zero_colour or colour, **ZERO_MARK)
    return bool(zero.any())


FREQUENCY_WORDS = ("name frequency: US births per million (SSA baby names), on a log scale; adjusted: the gap with "
                   "the name's log10 frequency as a linear covariate; common support: only the "
                   "names whose frequency lies inside both groups' ranges; frequency-matched: names paired across the "
                   "groups by nearest frequency within a caliper, the unmatched left out")
"""What :func:`confounds`' analyses adjust for and keep, under the figure (round 21's readers found "name frequency",
"common support" and "frequency-matched" undefined)."""


PSA_GAP_WORDS = ("Gender gap: the female names' mean ScoreSens minus the male names' (ScoreSens: a name's mean "
                 "score change when it takes the place of a sentence's gendered pronoun), fitted by least squares "
                 "on the names' means with HC3 standard errors; the interval is a 95 % t interval with the names as "
                 "the sample, per system, not adjusted across systems.")
"""What :func:`confounds` of a PSA table estimates and how its interval is made
(:func:`toolkit.instrument.confounds.psa_name_confounds`), first in its caption (round 26: "gap" undefined)."""


EEC_GAP_WORDS = ("Gap: the {a} names' mean score minus the {b} names', from a linear mixed model on the template × "
                 "name cell means (REML; templates, names and template × group as random effects); the interval is a "
                 "95 % t interval, per system, not adjusted across systems.")
"""What :func:`confounds` of an EEC table estimates and how its interval is made
(:func:`toolkit.instrument.confounds.name_confounds`), for its caption."""


def confounds_labels(attribute: str, *, study: str) -> dict[str, str]:
    """The words of :func:`confounds`: its title, axis label, note and the as-measured analysis's name (one place,
    to change the vocabulary)."""
    a, b, _, _ = GROUPS.get(attribute, ("group a", "group b", "a", "b"))
    return {"title": f"{study} {attribute} gap and name frequency",
            "xlabel": f"{attribute} gap: {a} − {b} names, 95\u00a0% interval per system",
            "zero": "grey fill or edge: gap exactly 0 (no name in that analysis moves the score)",
            "raw": "as measured" if study == "PSA" else "template-weighted gap, unadjusted",
            "note": "colour: the system; shape: the analysis. Template-weighted: a mixed model over template × "
                    "name cell means, each template weighted alike; the EEC paper's mean Δ weights each sentence "
                    "alike, so templates with emotion words count more and the two estimates differ; " + FREQUENCY_WORDS,
            "definitions": (PSA_GAP_WORDS + " " if study == "PSA" else "")
                           + FREQUENCY_WORDS[0].upper() + FREQUENCY_WORDS[1:]}


@_styled
def confounds(table: pd.DataFrame, *, ax: Axes | None = None) -> Axes:
    """:func:`toolkit.instrument.confounds.name_confounds`: per system, the gap (group a's names minus group b's:
    African-American − European for race, female − male for gender) and its interval as measured, adjusted for
    name frequency (and subword length), adjusted on the names in common support, and on frequency-matched names;
    a gap that is exactly 0 (no name in that analysis moves the score) is its marker filled grey, in the legend;
    light lines part the systems. The note under the axis says
    why "as measured" (template × name cell means, templates weighed alike) differs from the EEC's per-sentence
    mean Δ. Several tasks (``make figures TASK=all``): with no ``ax``, one panel per task in one new Figure
    (returns the first; its figure holds them all); on a given ``ax``, a row per system and task, named
    "system (task)"."""
    tasks = list(dict.fromkeys(table["task"])) if "task" in table.columns else []
    if ax is None and len(tasks) > 1:
        return _task_confounds(table, tasks=tasks)
    several = len(tasks) > 1  # a row per system and task
    keys = ["task", "model"] if several else ["model"]
    systems = list(dict.fromkeys(map(tuple, table[keys].itertuples(index=False))))
    if ax is None:  # a row needs room: the preset's panel height for four systems, more for more (up to its max)
        ax = new_axes(height=preset().height + ROW_INCHES * max(0, len(systems) - 4))
    words = _confounds_words(table)
    zero = _confounds_panel(ax, table, keys=keys, systems=systems, raw=words["raw"])
    ax.set_yticks(np.arange(len(systems)), [f"{short_label(s[-1])} ({s[0]})" if several else short_label(s[0])
                                            for s in systems])
    ax.set(xlabel=words["xlabel"], ylabel="", title=words["title"])
    _note_below(ax, words["note"] if words["study"] != "PSA" else words["definitions"])
    if words["study"] == "EEC":  # round 28: the interval was defined for PSA's gap only
        full_a, full_b, _, _ = GROUPS.get(str(table["attribute"].iloc[0]), ("group a", "group b", "a", "b"))
        _caption_only(ax, EEC_GAP_WORDS.format(a=full_a, b=full_b))
    _caption_only(ax, _names_kept(table))
    handles, texts = ax.get_legend_handles_labels()
    if zero:
        handles.append(_confounds_zero_entry())
        texts.append(words["zero"])
    _legend_outside(ax, handles, texts)
    return ax


def _names_kept(table: pd.DataFrame) -> str:
    """How many names of each group each analysis of :func:`confounds` keeps (``n_names_a``/``n_names_b``), for the
    caption (round 27's readers could not read the frequency-matched gaps without it); per system where they differ,
    "" without the columns."""
    if not {"analysis", "n_names_a", "n_names_b"} <= set(table.columns):
        return ""
    a, b, _, _ = GROUPS.get(str(table["attribute"].iloc[0]) if len(table) else "", ("group a", "group b", "a", "b"))
    parts = []
    for analysis, (_, name) in ANALYSIS_STYLE.items():
        rows = table[(table["analysis"] == analysis) & table["n_names_a"].notna()]
        counts = sorted({(int(r.n_names_a), int(r.n_names_b)) for r in rows.itertuples()})
        if counts:
            parts.append(f"{name}, " + " or ".join(f"{x} + {y}" for x, y in counts))
    return f"Names in each analysis ({a} + {b}): " + "; ".join(parts) + "." if parts else ""


def _confounds_zero_entry() -> Line2D:
    """The legend entry of an exact 0 in :func:`confounds`: an analysis marker filled grey."""
    return Line2D([], [], linestyle="none", marker="o", markersize=4.5, markerfacecolor=CONFOUNDS_ZERO,
                  markeredgecolor=ZERO_EDGE, markeredgewidth=0.9)


def _confounds_words(table: pd.DataFrame) -> dict[str, str]:
    """:func:`confounds_labels` of ``table`` (its attribute and study: PSA tables have a ``corpus``)."""
    attribute = str(table["attribute"].iloc[0]) if len(table) else ""
    study = "PSA" if "corpus" in table.columns else "EEC"
    return {**confounds_labels(attribute, study=study), "study": study}


def _confounds_panel(ax: Axes, table: pd.DataFrame, *, keys: list[str], systems: list[tuple],
                     raw: str = "as measured") -> bool:
    """Draw :func:`confounds`' four point-ranges per system (rows in ``systems`` order, keyed by ``keys``) on
    ``ax``, each system in its colour (:func:`model_palette`), each analysis in its marker (keyed in black, the
    as-measured one named ``raw``); returns whether an exact 0 was drawn."""
    offsets = {a: (i - 1.5) * 0.22 for i, a in enumerate(ANALYSIS_STYLE)}  # markers apart (round 21: they touched)
    colours = model_palette(list(dict.fromkeys(s[-1] for s in systems)))
    zero = False
    for analysis, (marker, label) in ANALYSIS_STYLE.items():
        rows = table[table["analysis"] == analysis].set_index(keys).reindex(systems if len(keys) > 1 else
                                                                          [s[0] for s in systems])
        y = np.arange(len(systems)) + offsets[analysis]
        for i, system in enumerate(systems):
            zero |= _ranges(ax, y[i:i + 1], rows["estimate"].iloc[i:i + 1], rows["ci_low"].iloc[i:i + 1],
                            rows["ci_high"].iloc[i:i + 1], colour=colours[system[-1]], marker=marker, label=None,
                            filled=[analysis not in HOLLOW], zero_colour=CONFOUNDS_ZERO, zero_marker=marker)
        _ranges(ax, np.array([]), [], [], [], colour="#222222", marker=marker,  # the analysis's key, in black
                label=raw if analysis == "raw" else label, filled=[analysis not in HOLLOW])
    ax.axvline(0, color="#888888", linewidth=0.8, zorder=0)
    for boundary in np.arange(len(systems) - 1) + 0.5:  # a system's four rows apart from the next's (round 22 read
        ax.axhline(boundary, color="0.88", linewidth=0.6, zorder=0)  # vader's grey triangle as textblob's)
    ax.invert_yaxis()
    return zero


def _task_confounds(table: pd.DataFrame, *, tasks: list[str]) -> Axes:
    """:func:`confounds` with a panel per task (titled by it) in one new Figure (:func:`_grid`): the systems named
    in the left column only when every panel lists the same ones, the axis label under each column's last panel,
    one legend and one note."""
    words = _confounds_words(table)

    def draw(ax: Axes, block: pd.DataFrame) -> bool:
        systems = [(m,) for m in dict.fromkeys(block["model"])]
        drawn = _confounds_panel(ax, block, keys=["model"], systems=systems, raw=words["raw"])
        ax.set_yticks(np.arange(len(systems)), [short_label(s[0]) for s in systems])
        return drawn

    cells, drawn = _task_grid(table, tasks=tasks, draw=draw)
    zero = any(drawn)
    cells[0].figure.suptitle(words["title"], fontsize=preset().title_size)
    attribute = str(table["attribute"].iloc[0])
    a, b, a_short, b_short = GROUPS.get(attribute, ("group a", "group b", "a", "b"))
    for cell in _column_bottoms(cells):  # a panel's width
        cell.set_xlabel(f"{attribute} gap ({a_short} − {b_short}),{' ' if preset().double else chr(10)}"
                        "95\u00a0% interval")
    note = f"{a_short}, {b_short}: {a}, {b} names; " + (words["note"] if words["study"] != "PSA" else FREQUENCY_WORDS)
    _note_below(cells[0], note)
    handles, texts = cells[0].get_legend_handles_labels()
    if zero:
        handles.append(_confounds_zero_entry())
        texts.append(words["zero"])
    _legend_outside(cells[0], handles, texts, under=True)
    return cells[0]


@_styled
def wording(table: pd.DataFrame, *, attribute: str, order: Sequence[str] | None = None,
            ax: Axes | None = None) -> Axes:
    """:func:`toolkit.instrument.wording.sweep`: per system, the estimate under each template wording set (the
    published wording filled, on top, thicker; each rewording under it in its own line marker), each with its
    interval (the EEC's two-way interval, simultaneous over that wording set's own family of tests, as a study of it
    would run); the systems top to bottom in ``order`` (notebook 01 passes the run's, the confounds figure's order;
    systems not in it after them), by default by the published wording's estimate. Several tasks (``make figures
    TASK=all``) and no ``ax``: one panel per task in one new Figure, one legend; returns the first panel (its figure
    holds them all)."""
    if order is not None and (isinstance(order, (str, bytes)) or not isinstance(order, Iterable)):
        raise InputError(f"order={order!r} is one string; wording takes a list of model specs."
                         if isinstance(order, (str, bytes)) else
                         f"order={order!r} is not a list; wording takes a list of model specs.",
                         fix=f"wrap it in a list: order=[{order!r}], or pass result.models.")
    data = table[table["attribute"] == attribute]
    tasks = list(dict.fromkeys(data["task"])) if "task" in data.columns else []
    a, b, a_short, b_short = GROUPS.get(attribute, ("group a", "group b", "a", "b"))
    title = f"EEC {attribute} estimate across template wordings"
    if ax is None and len(tasks) > 1:
        cells, _ = _task_grid(data, tasks=tasks, draw=partial(_wording_panel, order=order))
        cells[0].figure.suptitle(title, fontsize=preset().title_size)
        for cell in _column_bottoms(cells):  # a panel's width
            cell.set_xlabel(f"{attribute} estimate ({a_short} − {b_short}),\n95\u00a0% interval per wording set")
        _note_below(cells[0], f"{a_short}, {b_short}: {a}, {b} names; {SCORE_RANGE}; each interval simultaneous "
                              "over its wording set's tests" + _rewordings_note(data, start="; "))
        _caption_only(cells[0], WORDING_ESTIMATE.format(a=a_short, b=b_short))
        _legend_outside(cells[0], *_wording_keys(cells[0], data), under=True)
        return cells[0]
    systems = data["model"].nunique()  # a row of five intervals per system: room past the fourth, as confounds
    ax = ax if ax is not None else new_axes(height=preset().height + ROW_INCHES * max(0, systems - 4))
    _wording_panel(ax, data, order=order)
    ax.set(xlabel=f"{attribute} estimate ({a} − {b}), {SCORE_RANGE}; 95\u00a0% interval simultaneous over each wording "
                  "set's tests", ylabel="",
           title=title)
    _caption_only(ax, WORDING_ESTIMATE.format(a=a_short, b=b_short))
    _note_below(ax, _rewordings_note(data))
    _legend_outside(ax, *_wording_keys(ax, data))
    return ax


WORDING_ESTIMATE = ("The estimate: the EEC's mean Δ ({a} − {b}) per system with the two-way interval of the interval "
                    "figures (names and templates as samples), from a run of the study on each wording set alone: "
                    "its interval is simultaneous over that set's own tests (its attributes × systems) and filled "
                    "where that run's test finds a difference.")
""":func:`wording`'s caption paragraph: what is estimated under each wording
(:func:`toolkit.instrument.wording.sweep`)."""


def _rewordings_note(data: pd.DataFrame, *, start: str = "") -> str:
    """What the reworded sets of ``data`` are (:data:`REWORDINGS`), named as the legend names them ("w1–w4"), or ""
    when only the published wording is drawn."""
    sets = list(_rewordings(data))
    if not sets:
        return ""
    templates = len(load_json("eec_wordings")["templates"])
    return f"{start}{_set_range(sets)}: {REWORDINGS.format(n=templates)}"


def _rewordings(data: pd.DataFrame) -> dict[str, str]:
    """Each reworded template set of ``data`` → the number drawn beside its intervals: N for sets all named wN (in
    the order of N), else 1, 2, … in the order they come; so a number names one set in every system's rows."""
    sets = [str(w) for w in dict.fromkeys(data["wording"]) if w != "published"]
    named = {w: WORDING_SET.fullmatch(w) for w in sets}
    if sets and all(named.values()) and len({m.group(1) for m in named.values()}) == len(sets):
        return {w: str(int(named[w].group(1))) for w in sorted(sets, key=lambda w: int(named[w].group(1)))}
    return {w: str(k + 1) for k, w in enumerate(sets)}


def _difference(verdict: object) -> bool:
    """Whether a stored verdict is a difference shown (a or b higher, or a small one): drawn filled."""
    return verdicts.kind(verdict) in ("a", "b", "small")


def _wording_keys(ax: Axes, data: pd.DataFrame) -> tuple[list, list[str]]:
    """The legend of :func:`wording`: the published set (thick), the reworded sets (thin; which number names which
    set where they are not all named wN), filled and open as the verdicts are, and the diamond of a system whose
    scores never move (in any one task's panel)."""
    handles = [Line2D([], [], color="0.3", marker="o", markersize=4.5, linewidth=1.4)]
    texts = ["published templates (thick)"]
    numbers = _rewordings(data)
    if numbers:
        named = all(WORDING_SET.fullmatch(w) for w in numbers)
        which = (f"reworded set {_set_range(list(numbers))}, its number beside its interval" if named else
                 "reworded sets, the number beside an interval: " + ", ".join(f"{n} {w}" for w, n in numbers.items()))
        handles.append(Line2D([], [], color="0.6", marker="o", markersize=WORDING_POINT, linewidth=0.7))  # thin, lighter
        texts.append(f"{which} (thin; odd numbers right, even left)")
    if "verdict" in data.columns and data["verdict"].map(_difference).any():
        handles.append(Line2D([], [], color="0.3", marker="o", markersize=3.5, linestyle="none"))
        texts.append("filled (a reworded set's number starred): a difference (verdict)")
    handles.append(Line2D([], [], color="0.3", marker="o", markersize=3.5, markerfacecolor="white",
                          linestyle="none"))
    texts.append("open: no difference shown")
    tasks = data.groupby("task", sort=False) if "task" in data.columns else [("", data)]
    if any(_unmoved(block) for _, block in tasks):  # a panel draws one task's rows
        handles.append(Line2D([], [], color="#bbbbbb", **ZERO_MARK))
        texts.append("all Δ = 0 under every wording")
    return handles, texts


def _set_range(sets: Sequence[str]) -> str:
    """The reworded sets as the legend and the note name them: "w1–w4" (a range only for w1, w2, … in order),
    "a, b, and c", "a and b"."""
    if len(sets) > 2 and sets == [f"w{k}" for k in range(1, len(sets) + 1)]:
        return f"{sets[0]}–{sets[-1]}"
    return ", ".join(sets[:-1]) + f", and {sets[-1]}" if len(sets) > 2 else " and ".join(sets)


def _unmoved(data: pd.DataFrame) -> list[str]:
    """The systems of ``data`` whose every wording gives identical scores (Δ = 0 and an interval of 0 — not an
    unknown one): one diamond each, not five stacked marks (round 20)."""
    flat = data[["estimate", "ci_low", "ci_high"]].fillna(np.inf).abs().max(axis=1) <= 1e-12
    return [m for m, rows in flat.groupby(data["model"], sort=False) if bool(rows.all())]


def _wording_panel(ax: Axes, data: pd.DataFrame, *, order: Sequence[str] | None = None) -> None:
    """Draw :func:`wording`'s point-ranges of one attribute's rows (``data``) on ``ax``, a row per system, top to
    bottom in ``order`` (the others after them), or by the published wording's estimate (lowest first; a system
    without one last): the published wording thick on top, each reworded set thin under it in its own slot, its
    number (:func:`_rewordings`) beside an end of its interval (odd right, even left, so a narrow row's numbers stay
    apart), each point filled where its verdict is a difference (and the number starred); a system whose every
    wording gives identical scores is one diamond at 0."""
    published_estimate = data[data["wording"] == "published"].groupby("model", sort=False)["estimate"].first()
    drawn = list(dict.fromkeys(data["model"]))
    if order is not None:
        models = [m for m in dict.fromkeys(order) if m in drawn] + [m for m in drawn if m not in set(order)]
    else:
        models = sorted(drawn, key=lambda m: (m not in published_estimate.index, published_estimate.get(m, 0.0)))
    palette = model_palette(models)
    numbers = _rewordings(data)
    slots = {w: (np.linspace(-0.16, 0.38, len(numbers))[k] if len(numbers) > 1 else 0.08)
             for k, w in enumerate(numbers)}  # a set's slot is the same in every system's rows
    unmoved = set(_unmoved(data))
    small = preset().small_size
    for i, model in enumerate(models):
        rows = data[data["model"] == model]
        if model in unmoved:
            ax.plot([0.0], [i], color="#bbbbbb", **ZERO_MARK)
            continue
        colour = palette[model]
        for row in rows.itertuples(index=False):
            filled = _difference(getattr(row, "verdict", None))
            xerr = [[row.estimate - row.ci_low], [row.ci_high - row.estimate]]
            if row.wording == "published":
                ax.errorbar([row.estimate], [i - 0.36], xerr=xerr, fmt="o", color=colour,
                            markerfacecolor=colour if filled else "white", markersize=4.5, elinewidth=1.4,
                            capsize=1.5, zorder=4)
                continue
            y = i + slots[str(row.wording)]
            ax.errorbar([row.estimate], [y], xerr=xerr, fmt="o", color=colour,
                        markerfacecolor=colour if filled else "white", markersize=WORDING_POINT,
                        markeredgewidth=0.6, elinewidth=0.7, capsize=1.0, zorder=3)
            number = numbers[str(row.wording)]
            right = int(number) % 2 == 1
            ax.annotate(number + ("*" if filled else ""), (row.ci_high if right else row.ci_low, y),
                        xytext=(2.5 if right else -2.5, 0), textcoords="offset points",
                        ha="left" if right else "right", va="center", fontsize=small, color=text_colour(colour))
    ax.axvline(0, color="#888888", linewidth=0.8, zorder=0)
    ax.set_yticks(np.arange(len(models)), list(short_labels(models).values()))
    ax.invert_yaxis()
    ax.margins(x=0.08)  # room beside the outermost intervals for their sets' numbers


def intersections_labels(*, alpha: float, family: str, starred: str, letters: bool = True,
                         simultaneous: bool = False) -> dict[str, str]:
    """The words of :func:`intersections`: title, axis label, note and the legend's entries (one place, to change
    the vocabulary); ``letters``: the contrasts say F and M (a column's width), so the note defines them;
    ``simultaneous``: the intervals drawn are the family's simultaneous ones (Bonferroni), not the unadjusted."""
    size = family.split(":", 1)[-1].split("(")[0].split(",")[0].strip() if family else "the run's contrasts"
    systems = re.search(r"\((\d+ systems?)\b", family)
    size += f" of {systems.group(1)}" if systems else ""
    method = family.rsplit(")", 1)[-1].strip(" ,").capitalize() if ")" in family else "Holm"
    return {"title": "EEC gender × race contrasts",
            "xlabel": "score difference: first cell − second cell " + (
                f"(simultaneous {100 * (1 - alpha):g}\u00a0% CIs, Bonferroni)" if simultaneous
                else f"({100 * (1 - alpha):g}\u00a0% CI, unadjusted)"),
            "note": "AA, EA: African-American, European names; names only (the noun phrases carry no race, so a "
                    "gender contrast here can differ from the EEC's gender Δ over names and noun phrases, even in "
                    "sign), each template weighted alike (the EEC paper's mean Δ weights each sentence alike); "
                    + ("F, M: female, male; " if letters else "")
                    + "interaction = (AA female − EA female) − (AA male − EA male); "
                    + f"{method}-adjusted over the {size.replace(' contrast', ' tested contrast', 1)}"
                    + (" (the intervals: Bonferroni over the same)" if simultaneous else "")
                    + "; a contrast of identical scores is not tested" + starred,
            "filled": f"filled: {method}-adjusted p < {alpha:g}",
            "open": "open: not significant" + (" (its interval holds 0)" if simultaneous else ""),
            "zero": "identical scores (Δ = 0)"}


LAYOUTS = ("systems", "one")
"""How :func:`intersections` lays out several systems: ``systems`` (default) a panel per system, the contrasts named
in the left column, each panel its own x scale (at a double preset's width; a column draws one panel); ``one``
every system in one panel, side by side within each contrast (round-12 and -13 readers scored that 2: eight
systems' intervals in each of seven rows)."""


@_styled
def intersections(table: pd.DataFrame, *, alpha: float = 0.05, layout: str = "systems",
                  ax: Axes | None = None) -> Axes:
    """:func:`toolkit.intersections.cells`: each contrast (the first cell's names minus the second's) with its
    95 % interval, one colour per system; filled where the Holm-adjusted p (``p_adjusted``, over every contrast of
    the run: ``family``) is below ``alpha``, open where not (the interval itself is not adjusted, said in the
    legend); a contrast whose scores are identical (Δ = 0, no interval) is a diamond, in the legend; a contrast
    some system has not enough data for is starred, and the note says for which. A table of several tasks
    (``make figures TASK=all``) and no ``ax``: one panel per task in one new Figure (:func:`_grid`), a system kind
    the same colour in every panel, one legend; returns the first panel (its figure holds them all). One task,
    several systems and no ``ax``: ``layout`` (:data:`LAYOUTS`) ``systems`` draws a panel per system where the
    grid fits the preset (:func:`_grid_fits`; returns the first; else one panel), ``one`` all in one panel."""
    if layout not in LAYOUTS:
        raise unknown("intersections layout", layout, LAYOUTS)
    _check_intersections(table)
    tasks = list(dict.fromkeys(table["task"])) if "task" in table.columns else []
    if ax is None and len(tasks) > 1:
        return _task_intersections(table, tasks=tasks, alpha=alpha)
    constant = _constant_systems(table)
    full, table = table, table[~table["model"].isin(constant)] if len(constant) < table["model"].nunique() else table
    models = list(dict.fromkeys(table["model"]))
    if ax is None and layout == "systems" and len(models) > 1 and _grid_fits(len(models), table):
        return _system_intersections(full, table, constant=constant, alpha=alpha)
    ax = ax if ax is not None else new_axes(height=3.0 + 0.2 * max(0, len(models) - 4))  # room per system
    zero, sparse = _intersections_panel(ax, table, alpha=alpha)
    words = _intersections_words(full, alpha=alpha, sparse=sparse,
                                 constant=[m for m in constant if m not in set(table["model"])])
    ax.set(xlabel=words["xlabel"], ylabel="", title=words["title"])
    _note_below(ax, words["note"])
    _caption_only(ax, words["finding"])
    handles, texts = ax.get_legend_handles_labels()
    extra_handles, extra_texts = _intersections_keys(table, alpha=alpha, zero=zero, words=words)
    _legend_outside(ax, handles + extra_handles, texts + extra_texts)
    return ax


GRID_ROOM = 1.6
"""Inches a grid of :func:`intersections` panels leaves for its title, note and legend."""
LABEL_ROOM = 0.35
"""Inches the grid's two-line x label takes under its bottom row."""


def _panel_height(table: pd.DataFrame) -> float:
    """A system's panel of :func:`intersections`: a row per contrast, its title and its x ticks."""
    return 0.16 * table["contrast"].nunique() + 0.5


def _grid_fits(n_systems: int, table: pd.DataFrame) -> bool:
    """Whether a panel per system fits the active preset: two columns of them at its width (a double preset), their
    rows and :data:`GRID_ROOM` within its ``max_height``; else :func:`intersections` draws one panel."""
    p = preset()
    return p.double and math.ceil(n_systems / 2) * _panel_height(table) + LABEL_ROOM + GRID_ROOM <= p.max_height


def _system_intersections(full: pd.DataFrame, table: pd.DataFrame, *, constant: list[str], alpha: float) -> Axes:
    """:func:`intersections` with a panel per system of ``table`` (titled by it, in its colour and marker): the
    contrasts named in the left column only, each panel its own x scale symmetric about 0 (labelled under each
    column), one note and one legend (the systems and what the marks mean). Returns the first panel."""
    models = list(dict.fromkeys(table["model"]))
    palette, markers, names = model_palette(models), model_markers(models), short_labels(models)
    contrasts = list(dict.fromkeys(table["contrast"]))
    figure, cells = _grid(len(models), panel_width=2.6, panel_height=_panel_height(table))
    figure.set_figheight(figure.get_figheight() + LABEL_ROOM)  # the x label under the bottom row
    zero, sparse = False, []
    for model, cell in zip(models, cells):
        drawn, missing = _intersections_panel(cell, table[table["model"] == model], alpha=alpha, narrow=True,
                                              contrasts=contrasts, palette=palette, markers=markers)
        zero, sparse = zero or drawn, sparse + [missing]
        cell.set_title(names[model], color=text_colour(palette[model]), fontsize=preset().font_size)
        cell.set(xlabel="", ylabel="")
    for model, cell in zip(models, cells):  # each panel its own scale, symmetric about 0 (round 14: on one scale
        # the narrow systems' intervals were unreadable), rounded up to 1, 2, 3 or 5 × 10^k so panels of a like range
        # share one, with ticks at its ends and 0, said in the title (round 23: scales read only off the ticks)
        drawn = cell.dataLim  # the data's extent, not the autoscaled limits (their 5 % margin took ±0.05 to ±0.1)
        reach = max(abs(drawn.x0), abs(drawn.x1)) if np.isfinite([drawn.x0, drawn.x1]).all() else 0.0
        edge = nice_edge(reach) if reach > 0 else nice_edge(max(abs(v) for v in cell.get_xlim()))
        cell.set_xlim(-edge, edge)
        cell.set_xticks([-edge, 0.0, edge], ["\u2212" + f"{edge:g}", "0", f"{edge:g}"])
        cell.set_xticks([-edge / 2, edge / 2], minor=True)
        cell.set_title(f"{names[model]}: axis \u00b1{edge:g}", color=cell.title.get_color(),
                       fontsize=preset().font_size)  # round 25 read "(±0.2)" as an uncertainty
    _left_names_only(cells)
    words = _intersections_words(full, alpha=alpha, sparse=pd.concat(sparse),
                                 constant=[m for m in constant if m not in set(models)])
    figure.suptitle(words["title"], fontsize=preset().title_size)
    for cell in _column_bottoms(cells):  # the panel's width: the cells and the interval, short (the note names
        # the correction)
        cell.set_xlabel(words["xlabel"].removeprefix("score difference: ").replace(" CIs, Bonferroni)", " CIs)")
                        .replace(" (", "\n(", 1))
    _note_below(cells[0], "each panel on its own x scale, its range in its title; " + words["note"])
    _caption_only(cells[0], words["finding"])
    _grid_legend(cells, *_intersections_keys(table, alpha=alpha, zero=zero, words=words))  # systems keyed too
    return cells[0]


def nice_edge(value: float) -> float:
    """The smallest of 1, 2, 3 and 5 × 10^k at least ``value`` (> 0; else 1): a panel's symmetric x range, so
    panels of a like range share one. A value that is no number is TK102."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InputError(f"nice_edge takes a number; got {value!r}.", fix="pass a panel's reach, a float.")
    if not np.isfinite(value) or value <= 0:
        return 1.0
    power = 10.0 ** math.floor(math.log10(value))
    return next(float(f"{m * power:.12g}") for m in (1, 2, 3, 5, 10) if m * power >= value * (1 - 1e-12))


def _grid_legend(cells: list[Axes], handles: list, texts: list[str]) -> None:
    """One legend under a grid of :func:`intersections` panels: each panel's entries once (the systems), then
    ``handles`` and ``texts`` (what the marks mean)."""
    seen: dict[str, object] = {}
    for cell in cells:
        for handle, text in zip(*cell.get_legend_handles_labels()):
            seen.setdefault(text, handle)
    _legend_outside(cells[0], list(seen.values()) + handles, list(seen) + texts, under=True)


def _check_intersections(table: pd.DataFrame) -> None:
    """TK102 for a table :func:`intersections` cannot draw: a missing column, or a value of a numeric column that is
    not a number (NaN is drawn as nothing: a cell without enough data)."""
    fix = "pass toolkit.intersections.cells(...) (or its CSV read back with pandas)."
    missing = [c for c in ("model", "contrast", "estimate", "ci_low", "ci_high") if c not in table.columns]
    if missing:
        raise InputError(f"cannot draw the intersections: the table lacks {', '.join(missing)}.", fix=fix)
    for column in ("estimate", "ci_low", "ci_high", "ci_low_simultaneous", "ci_high_simultaneous", "p_adjusted"):
        if column in table.columns:
            values = pd.to_numeric(table[column], errors="coerce")
            bad = table.loc[values.isna() & table[column].notna(), column]
            if len(bad):
                raise InputError(f"cannot draw the intersections: {column} holds {len(bad)} value(s) that are not "
                                 f"numbers (first: {bad.iloc[0]!r}).", fix=fix)


def _intersections_panel(ax: Axes, table: pd.DataFrame, *, alpha: float, narrow: bool = False,
                         contrasts: list[str] | None = None, palette: dict[str, str] | None = None,
                         markers: dict[str, str] | None = None) -> tuple[bool, pd.DataFrame]:
    """Draw :func:`intersections`' point-ranges and contrast labels on ``ax``; returns whether a diamond was drawn
    and the rows without enough data; ``narrow``: a panel of a grid (at most four ticks, as at a column's width);
    ``contrasts``, ``palette``, ``markers``: the whole figure's (a panel per system draws one system of many)."""
    contrasts = list(dict.fromkeys(table["contrast"])) if contrasts is None else contrasts
    models = list(dict.fromkeys(table["model"]))
    palette = model_palette(models) if palette is None else palette
    markers = model_markers(models) if markers is None else markers
    names = short_labels(models)  # unique: one system per task (make figures TASK=all) keeps its task
    step = 0.6 / max(len(models), 1)
    zero, tested = False, "p_adjusted" in table.columns
    for j, model in enumerate(models):
        rows = table[table["model"] == model].set_index("contrast").reindex(contrasts)
        if "state" in rows.columns:  # a cell without enough data has no estimate to show
            rows.loc[rows["state"] == "not enough data", ["estimate", "ci_low", "ci_high"]] = np.nan
        y = np.arange(len(contrasts)) + (j - (len(models) - 1) / 2) * step
        filled = (rows["p_adjusted"].astype(float) < alpha).to_numpy() if tested else None
        low, high = (("ci_low_simultaneous", "ci_high_simultaneous") if _simultaneous(table)
                     else ("ci_low", "ci_high"))
        zero |= _ranges(ax, y, rows["estimate"], rows[low], rows[high], colour=palette[model],
                        marker=markers[model], label=names[model], filled=filled, zero_colour=CONFOUNDS_ZERO,
                        zero_marker=markers[model])  # an exact 0 keeps the system's shape, in grey
    ax.axvline(0, color="#888888", linewidth=0.8, zorder=0)
    if narrow or not preset().double:  # a column's narrow axis: fewer ticks, so their labels never touch
        ax.xaxis.set_major_locator(MaxNLocator(nbins=4))
    short = [c.replace("African-American", "AA").replace("European", "EA") for c in contrasts]
    if not preset().double:  # a column: F and M, said in the note
        short = [re.sub(r"\b(female|male)\b", lambda m: m.group(1)[0].upper(), c) for c in short]
    sparse = table[table["state"] == "not enough data"] if "state" in table.columns else table.iloc[:0]
    starred = set(sparse["contrast"])
    ax.set_yticks(np.arange(len(contrasts)), [s + ("*" if c in starred else "") for s, c in zip(short, contrasts)])
    if "interaction" in contrasts and contrasts.index("interaction") > 0:  # a difference of differences: set apart
        ax.axhline(contrasts.index("interaction") - 0.5, color="0.6", linewidth=0.6, linestyle=":", zorder=0)
    ax.invert_yaxis()
    return zero, sparse


def _simultaneous(table: pd.DataFrame) -> bool:
    """Whether ``table`` has the family's simultaneous intervals (:func:`toolkit.intersections.cells`), drawn in
    place of the unadjusted ones so that an open point's interval always holds 0."""
    return {"ci_low_simultaneous", "ci_high_simultaneous"} <= set(table.columns) and \
        table["ci_low_simultaneous"].notna().any()


def _constant_systems(table: pd.DataFrame) -> list[str]:
    """The systems whose every contrast is exactly 0 with no interval (identical scores whatever the name: a
    lexicon without the names' words); :func:`intersections` names them in its note rather than stacking their
    markers at 0 (round-11 readers: ten systems' markers at 0 hid each other)."""
    numbers = table.assign(**{c: pd.to_numeric(table[c], errors="coerce") for c in ("estimate", "ci_low", "ci_high")})
    flat = _zero_models(numbers, "estimate") & _zero_models(numbers.assign(width=numbers["ci_high"]
                                                                           - numbers["ci_low"]), "width")
    return [m for m in dict.fromkeys(table["model"]) if m in flat]


def _intersections_words(table: pd.DataFrame, *, alpha: float, sparse: pd.DataFrame,
                         constant: list[str] = ()) -> dict[str, str]:
    """:func:`intersections_labels` for ``table``: its family, the systems without enough data starred, and the
    ``constant`` systems not drawn."""
    who = ", ".join(short_label(m) for m in dict.fromkeys(sparse["model"]))
    family = str(table["family"].dropna().iloc[0]) if "family" in table.columns and table["family"].notna().any() \
        else ""
    same = ", ".join(short_label(m) for m in constant)
    words = intersections_labels(alpha=alpha, family=family, simultaneous=_simultaneous(table),
                                 starred=(f"; * not enough data for {who} (nothing drawn)" if len(sparse) else "")
                                 + (f"; not drawn, identical scores in every contrast: {same}" if same else ""),
                                 letters=not preset().double)
    return {**words, "finding": _intersections_finding(table, alpha=alpha)}


def _intersections_finding(table: pd.DataFrame, *, alpha: float) -> str:
    """What the contrasts show, for the caption (round 27: "the caption never says that nothing is significant"):
    how many of the tested contrasts (a finite ``p_adjusted``) are below ``alpha``, and which."""
    if "p_adjusted" not in table.columns:
        return ""
    tested = table[pd.to_numeric(table["p_adjusted"], errors="coerce").notna()]
    if "state" in tested.columns:  # identical scores carry p = 1 but are not tested
        tested = tested[tested["state"] == "ok"]
    if tested.empty:
        return ""
    found = tested[pd.to_numeric(tested["p_adjusted"]) < alpha]
    if found.empty:
        return f"None of the {len(tested)} tested contrasts differs from 0 after correction (adjusted p < {alpha:g})."
    tasks = "task" in found.columns and table["task"].nunique() > 1  # several tasks: each finding names its own
    which = "; ".join(f"{short_label(r.model)}{f' ({r.task})' if tasks else ''}: {r.contrast}"
                      for r in found.itertuples())
    return (f"{len(found)} of the {len(tested)} tested contrasts differ{'s' if len(found) == 1 else ''} from 0 "
            f"after correction (adjusted p < {alpha:g}): {which}.")


def _intersections_keys(table: pd.DataFrame, *, alpha: float, zero: bool,
                        words: dict[str, str]) -> tuple[list, list[str]]:
    """The legend entries of :func:`intersections` besides the systems: filled (only when a contrast is significant:
    a key for nothing drawn reads as a finding missed), open, and the diamond of identical scores (when drawn)."""
    handles, texts = [], []
    if "p_adjusted" in table.columns:
        found = bool((pd.to_numeric(table["p_adjusted"], errors="coerce") < alpha).any())
        for face, key in ((("0.3", "filled"),) if found else ()) + (("white", "open"),):
            handles.append(Line2D([], [], color="0.3", marker="o", markerfacecolor=face, linestyle="none",
                                  markersize=4))
            texts.append(words[key])
    if zero:  # identical scores are never significant (p_adjusted 1): drawn open, edged grey, and keyed so
        handles.append(Line2D([], [], linestyle="none", marker="o", markersize=4.5, markerfacecolor="white",
                              markeredgecolor=CONFOUNDS_ZERO, markeredgewidth=0.9))
        texts.append(f"grey edge: {words['zero']}")
    return handles, texts


def _task_intersections(table: pd.DataFrame, *, tasks: list[str], alpha: float) -> Axes:
    """:func:`intersections` with a panel per task (titled by it) in one new Figure: the contrasts named only in
    the left column when every panel lists the same ones, the axis label once under the panels, one legend (a
    system kind keeps its colour across panels: the palette's order is the specs' sorted order), one note."""
    cells, drawn = _task_grid(table, tasks=tasks,
                              draw=lambda ax, block: _intersections_panel(ax, block, alpha=alpha, narrow=True))
    zero, sparse = any(z for z, _ in drawn), [missing for _, missing in drawn]
    figure = cells[0].figure
    words = _intersections_words(table, alpha=alpha, sparse=pd.concat(sparse))
    figure.suptitle(words["title"], fontsize=preset().title_size)
    for cell in _column_bottoms(cells):  # a panel's width holds the label without its first words
        label = words["xlabel"].removeprefix("score difference: ")
        cell.set_xlabel(label if preset().double else label.replace(" (", "\n("))
    # the legend keys stay short (a column's legend in several columns); the family is in the note
    words = {**words, "filled": "filled: differs", "open": "open: not significant", "zero": words["zero"]}
    _note_below(cells[0], words["note"])
    _caption_only(cells[0], words["finding"])
    _grid_legend(cells, *_intersections_keys(table, alpha=alpha, zero=zero, words=words))
    return cells[0]
