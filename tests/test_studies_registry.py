"""The study registry (toolkit.studies): every study is one package, registered by name, with its settings checked once
and one result type; fronts (the command line, toolkit.audit) iterate over the registry, so a study added as one
package elsewhere appears in them without touching anything else."""
from __future__ import annotations

import dataclasses
import importlib
import pkgutil
import sys
import textwrap

import pandas as pd
import pytest

import toolkit
from toolkit import studies
from toolkit.errors import InputError, UnknownNameError
from toolkit.studies import stats_frame
from toolkit.studies.base import Study
from toolkit.studies.result import StudyResult

STUDIES = ("agreement", "biasfinder", "btcsam", "eec", "psa")


def test_studies_registry_finds_every_study_package():
    assert set(STUDIES) <= set(studies.names())
    for name in STUDIES:
        study = studies.get(name)
        assert isinstance(study, Study) and study.name == name and study.title and study.paper


def test_studies_registry_unknown_study_is_a_coded_error_listing_the_studies():
    with pytest.raises(UnknownNameError) as excinfo:
        studies.get("eecc")
    assert excinfo.value.code == "TK103" and "eec" in str(excinfo.value) and "biasfinder" in str(excinfo.value)


@pytest.mark.parametrize("name", STUDIES)
def test_studies_registry_no_face_function_hides_a_module_of_the_package(name):
    """``from toolkit.studies.<study> import <module>`` gives the module, never a function of the same name."""
    package = importlib.import_module(f"toolkit.studies.{name}")
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        assert getattr(package, info.name, module) is module, f"{name}.{info.name} is shadowed by a face attribute"


@pytest.mark.parametrize("name, bad, code", [
    ("eec", {"subsets": ("all", "nope")}, "TK103"), ("eec", {"alpha": 0.7}, "TK102"),
    ("psa", {"n": 1}, "TK102"), ("psa", {"thresholds": (0.5, 2.0)}, "TK102"),
    ("biasfinder", {"interval": "wilson"}, "TK103"), ("biasfinder", {"n_boot": 50}, "TK102"),
    ("btcsam", {"rule": "strict"}, "TK103"), ("agreement", {"psa_n": 0}, "TK102"),
])
def test_studies_registry_settings_are_checked_once_when_made(name, bad, code):
    study = studies.get(name)
    with pytest.raises(Exception) as excinfo:
        study.settings(**bad)
    assert getattr(excinfo.value, "code", "") == code
    with pytest.raises(UnknownNameError, match="setting"):
        study.settings(not_a_setting=1)
    with pytest.raises(UnknownNameError, match="size"):
        study.settings(size="huge")


def test_studies_registry_one_default_per_statistics_option():
    """n_boot, alpha, margin and seed have one default across studies (toolkit.stats); the correction is the paper's."""
    defaults = {name: studies.get(name).Settings() for name in STUDIES}
    assert {s.n_boot for s in defaults.values()} == {toolkit.stats.N_BOOT}
    assert {s.alpha for s in defaults.values()} == {toolkit.stats.ALPHA}
    assert {s.margin for s in defaults.values()} == {toolkit.stats.MARGIN}
    assert {s.seed for s in defaults.values()} == {0}
    assert defaults["eec"].correction == "bonferroni" and defaults["biasfinder"].correction == "holm"


def test_studies_registry_settings_replace_checks_again():
    settings = studies.get("eec").settings(size="quick")
    assert settings.subsets == ("all",)
    assert settings.replace(alpha=0.01).alpha == 0.01
    with pytest.raises(InputError):
        settings.replace(alpha=2.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.alpha = 0.1  # type: ignore[misc]


@pytest.fixture(scope="module")
def lexicon_results() -> dict[str, StudyResult]:
    """Each study run once on two lexicons at the quick size (BTC-SAM on the toolkit's EEC set)."""
    models = ["vader", "afinn"]
    out = {name: studies.get(name).run(models=models, size="quick", cache=False, progress=False, n_boot=100)
           for name in ("eec", "psa", "biasfinder")}
    eec_set = studies.get("btcsam").module.as_test_set(studies.get("eec").cases(), name="eec")
    out["btcsam"] = studies.get("btcsam").run(models=models, sets={"eec": eec_set}, cache=False, progress=False)
    return out


@pytest.mark.parametrize("name", ("eec", "psa", "biasfinder", "btcsam"))
def test_studies_registry_every_study_returns_the_one_result_type(lexicon_results, name):
    result = lexicon_results[name]
    assert type(result) is StudyResult and result.study == name and result.models == ["vader", "afinn"]
    assert isinstance(result.settings, studies.get(name).Settings)
    assert result.provenance.settings["study"] == name and set(result.provenance.fingerprints) == {"vader", "afinn"}
    tables = result.tables()
    assert tables and all(stem.startswith(f"{name}_") for stem in tables)
    assert all(isinstance(t, pd.DataFrame) for t in tables.values())
    figures = result.figures()
    assert figures and all(stem.startswith(f"{name}_") for stem in figures)
    stats = result.stats
    assert tuple(stats.columns) == stats_frame.COLUMNS and len(stats) and set(stats["study"]) == {name}
    numbered = stats["estimate"].notna()
    assert ((stats["verdict"] != "") | (stats["reason"] != ""))[numbered].all()  # every number is judged or excused
    judged = stats[stats["verdict"] != ""]
    assert (judged["conclusion"] != "").all()  # every verdict also as a sentence, its groups named
    assert not judged["conclusion"].isin(["a higher", "b higher"]).any()
    sides = judged[judged["verdict"].isin(["a higher", "b higher"])]
    groups = studies.get(name).verdict_groups
    names = {g.a for g in (groups.values() if isinstance(groups, dict) else [groups])}
    assert all(any(n in text for n in names) for text in sides["conclusion"])


def test_studies_registry_equivalence_margins_are_on_the_estimates_scale(lexicon_results):
    """A verdict's margin (±m) and the row's estimate and interval share one scale: an "equivalent within ±m" row's
    95 % interval lies within about ±m (TOST's 90 % interval lies inside it; the 95 % one at most 1.2 times wider).
    BTC-SAM's summary printed percentage points beside a margin on the 0-1 scale."""
    from toolkit import verdicts

    checked = 0
    for name, result in lexicon_results.items():
        stats = result.stats
        equivalent = stats[stats["verdict"].map(verdicts.kind) == "equivalent"]
        for _, row in equivalent.iterrows():
            margin = float(verdicts.margin_of(row["verdict"]).lstrip("±"))
            assert max(abs(row["ci_low"]), abs(row["ci_high"])) <= 1.2 * margin, (name, row.to_dict())
            checked += 1
        if name == "btcsam":
            assert len(equivalent), "the lexicons' BTC-SAM rows hold an equivalence verdict to check"
    assert checked


def test_studies_registry_result_attributes_name_what_exists(lexicon_results):
    result = lexicon_results["eec"]
    assert result.tests is result.frames["tests"] and result.alpha == result.settings.alpha
    assert isinstance(result.pearson, dict)
    with pytest.raises(AttributeError, match="pairs, pearson, summary, tests"):
        result.not_a_table


def test_studies_registry_write_and_report_hold_every_table_and_the_provenance(lexicon_results, tmp_path):
    import json

    result = lexicon_results["psa"]
    written = {p.name for p in result.write(tmp_path / "psa", figures_dir=tmp_path / "psa", report=True)}
    assert {f"{stem}.csv" for stem in result.tables()} <= written and "provenance.json" in written
    record = json.loads((tmp_path / "psa" / "provenance.json").read_text())
    assert record["settings"] == json.loads(json.dumps(dict(result.provenance.settings), default=str)) | {
        k: record["settings"][k] for k in ("csv_formula_guard", "figure_presets")}
    page = result.report(tmp_path / "psa.html").read_text(encoding="utf-8")
    assert "psa_stats" in page and "psa_gender" in page


def test_studies_registry_agreement_reads_results_already_run(lexicon_results):
    with pytest.raises(InputError, match="a ranking needs 3"):  # two models: no ranking to compare
        studies.get("agreement").module.from_results(lexicon_results)


TOY = '''
"""A toy study added as one package: a sentence with a name, the score's mean per group."""
from dataclasses import dataclass

import pandas as pd

from toolkit.checks import model_list
from toolkit.scoring import score
from toolkit.studies import register, stats_frame
from toolkit.studies.base import Settings, Study
from toolkit.studies.result import Provenance, StudyResult


@dataclass(frozen=True)
class ToySettings(Settings):
    pass


@register
class Toy(Study):
    name = "toy"
    title = "A toy study"
    paper = "none"
    Settings = ToySettings

    def execute(self, *, models, settings, cache, progress):
        cases = pd.DataFrame({"case_id": ["c", "c"], "variant_id": ["c:f", "c:m"], "text": ["Mary is here.",
                              "John is here."], "attribute": "gender", "group": ["female", "male"],
                              "fill": ["Mary", "John"], "generator": "toy", "template": "{name} is here.",
                              "is_original": False})
        scored = score(cases, models=model_list(models), cache=cache, progress=progress)
        means = scored.groupby(["model", "group"])["score"].mean().unstack().reset_index()
        return StudyResult(study="toy", models=list(dict.fromkeys(scored["model"])), scored=scored,
                           frames={"means": means}, settings=settings,
                           provenance=Provenance(study="toy", settings={"study": "toy"}))

    def conclusions(self, result):
        means = result.means
        return stats_frame.frame(pd.DataFrame({"model": means["model"], "attribute": "gender",
                                               "estimate": means["female"] - means["male"],
                                               "reason": "one sentence: no interval"}), study="toy")
'''


@pytest.fixture
def toy_study(tmp_path, monkeypatch):
    """A study package written outside the toolkit and put on the registry's search path: nothing else changes."""
    folder = tmp_path / "extra_studies"
    (folder / "toy").mkdir(parents=True)
    (folder / "toy" / "__init__.py").write_text(textwrap.dedent(TOY))
    monkeypatch.setattr(studies, "__path__", [*studies.__path__, str(folder)])
    yield studies.get("toy")
    studies._REGISTRY.pop("toy", None)
    sys.modules.pop("toolkit.studies.toy", None)


def test_studies_registry_a_new_study_appears_in_every_front_by_touching_only_its_package(toy_study, tmp_path,
                                                                                          capsys):
    from toolkit.__main__ import main

    assert "toy" in studies.names() and toy_study.name == "toy"
    audit = toolkit.audit(models=["vader"], studies=["toy"], cache=False, progress=False)
    assert list(audit.summary["study"]) == ["toy"] and audit.summary["reason"].iloc[0] == "one sentence: no interval"
    assert main(["toy", "--model", "vader", "--out", str(tmp_path / "toy"), "--no-cache"]) == 0
    assert (tmp_path / "toy" / "toy_means.csv").is_file() and (tmp_path / "toy" / "provenance.json").is_file()
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "toy" in capsys.readouterr().out
