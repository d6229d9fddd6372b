from toolkit.studies.eec import drilldown as eec_drilldown
"""The EEC app with a warm score cache, its drill-down answer, and the drill-down pairs old (a per-case loop) vs new
(two merges on case × person), on the offline valence models.

    python benchmarks/bench_app.py [--models vader textblob afinn] [--repeat 3]

Runs in a temporary data folder (its own score cache): one cold app run fills the cache, then ``--repeat`` warm
runs (Run pressed again: every sentence from the cache, the statistics, tables, figures and the drill-down built),
then the drill-down answer (picking another system and attribute in the app's drill-down pickers: the pairs and
the pair browser rebuilt), and ``toolkit.eec_drilldown.eec_pairs`` against the per-case loop it replaced, on the same
result, checked equal. Goal (issue 33): a warm run plus its drill-down answer within 2 s. Last line:
``warm_run_s=… drill_s=… warm_plus_drill_s=… pairs_old_s=… pairs_new_s=… pairs_speedup=…``.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def old_eec_pairs(result, *, model: str, attribute: str) -> pd.DataFrame:
    """The per-case loop ``toolkit.eec_drilldown.eec_pairs`` used before (the obvious alternative, kept here)."""
    from toolkit import drilldown
    from toolkit.studies.eec.analysis import ATTRIBUTES, name_groups

    scored = result.scored
    data = scored[scored["model"].astype(str) == model]
    group_a, group_b = ATTRIBUTES[attribute][:2]
    by_person = {case_id: block.set_index("person") for case_id, block in data.groupby("case_id", sort=True)}
    firsts_a, firsts_b = name_groups(attribute=attribute)
    rows = []
    for case_id, block in by_person.items():
        matches = [(f"{a}/{b}", a, b) for a, b in zip(firsts_a, firsts_b)]
        if attribute == "gender":
            phrases = block[block["np_pair"] != ""]
            for np_pair in dict.fromkeys(phrases["np_pair"]):
                pair = phrases[phrases["np_pair"] == np_pair]
                female, male = pair[pair["gender"] == "female"], pair[pair["gender"] == "male"]
                if len(female) and len(male):
                    matches.append((np_pair, female.index[0], male.index[0]))
        for label, person_a, person_b in matches:
            if person_a not in block.index or person_b not in block.index:
                continue
            a, b = block.loc[person_a], block.loc[person_b]
            rows.append({"key": f"{case_id}|{label}", "model": model, "text_a": a["text"],
                         "text_b": b["text"], "group_a": group_a, "group_b": group_b, "score_a": a["score"],
                         "score_b": b["score"]})
    return drilldown.pairs_frame(rows)


def _timed(fn, repeat: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", nargs="+", default=None, help="default: the offline valence models")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        os.environ["TOOLKIT_DATA"] = folder
        os.environ.setdefault("MPLBACKEND", "Agg")
        from toolkit import drilldown
        from toolkit.apps import eec_app
        from toolkit.models import OFFLINE_DEFAULTS

        models = args.models or list(OFFLINE_DEFAULTS)  # the four offline models, as measured in docs/notebooks.md
        app = eec_app(models=models, cache=True)
        start = time.perf_counter()
        assert app.run(), app.status.value
        cold = time.perf_counter() - start
        warm, _ = _timed(lambda: app.run() or sys.exit(f"warm run failed: {app.status.value}"), args.repeat)
        system, attribute = app.drill.children[1].children  # the drill-down pickers: system, attribute
        picks = [(m, a) for a in ("race", "gender") for m in reversed(list(app.result.models))]

        def answer():  # a user picks another system / attribute: the pairs and the browser are rebuilt
            for m, a in picks:
                system.value, attribute.value = m, a
            return app.drill.children[2].children[0]

        drill_all, _ = _timed(answer, args.repeat)
        drill = drill_all / len(picks)
        result, model = app.result, next(iter(app.result.models))
        for attr in ("gender", "race"):
            pd.testing.assert_frame_equal(old_eec_pairs(result, model=model, attribute=attr),
                                          eec_drilldown.eec_pairs(result, model=model, attribute=attr))
        old, _ = _timed(lambda: old_eec_pairs(result, model=model, attribute="gender"), args.repeat)
        new, _ = _timed(lambda: eec_drilldown.eec_pairs(result, model=model, attribute="gender"), args.repeat)
    print(f"models: {', '.join(models)}; cold app run (cache filled): {cold:.2f} s")
    print(f"warm app run (median of {args.repeat}): {warm:.2f} s; one drill-down answer: {drill:.3f} s")
    print(f"eec_pairs gender, one system (4,320 pairs): per-case loop {old:.3f} s, merges {new:.3f} s "
          f"(equal frames checked)")
    print(f"warm_run_s={warm:.2f} drill_s={drill:.3f} warm_plus_drill_s={warm + drill:.2f} pairs_old_s={old:.3f} "
          f"pairs_new_s={new:.3f} pairs_speedup={old / new:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
