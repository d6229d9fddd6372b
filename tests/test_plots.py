import matplotlib.pyplot as plt
import pytest

from toolkit import plots
from toolkit.errors import InputError
from toolkit.scoring import score
from toolkit.studies import eec


@pytest.fixture(scope="module")
def study(eec_cases):
    scored = score(eec_cases, models=["py:synthetic_models:female_plus", "py:synthetic_models:blind"], cache=False)
    return eec.pairs(scored, attribute="gender"), eec.ttests(scored, subsets=["all"])


def test_eec_box_plot_follows_the_given_order_and_colours_groups(study):
    pairs, tests = study
    order = ["py:synthetic_models:blind", "py:synthetic_models:female_plus"]
    ax = plots.eec_deltas(pairs, tests, attribute="gender", order=order)
    assert [t.get_text() for t in ax.get_xticklabels()] == order
    assert {t.get_text() for t in ax.get_legend().get_texts()} == {"F=M not significant", "F↑–M↓ significant"}
    plt.close(ax.figure)


def test_eec_box_plot_rejects_an_order_missing_a_model(study, tmp_path):
    pairs, tests = study
    with pytest.raises(InputError, match="permutation"):
        plots.eec_deltas(pairs, tests, attribute="gender", order=["py:synthetic_models:blind"])
    ax = plots.eec_deltas(pairs, tests, attribute="gender")
    path = plots.save(ax, tmp_path / "sub" / "box.png")
    assert path.stat().st_size > 1000
    plt.close(ax.figure)


def test_eec_task_box_plots_order_systems_by_pearson_best_first(eec_cases):
    models = ["py:synthetic_models:anger_female_plus", "py:synthetic_models:fear_blind",
              "py:synthetic_models:female_plus", "py:synthetic_models:blind"]
    scored = score(eec_cases, models=models, cache=False)
    pairs, tests = eec.pairs(scored, attribute="gender"), eec.ttests(scored, subsets=["all"])
    pearson = {"py:synthetic_models:female_plus": 0.4, "py:synthetic_models:blind": 0.7,
               "py:synthetic_models:anger_female_plus": 0.5}
    axes = plots.eec_task_deltas(pairs, tests, attribute="gender", pearson=pearson)
    assert len(axes) == 3 and len({id(ax.figure) for ax in axes}) == 1
    ticks = [[t.get_text() for t in ax.get_xticklabels()] for ax in axes]
    assert ticks == [["py:synthetic_models:anger_female_plus"], ["py:synthetic_models:fear_blind"],
                     ["py:synthetic_models:blind", "py:synthetic_models:female_plus"]]  # valence: 0.7 before 0.4
    assert [ax.get_title().split(":")[0] for ax in axes] == ["anger", "fear", "valence"]
    assert not plt.get_fignums()  # a matplotlib.figure.Figure, not a pyplot figure
