"""Draw the pairs for a blind reading of BiasFinder mutants (issue 25): two generator options, mixed in one format.

    python benchmarks/blind_reading_sample.py --corpus ../shared/data/imdb/imdb_train.csv.gz --reviews 3000 \
        --seed 2611 --per-arm 20 --people skip-real --out /tmp/reading

One pair per random template (a new seed each reading). Arms:

- occupation, ``fit=off``: two different occupations drawn from the whole list (BiasFinder's generator);
  ``fit=<method>``: two different occupations drawn from the fills :func:`fit.template_fills` keeps for the template.
  Both arms draw from the same templates (a template is in one arm only).
- gender and country, ``people=mutate`` (BiasFinder's generator) vs ``people=<option>``: each arm a random sample of
  the templates its generation makes (the option's run parses only the reviews that gave a template without it:
  the option only removes templates); a review can appear in both arms, with other fills. ``skip-known`` counts
  who is well known over the whole ``--corpus``, not over the sample.

- ``--part modes`` (issue 34): the paper preset (``coherence="paper", backend="neuralcoref", lists="paper"``:
  BiasFinder's acceptance, coreference model and occupation method) against the default generator, on the same
  reviews: ``--per-arm`` pairs each, spread over gender, occupation and country (one pair per random template; a
  characteristic short of templates is made up from the others). Writes ``items.txt`` (an id and the two texts,
  nothing about the arm or the characteristic) and ``key.csv``.

Otherwise writes ``pairs.md`` (what readers see: an id and the two texts, nothing about the arm; ``<br />`` as line breaks)
and ``key.csv`` (id → characteristic, arm, template id, the two fills): keep the key from the readers.
"""
from __future__ import annotations

import argparse
import random
import re
from pathlib import Path

import pandas as pd

from toolkit import corpora
from toolkit.studies.biasfinder.generator import generate
from toolkit.studies.biasfinder.generator.fit import template_fills
from toolkit.studies.biasfinder.generator.occupation import fill_occupation, occupation_templates, occupations

_BREAK = re.compile(r"\s*<br\s*/?>\s*")


def _clean(text: str) -> str:
    return _BREAK.sub("\n", text).strip()


def _mutant_pairs(cases: pd.DataFrame, attribute: str, rng: random.Random, n: int, used: set) -> list[dict]:
    """``n`` pairs of mutants of two different groups, one per random template of ``attribute`` not in ``used``."""
    mutants = cases[(cases["attribute"] == attribute) & ~cases["is_original"].astype(bool)]
    templates = sorted(set(mutants["case_id"]) - used)
    rng.shuffle(templates)
    pairs = []
    for case_id in templates[:n]:
        rows = mutants[mutants["case_id"] == case_id]
        groups = sorted(set(rows["group"]))
        if len(groups) < 2:
            continue
        a, b = rng.sample(groups, 2)
        row_a = rows[rows["group"] == a].sample(1, random_state=rng.randrange(2**31)).iloc[0]
        row_b = rows[rows["group"] == b].sample(1, random_state=rng.randrange(2**31)).iloc[0]
        used.add(case_id)
        pairs.append({"template": case_id, "fill_a": row_a["fill"], "fill_b": row_b["fill"],
                      "text_a": row_a["text"], "text_b": row_b["text"]})
    return pairs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--reviews", type=int, default=3000, help="random reviews to template")
    parser.add_argument("--seed", type=int, default=2611)
    parser.add_argument("--per-arm", type=int, default=20)
    parser.add_argument("--people", default="skip-real", help="the people option read against 'mutate'")
    parser.add_argument("--fit", default="embedding", help="the occupation-fit method read against no filter")
    parser.add_argument("--n-process", type=int, default=1)
    parser.add_argument("--part", choices=("occupation", "people", "both", "modes"), default="both")
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    whole = corpora.load(args.corpus)
    corpus = whole.sample(min(args.reviews, len(whole)), random_state=args.seed).reset_index(drop=True)
    args.known_from = whole  # people="skip-known" counts who is well known over the whole corpus, not the sample
    items: list[dict] = []

    # occupation: the same templates, fills from the whole list or from the fitting ones
    if args.part in ("occupation", "both"):
        _occupation(corpus, args, rng, items)
    if args.part in ("people", "both"):
        _people(corpus, args, rng, items)
    if args.part == "modes":
        _modes(corpus, args, rng, items)
        _write_items(items, args, rng)
        return 0
    _write(items, args, rng)
    return 0


_MODES = {"paper": {"coherence": "paper", "backend": "neuralcoref", "lists": "paper"}, "default": {}}


def _modes(corpus: pd.DataFrame, args, rng: random.Random, items: list[dict]) -> None:
    """Paper preset vs default: ``args.per_arm`` mutant pairs per arm over the three characteristics."""
    characteristics = ("gender", "occupation", "country")
    for arm, options in _MODES.items():
        cases = generate(corpus, n_names=10, n_country_names=1, n_process=args.n_process, progress=False, **options, record=(cases_record := {}))
        print(arm, {k: v for k, v in cases_record["generation_report"].items() if k.endswith("_templates")}, flush=True)
        share = [args.per_arm // 3 + (1 if k < args.per_arm % 3 else 0) for k in range(3)]
        used: set = set()
        drawn = []
        for attribute, n in zip(characteristics, share):
            drawn += [{"characteristic": attribute, "arm": arm, **pair}
                      for pair in _mutant_pairs(cases, attribute, rng, n, used)]
        for attribute in characteristics * args.per_arm:  # make up a short characteristic from the others
            if len(drawn) >= args.per_arm:
                break
            drawn += [{"characteristic": attribute, "arm": arm, **pair}
                      for pair in _mutant_pairs(cases, attribute, rng, 1, used)]
        items += drawn[:args.per_arm]


def _write_items(items: list[dict], args, rng: random.Random) -> None:
    """``items.txt`` (ids and texts only) and ``key.csv`` (id → characteristic, arm, template, fills)."""
    rng.shuffle(items)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    key = pd.DataFrame(items)
    key.insert(0, "id", [f"P{k + 1:02d}" for k in range(len(key))])
    lines = []
    for row in key.itertuples(index=False):
        lines += [f"## {row.id}", "", "Text A:", _clean(row.text_a), "", "Text B:", _clean(row.text_b), "", "---", ""]
    (out / "items.txt").write_text("\n".join(lines))
    key.to_csv(out / "key.csv", index=False)
    print(key.groupby(["arm", "characteristic"]).size().to_string())


def _occupation(corpus: pd.DataFrame, args, rng: random.Random, items: list[dict]) -> None:
    templates = occupation_templates(corpus, n_process=args.n_process).reset_index(drop=True)
    fills = template_fills(templates, corpus=corpus, method=args.fit)
    order = list(range(len(templates)))
    rng.shuffle(order)
    everything = list(occupations())
    for k, i in enumerate(order[:2 * args.per_arm]):
        arm = "fit=off" if k % 2 == 0 else f"fit={args.fit}"
        pool = everything if arm == "fit=off" else list(fills["fills"].iloc[i])
        if len(pool) < 2:
            continue
        a, b = rng.sample(pool, 2)
        template = templates["template"].iloc[i]
        items.append({"characteristic": "occupation", "arm": arm, "template": str(templates["doc_id"].iloc[i]),
                      "fill_a": a, "fill_b": b, "text_a": fill_occupation(template, occupation=a),
                      "text_b": fill_occupation(template, occupation=b),
                      "kept_fills": len(fills["fills"].iloc[i])})



def _people(corpus: pd.DataFrame, args, rng: random.Random, items: list[dict]) -> None:
    """Gender and country: BiasFinder's generator vs the people option."""
    cases = generate(corpus, instances=["gender", "country"], people="mutate", n_process=args.n_process,
                     n_names=10, n_country_names=1, record=(cases_record := {}))
    report = {"mutate": cases_record["generation_report"]}
    templated = corpus[corpus["doc_id"].isin(set(cases["doc_id"]))] if "doc_id" in cases.columns else corpus
    option = generate(templated, instances=["gender", "country"], people=args.people, n_process=args.n_process,
                      n_names=10, n_country_names=1,
                      known_from=args.known_from if args.people == "skip-known" else None, record=(option_record := {}))
    report[args.people] = option_record["generation_report"]
    print(report)
    for people, frame in (("mutate", cases), (args.people, option)):
        for attribute in ("gender", "country"):
            for pair in _mutant_pairs(frame, attribute, rng, args.per_arm, set()):
                items.append({"characteristic": attribute, "arm": f"people={people}", **pair})


def _write(items: list[dict], args, rng: random.Random) -> None:
    rng.shuffle(items)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    key = pd.DataFrame(items)
    key.insert(0, "id", [f"{c[0].upper()}{k + 1:03d}" for k, c in enumerate(key["characteristic"])])
    for characteristic, part in key.groupby("characteristic"):
        lines = []
        for _, row in part.iterrows():
            lines += [f"## {row['id']}", "", "**Text A**", "", _clean(row["text_a"]), "", "**Text B**", "",
                      _clean(row["text_b"]), "", "---", ""]
        (out / f"pairs_{characteristic}.md").write_text("\n".join(lines))
    key.to_csv(out / f"key_{args.part}.csv", index=False)
    print(key.groupby(["characteristic", "arm"]).size().to_string())


if __name__ == "__main__":
    raise SystemExit(main())
