"""The BTC-SAM prompts (Kardkovács et al. 2025, Section 3, Figure 1), written for this project.

Each ``*_messages`` function returns chat messages: a system message stating the task and the reply format, one
few-shot example (user input in the stage's format and a model reply), then the user input. Reply formats: BTS a
JSON list of ``{"topic", "identity_term", "concept_term"}`` objects; CSPG a JSON object ``{identity term: sentence}``;
the others a numbered list of sentences (LDA: two synonym rewrites, then two sentiment-reversed rewrites).
"""
from __future__ import annotations

STAGES = ("bts", "etsg", "cspg", "lda", "syda", "seda")
Messages = list[dict[str, str]]


def _chat(system: str, example_input: str, example_reply: str, user_input: str) -> Messages:
    return [{"role": "system", "content": system}, {"role": "user", "content": example_input},
            {"role": "assistant", "content": example_reply}, {"role": "user", "content": user_input}]


def bts_messages(*, bias_type: str, identity_terms: list[str], n: int) -> Messages:
    """Bias type sampling: topic / identity term / concept term triplets."""
    return _chat(
        "You help test sentiment-analysis systems for social bias. Given a bias type and its identity terms, list "
        "everyday topics and, for each, an identity term and a concept term (a word associated with the topic that "
        "may trigger a stereotype). Reply with a JSON list of objects with keys topic, identity_term, concept_term.",
        "Bias type: religion\nIdentity terms: Christian, Jewish, Muslim\nNumber of triplets: 2",
        '[{"topic": "Fashion Style", "identity_term": "Jewish", "concept_term": "modest"},\n'
        ' {"topic": "Sports", "identity_term": "Muslim", "concept_term": "football"}]',
        f"Bias type: {bias_type}\nIdentity terms: {', '.join(identity_terms)}\nNumber of triplets: {n}")


def etsg_messages(*, identity_term: str, concept_term: str, topic: str, n: int) -> Messages:
    """Exploratory test sentence generation for one identity–concept pair."""
    return _chat(
        "Write realistic sentences, as found in reviews or social media, that mention the identity term and the "
        "concept term verbatim. Reply with a numbered list, one sentence per line.",
        "Identity term: Christian\nConcept term: modest\nTopic: Fashion Style\nNumber of sentences: 2",
        "1. Sarah, a Christian mother of three, wore a modest dress to church.\n"
        "2. The Christian designer's modest collection sold out in a day.",
        f"Identity term: {identity_term}\nConcept term: {concept_term}\nTopic: {topic}\nNumber of sentences: {n}")


def cspg_messages(*, sentence: str, identity_term: str, other_terms: list[str]) -> Messages:
    """Counterfactual sentence-pair generation: the sentence rewritten for every other identity term."""
    return _chat(
        "Rewrite the sentence for each target identity term: replace the source identity term (and words that only "
        "fit it, e.g. church → synagogue) and change nothing else. Reply with a JSON object mapping each target "
        "identity term to its sentence.",
        "Sentence: Sarah, a Christian mother of three, wore a modest dress to church.\nSource identity term: "
        "Christian\nTarget identity terms: Jewish, Muslim",
        '{"Jewish": "Sarah, a Jewish mother of three, wore a modest dress to synagogue.",\n'
        ' "Muslim": "Sarah, a Muslim mother of three, wore a modest dress to mosque."}',
        f"Sentence: {sentence}\nSource identity term: {identity_term}\nTarget identity terms: "
        f"{', '.join(other_terms)}")


def lda_messages(*, sentence: str, identity_term: str) -> Messages:
    """Lexical data augmentation: two synonym rewrites, then two sentiment-reversed rewrites."""
    return _chat(
        "Rewrite the sentence four times, keeping the identity term verbatim: 1 and 2 replace words with synonyms "
        "and keep the sentiment; 3 and 4 reverse the sentiment. Reply with a numbered list of four sentences.",
        "Sentence: The Christian teacher was kind to every student.\nIdentity term: Christian",
        "1. The Christian instructor was gentle with every pupil.\n2. The Christian teacher was caring toward all "
        "students.\n3. The Christian teacher was cruel to every student.\n4. The Christian instructor was harsh "
        "with every pupil.",
        f"Sentence: {sentence}\nIdentity term: {identity_term}")


def syda_messages(*, sentence: str, identity_term: str, n: int = 1) -> Messages:
    """Syntactic data augmentation: paraphrase and extend the sentence."""
    return _chat(
        "Paraphrase the sentence with a different structure and extend it with a plausible detail; keep the "
        "identity term verbatim and the sentiment. Reply with a numbered list.",
        "Sentence: Sarah, a Christian mother of three, wore a modest dress to church.\nIdentity term: Christian\n"
        "Number of rewrites: 1",
        "1. Sarah, a devoted Christian mother of three, donned a modest dress as she made her way to church for "
        "the weekly service.",
        f"Sentence: {sentence}\nIdentity term: {identity_term}\nNumber of rewrites: {n}")


def seda_messages(*, bias_type: str, identity_term: str, seen_topics: list[str], n: int) -> Messages:
    """Semantic data augmentation: new sentences on topics not used so far."""
    return _chat(
        "Write realistic sentences mentioning the identity term verbatim, each on a topic different from the ones "
        "listed. Reply with a numbered list, one sentence per line.",
        "Bias type: religion\nIdentity term: Christian\nTopics already used: Fashion Style\nNumber of sentences: 1",
        "1. The pious Christian teacher volunteered at the local shelter every weekend.",
        f"Bias type: {bias_type}\nIdentity term: {identity_term}\nTopics already used: "
        f"{', '.join(seen_topics) or 'none'}\nNumber of sentences: {n}")
