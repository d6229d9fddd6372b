"""Write ``toolkit/resources/biasfinder_titles.json``: the TITLE vocabulary of the paper preset's ``titles="extended"``
(a stand-in for Stanford CoreNLP's TITLE entities, whose gazetteer is GPL and is neither shipped nor consulted).

    python scripts/build_biasfinder_titles.py

Sources, both permissively licensed:

1. Faker's ``en_US`` job provider (MIT; ``faker.providers.job.en_US.Provider.jobs``, 639 titles): the head noun of
   each title (the last word before a comma, the last of a "/" pair: "Television/film/video producer" →
   "producer"), lower case, less :data:`NOT_PERSONS` (heads that name no person or are mostly another word).
2. :data:`FILM_AND_STORY`, written for this project (MIT): the job titles, ranks and story roles movie reviews
   call people by (actress, filmmaker, villain, sheriff …), which a job list lacks.

The file records the Faker version it was built from; :mod:`toolkit.studies.biasfinder.generator.lists` records its
SHA-256 in every run's provenance.
"""
from __future__ import annotations

import json
from pathlib import Path

NOT_PERSONS = frozenset({
    "(maths)", "(medical)", "sciences)", "wales)", "boy", "person", "crew", "make", "land", "copy", "sub", "staff",
    "visitor", "emeritus", "runner", "streamer", "associate", "professional", "specialist", "processor", "forwarder",
})
FILM_AND_STORY = (
    # film and stage
    "actress", "filmmaker", "screenwriter", "cinematographer", "composer", "narrator", "comedian", "singer",
    "reporter", "host", "model", "playwright", "novelist", "poet", "painter", "sculptor", "magician",
    # story roles
    "hero", "heroine", "villain", "protagonist", "antagonist", "detective", "cop", "sheriff", "deputy", "spy",
    "assassin", "bodyguard", "guard", "soldier", "warrior", "knight", "pirate", "cowboy", "gunslinger",
    # ranks and offices
    "king", "queen", "prince", "princess", "emperor", "president", "senator", "governor", "mayor", "judge",
    "general", "captain", "sergeant", "lieutenant", "colonel", "commander", "admiral", "chief", "boss",
    # trades and callings
    "priest", "nun", "monk", "minister", "farmer", "rancher", "waitress", "waiter", "maid", "butler", "servant",
    "student", "scholar", "boxer", "wrestler", "athlete", "player", "owner", "mercenary", "hitman", "thief",
)


def build() -> dict:
    import faker
    from faker.providers.job.en_US import Provider

    heads = set()
    for title in Provider.jobs:
        main = title.split(",")[0].strip()
        heads.add(main.split()[-1].split("/")[-1].lower())
    from_faker = sorted(heads - NOT_PERSONS)
    added = sorted(set(FILM_AND_STORY) - set(from_faker))
    return {
        "about": ("TITLE vocabulary of BiasFinder's occupation method under titles='extended' (a stand-in for "
                  "Stanford CoreNLP's TITLE entities; CoreNLP's gazetteer is GPL and was not used). Built by "
                  "scripts/build_biasfinder_titles.py: the head nouns of Faker's en_US job titles (MIT) less words "
                  "that name no person, and a film-and-story list written for this project (MIT)."),
        "sources": {"faker": {"version": faker.VERSION, "provider": "faker.providers.job.en_US",
                              "titles": len(Provider.jobs), "heads": len(from_faker)},
                    "film_and_story": {"words": len(added)}},
        "from_faker": from_faker,
        "film_and_story": added,
    }


def main() -> int:
    out = Path(__file__).resolve().parents[1] / "toolkit" / "resources" / "biasfinder_titles.json"
    out.write_text(json.dumps(build(), indent=1) + "\n")
    print(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
