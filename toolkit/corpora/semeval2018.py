"""SemEval-2018 Task 1 "Affect in Tweets" (Mohammad et al. 2018), English EI-reg and V-reg, as one tidy frame.

Columns :data:`COLUMNS`: ``id`` (the tweet's ID as a string), ``text``, ``task`` (anger, fear, joy, sadness —
emotion-intensity regression — or valence), ``intensity`` (the gold score in [0, 1]; NaN in files without gold),
``split`` (train, dev, test-gold, test, …).

Files: the official tab-separated format with the header ``ID, Tweet, Affect Dimension, Intensity Score``; also the
same four columns without a header and with bare numeric IDs (older copies). The task comes from the file's
``Affect Dimension`` column (``valence`` for V-reg files; older files say e.g. ``anger``), the split from the file
name (``EI-reg-En-anger-train.txt``, ``Valence-reg-En-test-gold.txt``) unless given.

>>> load("../shared/data/semeval2018/EI-reg-En-anger-train.txt")
>>> load_dir("../shared/data/semeval2018", tasks=["anger"])      # train, dev and test-gold of anger

Online users may also read the Hugging Face hub copy with :func:`load_hub` (needs ``datasets`` and the network).
Cite the task paper: Mohammad, Bravo-Marquez, Salameh & Kiritchenko (2018), SemEval-2018 Task 1: Affect in Tweets.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from toolkit.cases import TASKS
from toolkit.errors import InputError, MissingDependencyError, SchemaError, unknown

COLUMNS = ("id", "text", "task", "intensity", "split")
HEADER = ("ID", "Tweet", "Affect Dimension", "Intensity Score")
SPLITS = ("train", "dev", "test-gold")
LANGUAGES = ("en", "es", "ar")
"""The task's languages: English files are ``EI-reg-En-…``; the Spanish and Arabic release names them
``2018-EI-reg-Es-…`` and ``2018-EI-reg-Ar-…``."""
_NAME = re.compile(r"^(?:2018-)?(?:EI-reg-(?:En|Es|Ar)-(?P<emotion>anger|fear|joy|sadness)|Valence-reg-(?:En|Es|Ar))-"
                   r"(?P<split>[a-z-]+)\.txt$", re.IGNORECASE)
_FIX = ("give an official SemEval-2018 Task 1 EI-reg/V-reg file: tab-separated 'ID, Tweet, Affect Dimension, "
        "Intensity Score' (header optional).")


def file_name(task: str, split: str, *, language: str = "en") -> str:
    """The official file name of a task's split: ``EI-reg-En-anger-train.txt``, ``Valence-reg-En-dev.txt``;
    Spanish and Arabic: ``2018-EI-reg-Es-anger-train.txt``, ``2018-Valence-reg-Ar-dev.txt``."""
    if task not in TASKS:
        raise unknown("task", task, TASKS)
    if language not in LANGUAGES:
        raise unknown("SemEval-2018 language", language, LANGUAGES)
    code, prefix = language.capitalize(), "" if language == "en" else "2018-"
    return (f"{prefix}Valence-reg-{code}-{split}.txt" if task == "valence"
            else f"{prefix}EI-reg-{code}-{task}-{split}.txt")


def _task_of(dimension: str, path: Path) -> str:
    value = dimension.strip().lower()
    value = {"v": "valence", "valence": "valence"}.get(value, value)
    if value not in TASKS:
        raise SchemaError(f"{path.name}: unknown affect dimension {dimension!r}; available: {', '.join(TASKS)}.",
                          fix=_FIX)
    return value


def load(path: str | Path, *, split: str | None = None) -> pd.DataFrame:
    """One EI-reg or V-reg file as a frame with :data:`COLUMNS` (see the module docstring).

    Raises TK102 when the file is missing and TK101 when it is not of the format: a row without four tab-separated
    fields, a header that is not the official one, an intensity that is not a number in [0, 1], an unknown affect
    dimension, or rows of more than one dimension.
    """
    path = Path(path).expanduser()
    if not path.is_file():
        raise InputError(f"SemEval-2018 file {str(path)!r} not found.", fix=_FIX)
    with path.open(encoding="utf-8", newline="") as handle:  # line by line: tweets hold quotes csv would misread
        rows = [line.rstrip("\r\n").split("\t") for line in handle if line.strip()]
    if not rows:
        raise SchemaError(f"{path.name} is empty.", fix=_FIX)
    first = [c.strip() for c in rows[0]]
    has_header = first[:1] == ["ID"] or first[:2] == ["ID", "Tweet"]
    if has_header and tuple(first) != HEADER:
        raise SchemaError(f"{path.name}: header {first} is not the official {list(HEADER)}.", fix=_FIX)
    body = rows[1:] if has_header else rows
    bad = next((i for i, r in enumerate(body) if len(r) != 4), None)
    if bad is not None:
        line = bad + 1 + int(has_header)
        raise SchemaError(f"{path.name}, line {line}: {len(body[bad])} tab-separated fields, expected 4 "
                          f"(ID, Tweet, Affect Dimension, Intensity Score).", fix=_FIX)
    frame = pd.DataFrame(body, columns=list(HEADER))
    score = frame["Intensity Score"].str.strip()
    unscored = score.isin(["NONE", ""])
    intensity = pd.to_numeric(score.where(~unscored), errors="coerce")
    bad_score = (intensity.isna() & ~unscored) | ~(intensity.between(0.0, 1.0) | intensity.isna())
    if bad_score.any():
        i = int(np.flatnonzero(bad_score.to_numpy())[0])
        raise SchemaError(f"{path.name}, line {i + 1 + int(has_header)}: intensity {score.iloc[i]!r} is not a "
                          "number in [0, 1].", fix=_FIX)
    dimensions = frame["Affect Dimension"].unique().tolist()
    tasks = {_task_of(d, path) for d in dimensions}
    if len(tasks) != 1:
        raise SchemaError(f"{path.name} mixes affect dimensions {sorted(tasks)}.",
                          fix="give one SemEval-2018 task per file (EI-reg: one emotion; V-reg: valence).")
    if split is None:
        match = _NAME.match(path.name)
        split = match.group("split").lower() if match else path.stem
    ids = frame["ID"].str.strip()
    if ids.duplicated().any():
        raise SchemaError(f"{path.name}: ID {ids[ids.duplicated()].iloc[0]!r} occurs twice.", fix=_FIX)
    return pd.DataFrame({"id": ids, "text": frame["Tweet"], "task": tasks.pop(), "intensity": intensity.astype(float),
                         "split": split}).loc[:, list(COLUMNS)]


def load_dir(root: str | Path, *, tasks: Sequence[str] = TASKS, splits: Sequence[str] = SPLITS,
             language: str = "en") -> pd.DataFrame:
    """Every ``task`` × ``split`` file of one ``language`` under ``root`` (official names, see :func:`file_name`),
    concatenated."""
    root = Path(root).expanduser()
    frames = []
    for task in tasks:
        for split in splits:
            path = root / file_name(task, split, language=language)
            if not path.is_file():
                folder = "semeval2018" if language == "en" else "semeval2018_es_ar"
                raise InputError(f"{path.name} is missing from {str(root)!r}.",
                                 fix=f"point at the folder holding the SemEval-2018 Task 1 EI-reg and V-reg files of "
                                     f"language {language!r} (e.g. ../shared/data/{folder}).")
            frames.append(load(path, split=split))
    return pd.concat(frames, ignore_index=True)


HUB_ID = "sem_eval_2018_task_1"


def load_hub(*, config: str = "subtask5.english", split: str = "train", hub_id: str = HUB_ID) -> pd.DataFrame:
    """The Hugging Face hub copy (needs ``datasets`` and the network; not exercised offline).

    ``sem_eval_2018_task_1`` publishes the E-c subtask (multi-label emotion classification), not the regression
    files: each emotion's 0/1 label becomes one row per tweet and task with that label as ``intensity``, so the
    frame has the same columns; use the official files (:func:`load_dir`) for the EI-reg and V-reg scores.
    """
    try:
        import datasets
    except ImportError as exc:
        raise MissingDependencyError("loading SemEval-2018 from the Hugging Face hub needs 'datasets'.",
                                     fix="pip install datasets, or use load_dir() on the official files.") from exc
    table = datasets.load_dataset(hub_id, config, split=split).to_pandas()
    frames = [pd.DataFrame({"id": table["ID"].astype(str), "text": table["Tweet"], "task": task,
                            "intensity": table[task].astype(float), "split": split})
              for task in TASKS if task in table.columns]
    if not frames:
        raise SchemaError(f"{hub_id}/{config} has none of the columns {', '.join(TASKS)}.", fix=_FIX)
    return pd.concat(frames, ignore_index=True).loc[:, list(COLUMNS)]


__all__ = ["COLUMNS", "LANGUAGES", "SPLITS", "file_name", "load", "load_dir", "load_hub"]
