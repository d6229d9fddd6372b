"""BiasFinder's occupation instance (Asyrofi et al. 2021, §III-C): one occupation noun phrase, filled with every
occupation of ``toolkit/resources/occupations.json`` (79 single-word, gender-neutral titles compiled for this project).

Rules (spaCy's parse, no coreference model):

- Pre-filter without parsing: the review mentions exactly one form of one listed occupation ("chef" and "chefs", or
  "chef" and "baker", reject it). Only those reviews are parsed.
- Every mention of that occupation must be a singular common noun (tag ``NN``): a verb ("they butcher the plot") or
  a name ("Inspector Gadget", tagged ``NNP``) rejects the review. Repeated mentions of the noun are taken as
  coreferent and all become ``<occupation>``; pronouns that refer to the person stay (the gender is the review's).
- Adjectival and compound modifiers left of the noun are removed with their own modifiers ("a very talented pastry
  chef" → "a <occupation>"): rules cannot tell a modifier that clashes with another title ("a Michelin-starred
  chef" → "a Michelin-starred plumber") from a harmless one ("a friendly chef"), so all go. Determiners,
  possessives and numbers stay, and so does everything left of them.
- An "a"/"an" determiner becomes ``<a>`` and is filled to agree with the value (``an`` before a vowel letter, which
  is right for every listed title). A capitalised slot (``<A>``, ``<Occupation>``) is filled capitalised.

Not handled: multi-word titles ("police officer"), plural mentions (rejected), modifiers right of the noun ("a chef
from Lyon" stays), and whether a swapped occupation fits the story (the annotation study measures that).

Output: the case table (one case per template; ``group`` = ``fill`` = the occupation; the review itself as
``is_original``) with ``occupation`` (the review's for the original, the value for a mutant), ``doc_id``, ``corpus``.
"""
from __future__ import annotations

import re
from functools import cache

import pandas as pd

from toolkit.nlp import coref

TEMPLATE_COLUMNS = ("doc_id", "corpus", "text", "template", "occupation")
_REMOVABLE = ("amod", "compound")
_KEPT = ("det", "poss", "predet", "nummod")
_SLOT = re.compile(r"<(a|occupation)>", re.IGNORECASE)


@cache
def occupations() -> tuple[str, ...]:
    """The 79 occupations, lower case, sorted."""
    from toolkit.resources import load_json

    return tuple(load_json("occupations")["occupations"])


@cache
def _mention_pattern() -> re.Pattern:
    return re.compile(r"\b(" + "|".join(occupations()) + r")(?:s|es)?\b", re.IGNORECASE)


def _only_occupation(text: str) -> str:
    """The one listed occupation ``text`` mentions, singular only, else ''."""
    forms = {m.group(0).lower() for m in _mention_pattern().finditer(text)}
    return forms.pop() if len(forms) == 1 and next(iter(forms)) in occupations() else ""


def _capitalised(slot: str, upper: bool) -> str:
    return f"<{slot[0].upper()}{slot[1:]}>" if upper else f"<{slot}>"


def _edits(doc, word: str) -> list[tuple[int, int, str]] | None:
    """(start, end, replacement) character edits turning ``doc`` into a template, or None to reject it."""
    edits = []
    for token in doc:
        if token.lower_ != word:
            continue
        if token.tag_ != "NN" or token.ent_type_:
            return None
        lefts = list(token.lefts)
        kept = [c.right_edge.i for c in lefts if c.dep_ in _KEPT]
        removed = [c.left_edge.i for c in lefts if c.dep_ in _REMOVABLE]
        start = max([min(removed, default=token.i)] + [i + 1 for i in kept]) if removed else token.i
        determiner = next((c for c in lefts if c.dep_ == "det" and c.lower_ in ("a", "an")), None)
        if determiner is not None:
            edits.append((determiner.idx, determiner.idx + len(determiner.text),
                          _capitalised("a", determiner.text[0].isupper())))
        first = doc[start] if start < token.i else token
        upper = first.text[0].isupper() and (first.is_sent_start or first is token)
        if start < token.i:
            edits.append((doc[start].idx, token.idx, ""))
        edits.append((token.idx, token.idx + len(token.text), _capitalised("occupation", upper)))
    return edits or None


def occupation_templates(corpus: pd.DataFrame, *, batch_size: int = 64, n_process: int = 1) -> pd.DataFrame:
    """Templates from the reviews of ``corpus`` (a :func:`toolkit.corpora.load` frame) that mention one occupation
    (see the module docstring). Columns :data:`TEMPLATE_COLUMNS`."""
    words = corpus["text"].map(_only_occupation)
    candidates = corpus[words != ""]
    nlp = coref.backend("rules").nlp
    rows = []
    docs = nlp.pipe(candidates["text"].tolist(), batch_size=batch_size, n_process=n_process)
    for row, word, doc in zip(candidates.itertuples(index=False), words[words != ""], docs):
        edits = _edits(doc, word)
        if edits is None:
            continue
        parts, last = [], 0
        for start, end, replacement in sorted(edits):
            parts += [row.text[last:start], replacement]
            last = end
        parts.append(row.text[last:])
        rows.append({"doc_id": row.doc_id, "corpus": row.corpus, "text": row.text, "template": "".join(parts),
                     "occupation": word})
    return pd.DataFrame(rows, columns=list(TEMPLATE_COLUMNS))


def fill_occupation(template: str, *, occupation: str) -> str:
    """``template`` with ``<occupation>`` set to ``occupation`` and ``<a>`` to the article it takes."""

    def value(match: re.Match) -> str:
        slot = match.group(1)
        word = occupation if slot.lower() == "occupation" else ("an" if occupation[0] in "aeiou" else "a")
        return word[0].upper() + word[1:] if slot[0].isupper() else word

    return _SLOT.sub(value, template)


def generate_occupation(corpus: pd.DataFrame, *, templates: pd.DataFrame | None = None, n_process: int = 1
                        ) -> pd.DataFrame:
    """Occupation mutants of every template (see the module docstring); ``templates`` skips the mining."""
    templates = occupation_templates(corpus, n_process=n_process) if templates is None else templates
    rows = []
    for t in templates.itertuples(index=False):
        case_id = f"biasfinder:occupation:{t.doc_id}"
        common = {"case_id": case_id, "attribute": "occupation", "generator": "biasfinder", "template": t.template,
                  "doc_id": t.doc_id, "corpus": t.corpus}
        rows.append({**common, "variant_id": f"{case_id}:original", "text": t.text, "group": "", "fill": "",
                     "is_original": True, "occupation": t.occupation})
        for value in occupations():
            rows.append({**common, "variant_id": f"{case_id}:{value}", "text": fill_occupation(t.template,
                         occupation=value), "group": value, "fill": value, "is_original": False,
                         "occupation": value})
    columns = ["case_id", "variant_id", "text", "attribute", "group", "fill", "generator", "template", "is_original",
               "occupation", "doc_id", "corpus"]
    return pd.DataFrame(rows, columns=columns)
