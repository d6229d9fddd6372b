"""BiasFinder's word lists, as named presets (``lists=`` in every instance, ``--lists`` on the command line).

- ``curated`` (default): this project's lists — male/female noun pairs (``toolkit/resources/gender_nouns.json``),
  first names from Faker's en_US lists used for one gender only, most frequent first, 38 countries × up to 3 first
  names per gender (``country_names.json``) and 79 single-word occupations (``occupations.json``), less every value
  :mod:`.lint` flags (a sentiment of its own, a word-name, the other usual gender: "hero"/"heroine", "Mercy",
  "Wanjiru"; listed in ``record()["excluded"]``). Each list's file says how it was compiled.
- ``paper``: the lists BiasFinder released (Asyrofi et al., IEEE TSE 2021; Apache-2.0, shipped unmodified in
  ``toolkit/resources/biasfinder_paper/`` with its licence and a notice): 11 male/female noun pairs, 30 + 30 US
  first names (released in lower case, filled capitalised: "barbara" → "Barbara"), one first name per country and
  gender for 25 countries, and 79 occupations, some multi-word ("construction worker", "air traffic controller",
  "physician's assistant") and one acronym ("CEO"). These reproduce the paper's Table 4 setting; flagged values
  stay in (the case table's ``fill_flag`` marks their mutants).

The preset is recorded in every run's provenance (:meth:`WordLists.record`: the preset, list sizes and the SHA-256
of each source file).
"""
from __future__ import annotations

import csv
import hashlib
import io
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

import toolkit.studies.biasfinder.generator.rules as registry
from toolkit.errors import unknown
from toolkit.resources import load_json
from toolkit.studies.biasfinder.generator.lint import fill_flags, gender_clash

PRESETS = ("curated", "paper")
_PAPER_FILES = ("gender_nouns.csv", "male_names.csv", "female_names.csv", "country_male_names.csv",
                "country_female_names.csv", "occupations.csv")


@dataclass(frozen=True)
class WordLists:
    """One preset's lists. ``names`` and ``country_names`` are in preference order (a smaller ``n`` takes the
    first ones); ``occupations`` as written in the list (lower case except acronyms)."""

    preset: str
    noun_pairs: tuple[tuple[str, str], ...]  # (male, female), lower case
    names: dict[str, tuple[str, ...]] = field(hash=False)  # gender → first names
    country_names: dict[str, dict[str, tuple[str, ...]]] = field(hash=False)  # country → gender → names
    occupations: tuple[str, ...]
    sources: dict[str, str] = field(hash=False)  # file → SHA-256
    excluded: dict[str, str] = field(hash=False, default_factory=dict)  # value left out → why (:mod:`.lint`)

    def record(self, *, rules: frozenset[str] | None = None) -> dict:
        """What provenance stores: the preset, the list sizes, each source file's SHA-256, what was left out and
        whether coherence rules were applied (``rules``: the active set, :mod:`.rules`; None: all)."""
        rules = registry.DEFAULT if rules is None else rules  # read off the registry when called, once it is full
        return {"preset": self.preset, "noun_pairs": len(self.noun_pairs),
                "names_per_gender": {g: len(v) for g, v in self.names.items()},
                "countries": len(self.country_names), "occupations": len(self.occupations),
                "sources": dict(self.sources), "excluded": dict(self.excluded),
                "coherence_rules": {"applied": bool(rules), **registry.record(rules), "about": COHERENCE_ABOUT,
                                    "sources": _sha({name: _text(name) for name in COHERENCE_FILES})}}


COHERENCE_FILES = ("occupation_senses.json", "gender_nouns.json", "fill_lint.json")
COHERENCE_ABOUT = ("this project's coherence rules (docs/biasfinder_rules.md) reject reviews whose "
                   "mutants would read as altered, under both presets unless coherence='paper' (BiasFinder's own "
                   "generator had none), so templates and mutants are fewer than its run would give")


def _text(name: str) -> str:
    return resources.files("toolkit.resources").joinpath(name).read_text(encoding="utf-8")


def _sha(texts: dict[str, str]) -> dict[str, str]:
    return {name: hashlib.sha256(text.encode("utf-8")).hexdigest() for name, text in texts.items()}


def _curated() -> WordLists:
    from faker.providers.person.en_US import Provider


    female, male = dict(Provider.first_names_female), dict(Provider.first_names_male)
    ranked = {}
    for gender, mine, other in (("female", female, male), ("male", male, female)):
        ranked[gender] = sorted((n for n in mine if n not in other), key=lambda n: (-mine[n], n))
    raw_countries = load_json("country_names")["countries"]
    pairs = [tuple(p) for p in load_json("gender_nouns")["pairs"]]
    raw_occupations = load_json("occupations")["occupations"]
    country_values = [n for entry in raw_countries.values() for g in ("female", "male") for n in entry[g]]
    flags = fill_flags([*ranked["female"], *ranked["male"], *country_values, *raw_occupations,
                        *(word for pair in pairs for word in pair)])
    excluded = {value: why for value, why in flags.items() if why}
    for entry in raw_countries.values():
        for gender in ("female", "male"):
            excluded.update({n: f"usually {'male' if gender == 'female' else 'female'}" for n in entry[gender]
                             if gender_clash(n, gender)})
    names = {g: tuple(n for n in ranked[g] if n not in excluded) for g in ranked}
    countries = {country: {g: tuple(n for n in entry[g] if n not in excluded) for g in ("female", "male")}
                 for country, entry in raw_countries.items()}
    files = {f"{name}.json": _text(f"{name}.json") for name in ("gender_nouns", "country_names", "occupations",
                                                                 "fill_lint")}
    return WordLists(preset="curated", noun_pairs=tuple(p for p in pairs if not set(p) & set(excluded)),
                     names=names, country_names=countries,
                     occupations=tuple(o for o in raw_occupations if o not in excluded), sources=_sha(files),
                     excluded=excluded)


def _paper() -> WordLists:
    files = {name: _text(f"biasfinder_paper/{name}") for name in _PAPER_FILES}
    rows = {name: list(csv.DictReader(io.StringIO(text))) for name, text in files.items()}
    countries: dict[str, dict[str, tuple[str, ...]]] = {}
    for gender in ("female", "male"):
        for row in rows[f"country_{gender}_names.csv"]:
            countries.setdefault(row["country"], {})[gender] = (row["name"],)
    return WordLists(preset="paper",
                     noun_pairs=tuple((r["masculine"].lower(), r["feminine"].lower())
                                      for r in rows["gender_nouns.csv"]),
                     names={g: tuple(r["name"].capitalize() for r in rows[f"{g}_names.csv"])
                            for g in ("female", "male")},
                     country_names=countries, occupations=tuple(r["occupation"] for r in rows["occupations.csv"]),
                     sources=_sha(files))


@cache
def word_lists(preset: str = "curated") -> WordLists:
    """The lists of ``preset`` (one of :data:`PRESETS`; see the module docstring)."""
    if preset not in PRESETS:
        raise unknown("word-list preset", preset, PRESETS)
    return _curated() if preset == "curated" else _paper()


def word_pattern(words: Iterable[str], *, plural: bool = False) -> re.Pattern:
    """Any of ``words`` as a whole word, case-insensitive, the longest first ("physician's assistant" before
    "physician"); ``plural`` also matches an "s"/"es" ending."""
    alternatives = "|".join(map(re.escape, sorted(words, key=len, reverse=True)))
    return re.compile(rf"\b(?:{alternatives})" + (r"(?:s|es)?" if plural else "") + r"\b", re.IGNORECASE)
