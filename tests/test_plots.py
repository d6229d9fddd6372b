import matplotlib.pyplot as plt
import pandas as pd
import pytest

from toolkit import plots
from toolkit.errors import InputError
from toolkit.scoring import score
from toolkit.studies.biasfinder import figures as biasfinder_figures
from toolkit.studies.btcsam import figures as btcsam_figures
from toolkit.studies.eec import analysis as eec
from toolkit.studies.eec import figures as eec_figures
from toolkit.studies.psa import figures as psa_figures


@pytest.fixture(scope="module")
def study(eec_cases):
    scored = score(eec_cases, models=["py:synthetic_models:female_plus", "py:synthetic_models:blind"], cache=False)
    return eec.pairs(scored, attribute="gender"), eec.ttests(scored, subsets=["all"])


def test_eec_box_plot_follows_the_given_order_and_colours_groups(study):
    pairs, tests = study
    order = ["py:synthetic_models:blind", "py:synthetic_models:female_plus"]
    ax = eec_figures.eec_deltas(pairs, tests, attribute="gender", order=order)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["blind", "female_plus"]  # short labels, in order
    legend = ax.get_legend() or ax.figure.legends[0]
    # blind: its diamond, explained; its group ("F=M not significant") draws no box, so it has no box key
    assert {t.get_text() for t in legend.get_texts()} == {"F↑–M↓ significant", "all Δ = 0", "mean Δ", "F, M: female, male"}
    assert legend.get_title().get_text().startswith("colour: the EEC paper's paired t-test")  # which test colours
    plt.close(ax.figure)


def test_eec_box_plot_rejects_an_order_missing_a_model(study, tmp_path):
    pairs, tests = study
    with pytest.raises(InputError, match="permutation"):
        eec_figures.eec_deltas(pairs, tests, attribute="gender", order=["py:synthetic_models:blind"])
    ax = eec_figures.eec_deltas(pairs, tests, attribute="gender")
    path = plots.save(ax, tmp_path / "sub" / "box.png")
    assert path.stat().st_size > 1000
    plt.close(ax.figure)


def _assert_pyplot_free(ax):
    assert plt.get_fignums() == []
    assert ax.figure.canvas.manager is None  # a pyplot figure has a manager; ours belongs to the caller


def test_every_plot_draws_on_a_figure_pyplot_does_not_manage(study, tmp_path):
    from toolkit.studies.btcsam import analysis as btcsam_study
    from toolkit.studies.psa import analysis as psa_study
    from toolkit.studies.psa.generator import load_names

    plt.close("all")
    pairs, tests = study
    axes = [eec_figures.eec_deltas(pairs, tests, attribute="gender")]
    names = load_names(None).head(6)
    sens = names.assign(model="m", corpus="c", score_sens=[0.1, -0.2, 0.0, 0.3, 0.2, -0.1], n_texts=3)
    sens = sens.assign(score_sens_low=sens["score_sens"] - 0.05, score_sens_high=sens["score_sens"] + 0.05)
    axes.append(psa_figures.psa_score_sens(sens.loc[:, list(psa_study.NAME_COLUMNS)]))
    axes.append(psa_figures.psa_label_dist(pd.DataFrame({"model": ["m", "m"], "corpus": ["c", "c"], "threshold": [0.4, 0.6],
                                                   "label_dist": [0.1, 0.2]})))
    detection = pd.DataFrame({"test_set": ["a", "a", "b"], "bias_type": ["race", "sexual orientation", "race"],
                              "theta": 0.2, "n_cases": 3, "n_models": 2, "detection_probability": [0.1, 0.5, 0.9]})
    axes.append(btcsam_figures.btcsam_heatmap(detection.loc[:, list(btcsam_study.DETECTION_COLUMNS)]))
    axes.append(biasfinder_figures.biasfinder_btcs(pd.DataFrame({"model": ["m", "n"], "attribute": ["gender", "gender"],
                                                    "templates": 1, "mutants": 2, "templates_with_btc": 1,
                                                    "btcs": [3, 4]})))
    for ax in axes:
        _assert_pyplot_free(ax)
    heatmap = axes[3]
    assert heatmap.get_title() and [t.get_text() for t in heatmap.get_xticklabels()] == ["race", "sexual\norientation"]
    assert {t.get_rotation() for t in heatmap.get_yticklabels()} == {0.0}
    path = plots.save(axes[0], tmp_path / "box.png")
    assert path.with_suffix(".pdf").read_bytes()[:4] == b"%PDF" and plt.get_fignums() == []
    assert plots.png(axes[1])[:8] == b"\x89PNG\r\n\x1a\n"


def test_score_sens_uses_one_colour_per_category_and_explains_a_flat_model():
    from toolkit.studies.psa.generator import load_names

    names = load_names(None)
    colours = {}
    for model, values in (("a", range(len(names))), ("b", range(len(names), 0, -1))):
        frame = names.assign(model=model, corpus="c", score_sens=[v / 100 for v in values], n_texts=1)
        ax = psa_figures.psa_score_sens(frame)
        legend = ax.get_legend() or ax.figure.legends[0]
        colours[model] = {t.get_text(): tuple(h.get_facecolor()) for t, h in
                          zip(legend.get_texts(), legend.legend_handles) if t.get_text() in set(names["category"])}
    assert colours["a"] == colours["b"]
    flat = psa_figures.psa_score_sens(names.assign(model="flat", corpus="c", score_sens=0.0, n_texts=1))
    shown = [t.get_text() for t in flat.texts] + [flat.get_xlabel()]  # a note, or under the axis in one column
    assert any("same score" in " ".join(text.split()) for text in shown)


def test_eec_task_box_plots_order_systems_by_pearson_best_first(eec_cases):
    models = ["py:synthetic_models:anger_female_plus", "py:synthetic_models:fear_blind",
              "py:synthetic_models:female_plus", "py:synthetic_models:blind"]
    scored = score(eec_cases, models=models, cache=False)
    pairs, tests = eec.pairs(scored, attribute="gender"), eec.ttests(scored, subsets=["all"])
    pearson = {"py:synthetic_models:female_plus": 0.4, "py:synthetic_models:blind": 0.7,
               "py:synthetic_models:anger_female_plus": 0.5}
    axes = eec_figures.eec_task_deltas(pairs, tests, attribute="gender", pearson=pearson)
    assert len(axes) == 3 and len({id(ax.figure) for ax in axes}) == 1
    ticks = [[t.get_text() for t in ax.get_xticklabels()] for ax in axes]
    assert ticks == [["anger_female_plus"], ["fear_blind"], ["blind", "female_plus"]]  # valence: 0.7 before 0.4
    assert [ax.get_title() for ax in axes] == ["anger: by Pearson r, best first", "fear: by mean Δ",
                                               "valence: by Pearson r, best first"]  # fear_blind has no r
    assert not plt.get_fignums()  # a matplotlib.figure.Figure, not a pyplot figure


def test_a_one_task_eec_figure_has_one_legend_not_two_drawn_over_each_other():
    from toolkit.studies import eec

    result = eec.run(models=["afinn", "vader"], subsets=["all"], cache=False, progress=False, n_boot=100)
    for name, ax in result.figures(subset="all").items():
        figure = ax.figure
        assert len(figure.legends) == 1, name  # the panel's own legend is gathered into the figure's, not added
        texts = [t.get_text() for t in figure.legends[0].get_texts()]
        assert len(texts) == len(set(texts)), name
