"""Defects of the multilingual EEC corpora, found by rules one can check by hand, counted per corpus and language.

:func:`report` gives one tidy frame (columns :data:`COLUMNS`), a row per check × corpus × language that finds
something:

- ``cells`` — unbalanced cells: per emotion × race × gender (Câmara) or emotion × list (Goldfarb-Tarrant), the rows
  against the language's modal cell (the EEC has 350 per cell; :func:`cells` lists every cell);
- ``emotion words`` — Câmara only (the other release has no word column): one target word standing for two English
  emotion words (``ambiguous word``), one English word written two ways within a gender (``two spellings``);
- ``persons`` — one surface form standing for two persons of a gender list (``ambiguous person``: Japanese 彼女 is
  both "she" and "girlfriend"; the race lists repeat their unmarked member by design and are not counted);
- ``grammar`` — :data:`RULES`, each a regular expression over the sentence (or the person slot) with its reason;
- ``encoding`` — texts not in Unicode NFC (decomposed letters: German *glücklich* as u + U+0308), which a model may
  read otherwise than the composed text;
- ``templates`` — Câmara only: the sentence is not its ``template`` column filled with its person and emotion word
  (spaces normalised; Arabic: the template of the person's gender), so the released template misdescribes it.

Whether a defect is shared by both members of a pair decides whether it can bias a comparison: ``n_units`` counts
the minimal pairs holding it (Goldfarb-Tarrant: the co-indexed pair; Câmara: the noun-phrase pair, or for names the
case, every name of one template × emotion word), ``n_shared`` those where every member has it, ``n_split`` those
where only some do (a defect that splits a pair is confounded with the group).
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

import pandas as pd

from toolkit.errors import SchemaError

COLUMNS = ("source", "language", "kind", "check", "description", "n_rows", "n_units", "n_shared", "n_split",
           "example")
CELL_COLUMNS = ("source", "language", "emotion", "attribute", "race", "gender", "n_rows", "expected", "unbalanced")


@dataclass(frozen=True)
class Rule:
    """A grammar rule: ``name``, the ``languages`` it applies to, a ``pattern`` searched in the text (or the
    person slot when ``on_fill``), and ``reason``."""

    name: str
    languages: tuple[str, ...]
    pattern: str
    reason: str
    on_fill: bool = False


_ARTICLE = r"\b(?:ein|eine|einen|einem|einer|eines|der|die|das|den|dem|des)"
RULES: tuple[Rule, ...] = (
    Rule("uninflected attributive adjective", ("de",),
         _ARTICLE + r"\s+(?:[a-zäöüß]+(?:e|en|er|es|em)\s+)*[a-zäöüß]*[a-zäöüß](?<!e)(?<!en)(?<!er)(?<!es)(?<!em)"
                    r"\s+[A-ZÄÖÜ]\w*",
         "an adjective between an article and its noun takes an ending (-e, -en, -er, -es, -em): 'in eine "
         "irritierende Situation', not 'in eine irritierend Situation'"),
    Rule("comma before the final punctuation", ("de", "es", "ar", "ja", "zh", "en_es", "en_ar"), r",\s*[.!?。]",
         "a comma directly before the full stop ('empört,.')"),
    Rule("comma before the last word", ("de", "es", "en_es", "en_ar"), r",\s+[a-zäöüßáéíóúñ]+[.!?]?$",
         "a comma splitting a participle from its clause ('Ich habe ihn empört, gemacht.')"),
    Rule("double space", ("de", "es", "ar", "ja", "zh", "en_es", "en_ar"), r"\S {2,}\S",
         "two spaces between words"),
    Rule("English word in the sentence", ("de", "es"), r"\bmy\b",
         "the English possessive 'my' in a Spanish or German sentence ('my tio')"),
    Rule("missing contraction", ("es",), r"\b(?:a|de) el\b", "Spanish contracts 'a el' to 'al' and 'de el' to 'del'"),
    Rule("pronoun without its accent", ("es",), r"^el$",
         "the person slot holds the article 'el' where the pronoun 'él' is meant", on_fill=True),
    Rule("detached article", ("ar",), r"(?:^|\s)(?:بال|ال)\s",
         "the Arabic article ال (with ب) is written apart from its noun ('بال عصبيه')"),
    Rule("causative after a dictionary form", ("ja",), r"[うくぐすつぬぶむる]せ[たる]",
         "the causative せる attaches to the a-stem ('むかつかせた'), not to a dictionary form ('嬉しがらせるせた')"),
    Rule("spaces between Chinese words", ("zh",), r"[\u4e00-\u9fff] +[\u4e00-\u9fff]",
         "Chinese is written without spaces between words"),
    Rule("half-width full stop", ("zh",), r"[\u4e00-\u9fff]\.$", "a Chinese sentence ends in '。', not '.'"),
)


def cells(table: pd.DataFrame) -> pd.DataFrame:
    """Rows per emotion × attribute × race × gender of each corpus and language, against the language's modal
    count over the emotion cells (``expected``; neutral cells against the modal neutral cell). Columns
    :data:`CELL_COLUMNS`."""
    _check(table)
    keys = ["source", "language", "emotion", "attribute", "race", "gender"]
    counts = table.groupby(keys, sort=False).size().rename("n_rows").reset_index()
    counts["neutral"] = counts["emotion"] == ""
    counts["expected"] = counts.groupby(["source", "language", "attribute", "neutral"])["n_rows"].transform(
        lambda s: int(s.mode().iloc[0]))
    counts["unbalanced"] = counts["n_rows"] != counts["expected"]
    return counts.loc[:, list(CELL_COLUMNS)]


def report(table: pd.DataFrame) -> pd.DataFrame:
    """The defect report of a multilingual case table (:func:`toolkit.studies.multilingual.corpora.load`); columns
    :data:`COLUMNS`, a row per check that finds something (see the module docstring)."""
    _check(table)
    rows = []
    grid = cells(table)
    for (source, language), block in grid[grid["unbalanced"]].groupby(["source", "language"], sort=False):
        for cell in block.itertuples():
            where = " × ".join(x for x in (cell.emotion or "neutral", cell.attribute, cell.race, cell.gender) if x)
            rows.append({"source": source, "language": language, "kind": "cells", "check": "unbalanced cell",
                         "description": f"{where}: {cell.n_rows} rows, the language's cells have {cell.expected}",
                         "n_rows": int(cell.n_rows), "n_units": 1, "n_shared": 0, "n_split": 0, "example": where})
    for (source, language), block in table.groupby(["source", "language"], sort=False):
        if source == "camara2022":
            rows += _word_defects(block)
            rows += _template_defects(block)
        rows += _person_defects(block)
        decomposed = block["text"].map(lambda t: unicodedata.normalize("NFC", t) != t)
        if decomposed.any():
            rows.append(_defect(block, decomposed, kind="encoding", check="not in Unicode NFC",
                                description="decomposed letters (u + a combining diaeresis for ü): a model may score "
                                            "them otherwise than the same text with composed letters"))
        for rule in RULES:
            if language not in rule.languages:
                continue
            column = block["fill"] if rule.on_fill else block["text"]
            hit = column.str.contains(rule.pattern, regex=True)
            if hit.any():
                rows.append(_defect(block, hit, kind="grammar", check=rule.name, description=rule.reason))
    return pd.DataFrame(rows, columns=list(COLUMNS))


def summary(report_frame: pd.DataFrame) -> pd.DataFrame:
    """Defect counts per corpus × language × kind: checks that found something and the rows they touch."""
    return (report_frame.groupby(["source", "language", "kind"], sort=False)
            .agg(n_checks=("check", "nunique"), n_rows=("n_rows", "sum"), n_split=("n_split", "sum"))
            .reset_index())


def _check(table: pd.DataFrame) -> None:
    need = {"source", "language", "emotion", "attribute", "race", "gender", "text", "fill", "case_id", "pair",
            "side", "emotion_word", "emotion_word_en", "person", "person_en"}
    if missing := sorted(need - set(table.columns)):
        raise SchemaError(f"not a multilingual case table: missing {missing}.",
                          fix="load it with toolkit.studies.multilingual.corpora.load().")


def _defect(block: pd.DataFrame, hit: pd.Series, *, kind: str, check: str, description: str) -> dict:
    """One report row: the rows ``hit`` marks in ``block`` (one corpus and language), the pairs holding them and
    whether every member of each does."""
    hit = hit.reindex(block.index, fill_value=False).astype(bool)
    units, shared, split = _sharing(block, hit)
    return {"source": block["source"].iloc[0], "language": block["language"].iloc[0], "kind": kind, "check": check,
            "description": description, "n_rows": int(hit.sum()), "n_units": units, "n_shared": shared,
            "n_split": split, "example": block.loc[hit, "text"].iloc[0]}


def _units(block: pd.DataFrame) -> pd.Series:
    """The minimal pair each row belongs to: GT's co-indexed pair, Câmara's noun-phrase pair, else (Câmara names)
    the case."""
    pair = block["pair"].where(block["pair"] != "", "names")
    return block["case_id"] + "|" + pair


def _sharing(block: pd.DataFrame, hit: pd.Series) -> tuple[int, int, int]:
    unit = _units(block)
    per_unit = hit.groupby(unit).agg(["any", "all"])
    touched = per_unit[per_unit["any"]]
    return int(len(touched)), int(touched["all"].sum()), int((~touched["all"]).sum())


def _word_defects(block: pd.DataFrame) -> list[dict]:
    rows = []
    words = block[block["emotion_word"] != ""]
    by_word = words.groupby(["gender", "emotion_word"])["emotion_word_en"].unique()
    ambiguous = {key: english for key, english in by_word.items() if len(english) > 1}
    if ambiguous:  # one check for both genders' forms, so a pair whose members both carry it counts as shared
        hit = pd.Series([(g, w) in ambiguous for g, w in zip(words["gender"], words["emotion_word"])],
                        index=words.index)
        described = "; ".join(f"{word!r} ({gender}) stands for {', '.join(sorted(english))}"
                              for (gender, word), english in ambiguous.items())
        rows.append(_defect(block, hit, kind="emotion words", check="ambiguous word", description=described))
    by_english = words.groupby(["gender", "emotion_word_en"])["emotion_word"].unique()
    for (gender, english), spellings in by_english.items():
        if len(spellings) > 1:
            hit = (words["gender"] == gender) & (words["emotion_word_en"] == english)
            minority = hit & (words["emotion_word"] != words.loc[hit, "emotion_word"].mode().iloc[0])
            rows.append(_defect(block, minority, kind="emotion words", check="two spellings",
                                description=f"{english!r} ({gender}) is written {' / '.join(map(repr, spellings))}"))
    return rows


def _filled(template: str, gender: str, person: str, word: str) -> str:
    if template.startswith("{"):  # Arabic: {'m': ..., 'f': ...}, one verb agreement per gender
        forms = dict(re.findall(r"'([mf])':\s*'([^']*)'", template))
        template = forms.get("f" if gender == "female" else "m", template)
    text = template.replace("<p>", person)
    text = re.sub(r"<e[AB]?>", word, text)
    return " ".join(text.split())


def _template_defects(block: pd.DataFrame) -> list[dict]:
    filled = [_filled(t, g, p, w) for t, g, p, w in zip(block["template"], block["gender"], block["fill"],
                                                          block["emotion_word"])]
    hit = pd.Series([f != " ".join(t.split()) for f, t in zip(filled, block["text"])], index=block.index)
    if not hit.any():
        return []
    example = block.loc[hit].iloc[0]
    return [_defect(block, hit, kind="templates", check="sentence differs from template",
                    description=f"e.g. template {example['template']!r} but sentence {example['text']!r}")]


def _person_defects(block: pd.DataFrame) -> list[dict]:
    rows = []
    for attribute, part in block[block["attribute"] == "gender"].groupby("attribute", sort=False):
        ids = part.groupby(["side", "person"])["person_en"].unique()
        for (side, person), members in ids.items():
            if len(members) > 1:
                hit = (part["person"] == person) & (part["side"] == side)
                rows.append(_defect(block, hit, kind="persons", check="ambiguous person",
                                    description=f"{attribute}: {person!r} stands for {len(members)} persons of the "
                                                "list"))
    return rows
