"""Agreement figures: Kendall's τ between the studies' rankings (a lower triangle), each model's rank by study."""
from __future__ import annotations

import textwrap
from collections.abc import Iterable

import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle

from toolkit.errors import InputError, unknown
from toolkit.plots.presets import PRESETS, figure_captions, preset
from toolkit.plots.style import (
    STUDY_NAMES,
    _caption_only,
    _figure_legend,
    _grid,
    _legend_outside,
    _note_below,
    _readable_annotations,
    _styled,
    model_markers,
    model_palette,
    new_axes,
    open_edge,
    short_labels,
)
from toolkit.studies.agreement.captions import claim_words, family_words

ZERO_TOL = 1e-12
"""A headline within this of 0 is 0, in the figures and in the statistics (the package's ``_snap``): identical
scores can sum to about 1e-17, which would order models that tie at nothing."""
NAMES = STUDY_NAMES
"""How the figures name each study (:data:`toolkit.plots.style.STUDY_NAMES`)."""
UNITS = {"eec": "template", "psa": "sentence", "biasfinder": "template", "btcsam": "case"}
"""Each study's unit, as the headlines figure names the one that holds most of a model's weight."""
ZERO_KEY = "open: headline exactly 0 (tied with any other 0)"
"""The key of a headline of exactly 0 (no BTC, identical scores), drawn open in the rank and headline figures."""


RESAMPLED = {"eec": "templates × names", "psa": "sentences", "biasfinder": "templates × names", "btcsam": "cases"}
"""What each study's headline interval resamples (:meth:`toolkit.studies.base.Study.units`: the EEC's name units
and BiasFinder's names, :meth:`~toolkit.studies.base.Study.resampled_sums`, are crossed with their templates), as
the headlines figure's panel titles say it."""
FOLDED_MARK, DOMINANT_MARK = "*", "†"
"""The footnote marks on a headline panel's measure: its interval is ``folded`` (:func:`_folded_note`), one unit
holds most of a model's weight (:data:`DOMINANT`). Round 23's readers found the words themselves, four lines under
the EEC's axis and three under BiasFinder's, too long for an axis label."""


HEADLINE_WORDS = {
    "eec": "EEC: the size of the mean score difference Δ between sentences that differ only in the group word, the "
           "gender and race |Δ| averaged (scores in [0, 1])",
    "psa": "PSA ScoreDev: per sentence, the standard deviation of the scores over the names put in its pronoun's "
           "place, averaged over the sentences",
    "biasfinder": "BiasFinder BTC rate: the share of pairs of mutants of different classes (a template filled "
                  "with two names or words) that the model labels differently",
    "btcsam": "BTC-SAM failure rate: the share of test cases whose counterfactual texts get different labels or "
              "scores more than θ apart"}
"""Each study's headline measure, as a caption defines it (round 27's readers: "ScoreDev and BTC rate never
defined"); the measures themselves: :mod:`toolkit.studies.agreement`."""


def _headline_words(studies: Iterable[str]) -> str:
    """The caption's definitions of the headline measures of ``studies`` (those :data:`HEADLINE_WORDS` knows), higher
    meaning more biased in each."""
    present = set(studies)
    known = [words for study, words in HEADLINE_WORDS.items() if study in present]  # the studies' own order
    return ("Headlines, higher = more biased in each: " + "; ".join(known) + ".") if known else ""


def _percent(level: float) -> str:
    """A level as the figures print it: 0.95 → "95 %", 0.975 → "97.5 %", 0.99995 → "99.995 %" (never "100 %")."""
    return f"{round(100 * level, 4):g}\u00a0%"


def _folded_note(*, level: float, parts: int) -> str:
    """What a ``folded`` headline interval is, from its table's ``ci_level`` and ``ci_parts``
    (:func:`toolkit.studies.agreement.folded_interval`): round 20's readers found "signed CIs folded" cryptic, a later
    one read "≥ 95 %" as unfounded without the Bonferroni level of each part, and round 22 read a CI clear of 0 here
    against "inconclusive" in the EEC figures (their family is every system's tests)."""
    part = 1 - (1 - level) / parts
    return (f"{FOLDED_MARK} EEC: CI ≥ {_percent(level)}: the gender and race Δs' {_percent(part)} CIs (Bonferroni over "
            f"{parts}) taken to their sizes |Δ| and averaged; the EEC study's own CIs are simultaneous over every "
            "system, so wider")


POOLED = {"btcsam": "all its test sets pooled"}
"""Under a study's measure in the headlines figure: what its headline pools (round 22 rebuilt BTC-SAM's from the
forest's test sets, weighted by their cases, and found it said nowhere)."""
WEIGHT = {"eec": "sentence pairs", "psa": "sentences", "biasfinder": "mutant pairs", "btcsam": "cases"}
"""What each study's headline divides by: the share a unit holds of it is said in a footnote where one holds most."""
DOMINANT = 0.5
"""A unit holding more than this share of a model's denominator is said in the headlines figure's footnotes."""
PERCENT = {"btcsam": ("failure rate", "failure %")}
"""Headlines the headlines figure draws in percent, as the study's own figures print them (BTC-SAM's heatmaps and
forest: failure %; round-10 and -11 readers found one number in two units): study → (its measure's words, the
figure's). ``agreement_headlines.csv`` keeps the rate."""


def _number(value: float) -> str:
    return f"{value:.2f}".replace("-", "−")


def _p_text(p_value: float) -> str:
    """A p value in a cell: two decimals, three below 0.01 (``0.004``), ``< 0.001`` below that."""
    return "<\u00a00.001" if p_value < 0.001 else f"{p_value:.3f}" if p_value < 0.01 else f"{p_value:.2f}"


FADE = 0.55
""":func:`agreement_tau`: the white veil over a pair that is tested and not shown to agree (its colour still reads)."""


@_styled
def agreement_tau(tau: pd.DataFrame, *, alpha: float = 0.05, ax: Axes | None = None) -> Axes:
    """Kendall's τ between the studies' rankings (:func:`toolkit.studies.agreement.agreement`'s ``tau``) as a lower triangle:
    one cell per pair of studies (no diagonal, no mirror), coloured by τ and saying τ over its bootstrap interval
    (``ci_low``/``ci_high``, where given) and the p the verdict reads: the exact permutation p corrected over the
    pairs (``p_adjusted``, said p_adj; ``p_value`` where the table has no correction); a cell whose τ is undefined
    (a study that ties every model) is grey and says ``undefined``; the title says when no pair is shown to agree;
    the figure takes the preset's width (a column, or the text width); an interval that does not contain its τ is
    flagged ``*`` and said under the axes, as is what the number of models allows an agreement claim at ``alpha``
    and the correction (:func:`claim_words`)."""
    p = preset()
    studies = list(dict.fromkeys([*tau["study_a"], *tau["study_b"]]))
    rows, cols = studies[1:], studies[:-1]
    k = max(len(rows), 1)
    if ax is None:
        width = p.width if k > 1 or not p.double else PRESETS[p.name.replace("double", "single")].width
        ax = new_axes(figsize=(width, min(p.max_height, 0.62 * k + 1.5)))  # a column or the page (round 15)
    colour_bar = {"label": "Kendall's τ-b", "shrink": 0.8, "ticks": [-1, -0.5, 0, 0.5, 1]}
    cell = (ax.figure.get_figwidth() - 2.0) / k
    sep = "\n" if cell < 0.85 else " "  # the interval's two ends on two lines where a cell is narrow
    matrix = pd.DataFrame(np.nan, index=rows, columns=cols)
    labels = pd.DataFrame("", index=rows, columns=cols)
    undefined, outside, agree = [], False, []
    family = family_words(tau.iloc[0], alpha=alpha)[0] if len(tau) else ""
    read, p_name = ("p_adjusted", r"$p_\mathrm{adj}$") if family and "p_adjusted" in tau else ("p_value", "p")
    for row in tau.itertuples(index=False):
        a, b = sorted((row.study_a, row.study_b), key=studies.index)  # a earlier: column; b later: row
        if not np.isfinite(row.tau):
            undefined.append((rows.index(b), cols.index(a)))
            continue
        matrix.loc[b, a] = row.tau
        p_value = getattr(row, read, np.nan)
        if row.tau > 0 and p_value < alpha:  # the conclusions' rule: "rankings agree"
            agree.append((cols.index(a) + 0.5, rows.index(b) + 0.5))
        low, high = getattr(row, "ci_low", np.nan), getattr(row, "ci_high", np.nan)
        p_text = f"\n{p_name}\u00a0=\u00a0{_p_text(p_value)}" if np.isfinite(p_value) else ""  # the verdict's evidence
        if np.isfinite(low) and np.isfinite(high):
            flag = "" if low - 1e-9 <= row.tau <= high + 1e-9 else "*"
            outside |= bool(flag)
            labels.loc[b, a] = f"{_number(row.tau)}{flag}\n[{_number(low)},{sep}{_number(high)}]{p_text}"
        else:
            labels.loc[b, a] = _number(row.tau) + p_text
    mask = np.triu(np.ones((k, k), dtype=bool), 1)
    sns.heatmap(matrix.astype(float), annot=labels, fmt="", vmin=-1, vmax=1, cmap="vlag", mask=mask,
                cbar_kws=colour_bar, annot_kws={"fontsize": p.small_size}, linewidths=0.6,
                linecolor="white", ax=ax)
    _readable_annotations(ax)
    for text in ax.texts:  # the pairs whose rankings agree: τ in bold
        if any(np.allclose(text.get_position(), where) for where in agree):
            text.set_fontweight("bold")
    # a pair tested and not shown to agree: its colour faded beside one that agrees (round 16: a deep red 0.69 read
    # as agreement); where no pair agrees the title says so and every cell keeps its colour bar's colour (round 20:
    # a veil over every cell contradicted the bar and contrasted with nothing)
    faded = []
    for row in tau.itertuples(index=False) if agree else ():
        a, b = sorted((row.study_a, row.study_b), key=studies.index)
        where = (cols.index(a), rows.index(b))
        if np.isfinite(row.tau) and np.isfinite(getattr(row, read, np.nan)) and \
                (where[0] + 0.5, where[1] + 0.5) not in agree:
            faded.append(where)
            ax.add_patch(Rectangle(where, 1, 1, facecolor="white", alpha=FADE, edgecolor="none", zorder=1.5))
    for i, j in undefined:
        ax.add_patch(Rectangle((j, i), 1, 1, facecolor="0.88", edgecolor="white", linewidth=0.6))
        ax.text(j + 0.5, i + 0.5, "undefined" if sep == " " else "un-\ndefined", ha="center", va="center",
                fontsize=p.small_size, color="0.3")
    ax.set_facecolor("white")
    ax.set_yticks([i + 0.5 for i in range(k)], [NAMES.get(r, r) for r in rows], rotation=0)
    ax.set_xticks([j + 0.5 for j in range(k)], [NAMES.get(c, c) for c in cols], rotation=0)
    n = int(tau["n_models"].iloc[0]) if len(tau) else 0
    none = "" if agree or not tau.get(read, pd.Series(dtype=float)).notna().any() else ": no pair shown to agree"
    ax.set(title=f"Agreement of rankings ({n} models){none}", xlabel="", ylabel="")
    notes = list(dict.fromkeys(claim_words(row, alpha=alpha) for row in tau.to_dict("records")
                               if {"claim_possible", "min_abs_tau"} <= set(row)))
    if family and tau[read].notna().any():
        notes.append(f"{p_name}: exact permutation p, {family.replace(' over', '-adjusted over')}")
    rule = p_name if family else "exact permutation p"
    if agree:
        notes.append(f"bold: rankings agree (τ > 0, {rule} < {alpha:g})")
    if faded:
        notes.append(f"faded: not shown to agree ({rule} ≥ {alpha:g} or τ ≤ 0)")
    if tau.get("ci_low", pd.Series(dtype=float)).notna().any():  # what the brackets are, whatever the verdicts
        notes.append(_interval_words(tau, alpha=alpha))
    if outside:
        notes.append("* the bootstrap interval does not contain τ")
    _caption_only(ax, f"Kendall's τ-b between two studies' rankings of the same {n} models by their bias headline "
                  "(each study's own measure of a model's bias): 1, the same order; 0, unrelated; −1, reversed.")
    _caption_only(ax, _headline_words(studies))
    if figure_captions():  # the notes go to the caption with the definition (round 26 found them in the image)
        _caption_only(ax, "\n".join(notes))
    else:
        ax.set_xlabel(";\n".join(notes))
    return ax


def _measure_label(measure: str, width: int = 20) -> str:
    """A study's measure as a tick label: the study on its own line, the rest wrapped at ``width`` characters (at
    four studies across a page, a longer line runs into the next label)."""
    study, _, rest = measure.partition(" ")
    return "\n".join([study, *textwrap.wrap(rest, width)]) if rest else study


RANK_KINDS = ("table", "lines")
"""How :func:`agreement_ranks` draws the ranks: ``table`` (default) a grid of models × studies, each cell the rank
over its 95 % interval, shaded by rank; ``lines`` a line per model across the studies. Round 14 scored the lines
with their rank intervals 3 and 2 (tangled lines, bars beside markers); the tables of this study scored 4."""


@_styled
def agreement_ranks(headlines: pd.DataFrame, *, kind: str = "table", ax: Axes | None = None) -> Axes:
    """Each model's rank (1 = most biased) under each study's headline measure: ``kind`` (:data:`RANK_KINDS`)
    ``table`` draws :func:`_rank_table`; ``lines`` one line per model in its own
    colour (:func:`model_palette`) and marker (:func:`model_markers`); tied models share their mean rank (the
    headlines' ``rank``: four tied at 5-8 sit at 6.5) and are set side by side (a small horizontal offset) so every
    point shows; a rank whose headline is exactly 0 (the ``estimate``: no BTC, identical scores) is an open marker,
    said in the legend, so a tie at nothing does not read as a finding; the legend sits under the Axes."""
    if kind not in RANK_KINDS:
        raise unknown("rank figure kind", kind, RANK_KINDS)
    if kind == "table":
        return _rank_table(headlines, ax=ax)
    p = preset()
    studies = list(dict.fromkeys(headlines["study"]))
    ax = ax if ax is not None else new_axes(figsize=(min(p.width, 1.1 * len(studies) + 2.6), p.height + 0.3))
    models = sorted(set(headlines["model"]))
    labels, colours, markers = short_labels(models), model_palette(models), model_markers(models)
    table = headlines.pivot_table(index="model", columns="study", values="rank", aggfunc="first").reindex(
        index=models, columns=studies)
    by_rank = list(headlines.groupby("model")["rank"].mean().sort_values(kind="stable").index)
    spans = {c: headlines.pivot_table(index="model", columns="study", values=c, aggfunc="first").reindex(
        index=models, columns=studies) for c in ("rank_low", "rank_high") if c in headlines.columns}
    intervals = len(spans) == 2 and spans["rank_low"].notna().any().any()
    offsets = pd.DataFrame(0.0, index=models, columns=studies)
    if intervals:  # every model its own slot (in the legend's order), so its rank interval shows beside the others
        for k, model in enumerate(by_rank):
            offsets.loc[model, :] = (k - (len(by_rank) - 1) / 2) * min(0.07, 0.6 / max(len(by_rank), 1))
    else:
        for study in studies:
            for _, tied in table[study].dropna().groupby(table[study].dropna()):
                for k, model in enumerate(tied.index):
                    offsets.loc[model, study] = (k - (len(tied) - 1) / 2) * 0.09
    zeros = (headlines.pivot_table(index="model", columns="study", values="estimate", aggfunc="first")
             .reindex(index=models, columns=studies).abs().le(ZERO_TOL) if "estimate" in headlines.columns else None)
    for model in by_rank:  # the legend in the headlines figure's order: by mean rank, most biased first
        x = np.arange(len(studies)) + offsets.loc[model].to_numpy(float)
        ax.plot(x, table.loc[model].to_numpy(float), marker=markers[model], color=colours[model],
                label=labels[model], markersize=4.0, linewidth=1.0)
        if intervals:
            ax.vlines(x, spans["rank_low"].loc[model].to_numpy(float), spans["rank_high"].loc[model].to_numpy(float),
                      color=colours[model], linewidth=0.8, alpha=0.8, zorder=1)
        zero = (zeros.loc[model].to_numpy(bool) if zeros is not None else np.zeros(len(studies), bool))
        if zero.any():  # a rank a headline of exactly 0 gives (no BTC, identical scores): a tie, not a finding
            ax.plot(x[zero], table.loc[model].to_numpy(float)[zero], linestyle="none", marker=markers[model],
                    markersize=4.0, markerfacecolor="white", markeredgecolor=colours[model],
                    markeredgewidth=open_edge(markers[model]),
                    zorder=3)
    ticks = _study_ticks(headlines, studies, room=ax.figure.get_figwidth() * ax.get_position().width)
    ax.set_xticks(range(len(studies)), ticks)
    extra = max(t.count("\n") for t in ticks) - 1  # lines beyond two take height, not the ranks' room
    if extra > 0:
        ax.figure.set_figheight(ax.figure.get_figheight() + extra * p.small_size * 1.3 / 72)
    ax.set_xlim(-0.4, len(studies) - 0.6)
    if intervals:
        ax.set_xlabel("each model in its own slot; tied models share their mean rank; bars: "
                      f"{_percent(_level(headlines))} interval of the rank (each study's units resampled, per model)")
    elif (offsets.to_numpy() != 0).any():
        ax.set_xlabel("tied models share their mean rank, set side by side")
    top = max(int(np.ceil(np.nanmax(table.to_numpy(float)))), len(models)) if table.notna().any().any() else 1
    ax.set_yticks(range(1, top + 1))
    ax.set_ylim(top + 0.5, 0.5)
    ax.set(title="Rank by study (1 = most biased)", ylabel="rank")
    handles, texts = ax.get_legend_handles_labels()
    if zeros is not None and zeros.to_numpy(bool).any():
        handles.append(Line2D([], [], linestyle="none", marker="o", markersize=4.0, markerfacecolor="white",
                              markeredgecolor="0.3", markeredgewidth=1.0))
        texts.append(ZERO_KEY)
    _legend_outside(ax, handles, texts)
    return ax


def _study_ticks(headlines: pd.DataFrame, studies: list[str], *, room: float) -> list[str]:
    """Each study's tick label in the rank figures: its measure (BTC-SAM's failure as %, as the headlines print it)
    wrapped to ``room`` inches shared by the studies, or its name where the table has no measure."""
    measures = (headlines.drop_duplicates("study").set_index("study")["measure"]
                if "measure" in headlines.columns else pd.Series(dtype=str))
    chars = max(8, int(0.9 * room / max(len(studies), 1) / (0.55 * preset().small_size / 72)))  # 0.55 em a char
    return [_measure_label(str(measures[s]).replace(*PERCENT.get(s, ("", ""))), chars) if s in measures.index
            else NAMES.get(s, s) for s in studies]


def _rank_text(rank: float, low: float, high: float) -> str:
    """A rank over its interval, whole ranks without decimals (6.5 for a tie): ``3\n[2–6]``; ``[3]`` where the
    interval is the rank itself."""
    if not (np.isfinite(low) and np.isfinite(high)):
        return f"{rank:g}"
    return f"{rank:g}\n[{low:g}]" if low == high else f"{rank:g}\n[{low:g}–{high:g}]"


def _rank_table(headlines: pd.DataFrame, *, ax: Axes | None = None) -> Axes:
    """:func:`agreement_ranks` as a table: a row per model (by mean rank, most biased at the top, as the headlines
    figure), a column per study named by its measure, each cell the rank over its 95 % interval (``rank_low``/
    ``rank_high``), shaded by the headline as a share of the study's largest (dark: the largest; round 15 readers
    found rank shading dark for a rate of 0.001 ranked 4th; by rank where the table has no ``estimate``); a rank
    whose headline is exactly 0 says ``(= 0)`` and is hatched, a tie at nothing rather than a finding."""
    p = preset()
    studies = list(dict.fromkeys(headlines["study"]))
    models = list(headlines.groupby("model")["rank"].mean().sort_values(kind="stable").index)
    def pivot(column: str) -> pd.DataFrame:
        return headlines.pivot_table(index="model", columns="study", values=column, aggfunc="first").reindex(
            index=models, columns=studies)

    ranks = pivot("rank")
    lows, highs = ((pivot("rank_low"), pivot("rank_high")) if {"rank_low", "rank_high"} <= set(headlines.columns)
                   else (ranks * np.nan, ranks * np.nan))
    zeros = pivot("estimate").abs().le(ZERO_TOL) if "estimate" in headlines.columns else ranks.isna() & False
    text = pd.DataFrame([[_rank_text(ranks.loc[m, s], lows.loc[m, s], highs.loc[m, s]) +
                          (" (= 0)" if zeros.loc[m, s] else "") if np.isfinite(ranks.loc[m, s]) else ""
                          for s in studies] for m in models], index=models, columns=studies)
    if ax is None:
        ax = new_axes(figsize=(p.width, min(p.max_height, 0.36 * len(models) + 1.4)))
    by_size = "estimate" in headlines.columns
    if by_size:  # the headline over the study's largest: rank 4 at 0.001 beside 0.97 is light, not dark
        sizes = pivot("estimate").abs()
        with np.errstate(invalid="ignore", divide="ignore"):
            shade = sizes / sizes.max(axis=0).where(sizes.max(axis=0) > ZERO_TOL)
        shade = shade.fillna(0.0).where(ranks.notna())
        sns.heatmap(shade.astype(float), annot=text, fmt="", vmin=0, vmax=1, cmap="rocket_r",
                    cbar_kws={"label": "headline ÷ the study's largest", "shrink": 0.8, "ticks": [0, 0.5, 1]},
                    annot_kws={"fontsize": p.small_size}, linewidths=0.6, linecolor="white", ax=ax)
    else:
        sns.heatmap(ranks.astype(float), annot=text, fmt="", vmin=1, vmax=max(len(models), 2), cmap="rocket",
                    cbar=False, annot_kws={"fontsize": p.small_size}, linewidths=0.6, linecolor="white", ax=ax)
    _readable_annotations(ax)
    for i, model in enumerate(models):
        for j, study in enumerate(studies):
            if zeros.loc[model, study]:
                ax.add_patch(Rectangle((j, i), 1, 1, fill=False, hatch="////", edgecolor="0.85", linewidth=0))
    ax.set_xticks([j + 0.5 for j in range(len(studies))],
                  _study_ticks(headlines, studies, room=ax.figure.get_figwidth() * 0.7), rotation=0)
    ax.set_yticks([i + 0.5 for i in range(len(models))], list(short_labels(models).values()), rotation=0)
    ax.tick_params(length=0)
    intervals = bool(lows.notna().to_numpy().any())  # an older table has none: no words for what is not drawn
    ax.set(title="Rank by study (1 = most biased)" + (f", {_percent(_level(headlines))} interval in brackets"
                                                      if intervals else ""),
           xlabel="", ylabel="")
    notes = ["the number: the rank; the shade: the headline's size within its study (the colour bar)" if by_size
             else "darker: more biased", "tied models share their mean rank"]
    if intervals:
        notes.append("interval: the rank over the study's resampled units, per model")
    if zeros.to_numpy().any():
        notes.append("(= 0), hatched: headline exactly 0, tied with any other 0")
    _note_below(ax, "; ".join(notes))
    _caption_only(ax, _headline_words(headlines["study"]))
    return ax


def _interval_words(tau: pd.DataFrame, *, alpha: float) -> str:
    """What the τ figure's brackets are: the bootstrap interval's level and, where it is simultaneous
    (``ci_level`` > 1 − alpha), the pairs it is simultaneous over; a table without ``ci_level`` (an older CSV) was
    unadjusted, and says so."""
    levels = tau["ci_level"].dropna() if "ci_level" in tau.columns else pd.Series(dtype=float)
    level = float(levels.max()) if len(levels) else 1 - alpha
    resampled = "bootstrap interval (models and each study's units resampled)"
    if level > 1 - alpha + 1e-9:
        m = round(alpha / (1 - level))
        return (f"brackets: {100 * level:.3g}\u00a0% {resampled}, simultaneous over the {m} pairs (Bonferroni: "
                f"1 − {alpha:g}/{m})")
    return (f"brackets: {100 * (1 - alpha):g}\u00a0% {resampled}, not adjusted, descriptive: it can exclude 0 where the "
            "p does not reach alpha")


@_styled
def agreement_headlines(headlines: pd.DataFrame) -> Axes:
    """The values behind the ranks: each study's headline per model with its percentile interval over the study's
    own units (:func:`toolkit.studies.agreement.agreement`'s ``headlines``), one panel per study on its own scale
    (named by its measure), the models in one order in every panel (by their mean rank over the studies, most
    biased at the top) in their colours and markers, named on the axis and keyed in one legend as in the rank
    figure; a headline of exactly 0 (no BTC, identical scores) is drawn open, keyed as in the rank figure
    (:data:`ZERO_KEY`; round 12 read minilm's 0.005 and the zeros beside it as one tie); each panel's title says
    what its interval resamples (:data:`RESAMPLED`).
    A panel where one unit holds over half a model's weight
    (``top_unit_share`` > :data:`DOMINANT`) marks its axis † and says so in a footnote over the key (as the EEC's *,
    :func:`_folded_note`). One new Figure; returns its first panel."""
    missing = [c for c in ("study", "model", "estimate", "ci_low", "ci_high", "rank") if c not in headlines.columns]
    if missing or headlines.empty:
        raise InputError(f"cannot draw the headlines: the table is empty or lacks {', '.join(missing)}.",
                         fix="pass toolkit.studies.agreement.agreement(...).headlines (agreement_headlines.csv).")
    studies = list(dict.fromkeys(headlines["study"]))
    ranks = headlines.groupby("model")["rank"].mean().sort_values(kind="stable")
    models = list(ranks.index)
    labels, colours, markers = short_labels(models), model_palette(models), model_markers(models)
    figure, axes = _grid(len(studies), panel_width=2.6)
    height = min(preset().max_height, max(figure.get_figheight(), (0.5 + 0.16 * len(models)) *
                                          len({ax.get_subplotspec().rowspan.start for ax in axes}) + 0.9))
    figure.set_figheight(height)
    zeros, notes = False, []
    for ax, study in zip(axes, studies):
        rows = headlines[headlines["study"] == study].set_index("model").reindex(models)
        scale = 100.0 if study in PERCENT else 1.0
        for y, model in enumerate(models):
            est, low, high = (scale * float(rows.loc[model, c]) for c in ("estimate", "ci_low", "ci_high"))
            if not np.isfinite(est):
                continue
            err = [[max(est - low, 0.0)], [max(high - est, 0.0)]] if np.isfinite(low) and np.isfinite(high) else None
            zero = abs(est) <= ZERO_TOL  # no BTC, identical scores: open, as the rank figure draws the tie it gives
            zeros |= zero
            ax.errorbar([est], [y], xerr=err, fmt=markers[model], color=colours[model], markersize=4,
                        elinewidth=0.9, capsize=1.5,
                        **({"markerfacecolor": "white", "markeredgewidth": open_edge(markers[model])} if zero else {}))
        ax.set_yticks(range(len(models)), [labels[m] for m in models])
        ax.set_ylim(len(models) - 0.5, -0.5)
        measure = str(rows["measure"].dropna().iloc[0]) if "measure" in rows and rows["measure"].notna().any() \
            else NAMES.get(study, study)
        if study in PERCENT:
            measure = measure.replace(*PERCENT[study])
        share = rows["top_unit_share"].max() if "top_unit_share" in rows else np.nan
        if np.isfinite(share) and share > DOMINANT:  # the ratio of sums rests on one unit: its interval says so
            unit = UNITS.get(study, "unit")
            measure += DOMINANT_MARK
            notes.append(f"{DOMINANT_MARK} {NAMES.get(study, study)}: one {unit} holds up to {100 * share:.0f}\u00a0% "
                         f"of a model's {WEIGHT.get(study, 'weight')}, so resampling {unit}s gives a wide CI")
        if "ci_method" in rows and rows["ci_method"].eq("folded").any():
            measure += FOLDED_MARK
            notes.insert(0, _folded_note(level=_level(rows), parts=_parts(rows)))
        if study in POOLED:
            measure += f"\n({POOLED[study]})"
        gap = " " if preset().double else "\n"  # narrow panels: the brackets on a line of their own, in every panel
        resampled = f"{gap}({RESAMPLED[study]})" if study in RESAMPLED else ""
        ax.set(xlabel=measure, ylabel="", title=NAMES.get(study, study) + resampled)
        ax.axvline(0.0, color="0.6", linewidth=0.6, zorder=0)
        if ax.get_subplotspec().colspan.start > 0:  # the right column: the names are on the left panel's axis
            ax.tick_params(labelleft=False)
    folded = "ci_method" in headlines.columns and headlines["ci_method"].eq("folded").any()
    level = f"{_percent(_level(headlines))} bootstrap CIs over the units in each panel's title"  # round 24: "in
    # brackets" read as cryptic
    if folded:  # the studies whose interval holds at least the level
        said = ", ".join(NAMES.get(s, s) for s in headlines.loc[headlines["ci_method"].eq("folded"), "study"].unique())
        level += f" ({said}{FOLDED_MARK}: conservative)"
    figure.suptitle(f"Each study's headline per model,\n{level}" if folded or not preset().double else
                    f"Each study's headline per model, {level}", fontsize=preset().title_size)
    for model in models:  # the key: each model filled, in the panels' order (an open zero keys no model)
        axes[0].plot([], [], linestyle="none", marker=markers[model], color=colours[model], markersize=4,
                     label=labels[model])
    if zeros:
        axes[0].plot([], [], linestyle="none", marker="o", markersize=4.0, markerfacecolor="white",
                     markeredgecolor="0.3", label=ZERO_KEY)
    _note_below(axes[0], "\n".join(notes))  # the footnotes: _figure_legend sets them over the key's entries
    _caption_only(axes[0], _headline_words(studies))
    _figure_legend(figure, axes)  # the rank figure's colours and markers, keyed as there
    return axes[0]


def _level(rows: pd.DataFrame) -> float:
    """The headline intervals' level: the table's ``ci_level`` (an older CSV without it was drawn at 95 %)."""
    levels = rows["ci_level"].dropna() if "ci_level" in rows.columns else pd.Series(dtype=float)
    return float(levels.iloc[0]) if len(levels) else 0.95


def _parts(rows: pd.DataFrame) -> int:
    """The signed parts a ``folded`` interval averages: the table's ``ci_parts`` (an older CSV: the EEC's 2)."""
    parts = rows.loc[rows["ci_method"].eq("folded"), "ci_parts"].dropna() if "ci_parts" in rows.columns else []
    return int(parts.iloc[0]) if len(parts) else 2
