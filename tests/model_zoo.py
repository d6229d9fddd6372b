"""Offline miniatures of every model family BTC-SAM tested (Kardkovács et al. 2025, Appendix B): each real model's
architecture, label names in index order and ``problem_type``, with random weights and a tiny local tokenizer; plus a
tiny GPT-2 causal LM for ``llm:hf:``. Nothing is downloaded."""
from __future__ import annotations

from pathlib import Path

GO_EMOTIONS = ["admiration", "amusement", "anger", "annoyance", "approval", "caring", "confusion", "curiosity",
               "desire", "disappointment", "disapproval", "disgust", "embarrassment", "excitement", "fear",
               "gratitude", "grief", "joy", "love", "nervousness", "optimism", "pride", "realization", "relief",
               "remorse", "sadness", "surprise", "neutral"]
EKMAN = ["anger", "disgust", "fear", "joy", "neutral", "sadness", "surprise"]

# hub id: (architecture, id2label in index order, problem_type, spec options a user adds)
BTCSAM_CLASSIFIERS: dict[str, tuple[str, list[str], str | None, str]] = {
    "distilbert-base-uncased-finetuned-sst-2-english": ("distilbert", ["NEGATIVE", "POSITIVE"], None, ""),
    "michelecafagna26/gpt2-medium-finetuned-sst2-sentiment": ("gpt2", ["LABEL_0", "LABEL_1"], None,
                                                              "?labels=negative,positive"),
    "cardiffnlp/twitter-roberta-base-sentiment-latest": ("roberta", ["negative", "neutral", "positive"], None, ""),
    "lxyuan/distilbert-base-multilingual-cased-sentiments-student": ("distilbert",
                                                                     ["positive", "neutral", "negative"], None, ""),
    "finiteautomata/bertweet-base-sentiment-analysis": ("roberta", ["NEG", "NEU", "POS"], None, ""),
    "pysentimiento/robertuito-sentiment-analysis": ("roberta", ["NEG", "NEU", "POS"], None, ""),
    "ProsusAI/finbert": ("bert", ["positive", "negative", "neutral"], None, ""),
    "yiyanghkust/finbert-tone": ("bert", ["Neutral", "Positive", "Negative"], None, ""),
    "StephanAkkerman/FinTwitBERT-sentiment": ("bert", ["NEUTRAL", "BULLISH", "BEARISH"], None, ""),
    "nlptown/bert-base-multilingual-uncased-sentiment": ("bert", ["1 star", "2 stars", "3 stars", "4 stars",
                                                                  "5 stars"], None, ""),
    "j-hartmann/emotion-english-distilroberta-base": ("roberta", EKMAN, None, ""),
    "SamLowe/roberta-base-go_emotions": ("roberta", GO_EMOTIONS, "multi_label_classification", ""),
    "joeddav/distilbert-base-uncased-go-emotions-student": ("distilbert", GO_EMOTIONS, None, ""),
    "dejanseo/sentiment": ("albert", ["very negative", "negative", "neutral", "positive", "very positive"], None, ""),
}

WORDS = ("[PAD] [UNK] [CLS] [SEP] [MASK] the a good bad movie great awful film i it was not very is and "
         "she he her him my sister brother feels angry happy").split()


def build_classifier(folder: Path, *, arch: str, labels: list[str], problem_type: str | None = None,
                     seed: int = 0) -> Path:
    """A tiny sequence classifier of architecture ``arch`` with the real label names, saved to ``folder``."""
    import torch
    from transformers import (
        AlbertConfig,
        AlbertForSequenceClassification,
        BertConfig,
        BertForSequenceClassification,
        BertTokenizer,
        DistilBertConfig,
        DistilBertForSequenceClassification,
        GPT2Config,
        GPT2ForSequenceClassification,
        RobertaConfig,
        RobertaForSequenceClassification,
    )

    head = {"num_labels": len(labels), "id2label": dict(enumerate(labels)),
            "label2id": {name: i for i, name in enumerate(labels)}}
    if problem_type:
        head["problem_type"] = problem_type
    torch.manual_seed(seed)
    if arch == "gpt2":
        tokenizer = gpt2_tokenizer()
        eos = tokenizer.convert_tokens_to_ids("<|endoftext|>")
        config = GPT2Config(vocab_size=len(tokenizer), n_positions=64, n_embd=32, n_layer=2, n_head=2,
                            bos_token_id=eos, eos_token_id=eos, **head)
        model = GPT2ForSequenceClassification(config)
    else:
        tokenizer = BertTokenizer(vocab={w: i for i, w in enumerate(WORDS)})
        size = {"hidden_size": 32, "num_attention_heads": 2, "intermediate_size": 37}
        if arch == "distilbert":
            model = DistilBertForSequenceClassification(DistilBertConfig(
                vocab_size=len(WORDS), dim=32, n_layers=2, n_heads=2, hidden_dim=37, max_position_embeddings=64,
                **head))
        elif arch == "roberta":
            model = RobertaForSequenceClassification(RobertaConfig(
                vocab_size=len(WORDS), num_hidden_layers=2, max_position_embeddings=66, pad_token_id=0, **size,
                **head))
        elif arch == "albert":
            model = AlbertForSequenceClassification(AlbertConfig(
                vocab_size=len(WORDS), embedding_size=16, num_hidden_layers=2, max_position_embeddings=64,
                pad_token_id=0, **size, **head))
        else:
            model = BertForSequenceClassification(BertConfig(
                vocab_size=len(WORDS), num_hidden_layers=2, max_position_embeddings=64, **size, **head))
    tokenizer.save_pretrained(folder)
    model.save_pretrained(folder)
    return folder


def gpt2_tokenizer(words: tuple[str, ...] = ()):
    """A byte-level BPE tokenizer (GPT-2's class and pre-tokenizer) over single bytes, with merges that make each of
    ``words`` (as ``Ġword``, i.e. after a space) one token. No pad token, like GPT-2's."""
    from transformers import GPT2Tokenizer
    from transformers.convert_slow_tokenizer import bytes_to_unicode

    vocab = {c: i for i, c in enumerate(bytes_to_unicode().values())}
    merges: list[tuple[str, str]] = []
    for word in words:
        piece = "Ġ" + word
        for k in range(2, len(piece) + 1):
            if piece[:k] not in vocab:
                merges.append((piece[:k - 1], piece[k - 1]))
                vocab[piece[:k]] = len(vocab)
    vocab["<|endoftext|>"] = len(vocab)
    return GPT2Tokenizer(vocab=vocab, merges=merges)


def build_causal_lm(folder: Path, *, seed: int = 0, chat_template: str | None = None) -> Path:
    """A tiny GPT-2 language model whose tokenizer makes ' negative', ' neutral', ' positive' single tokens."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    tokenizer = gpt2_tokenizer(("negative", "neutral", "positive"))
    if chat_template:
        tokenizer.chat_template = chat_template
    eos = tokenizer.convert_tokens_to_ids("<|endoftext|>")
    torch.manual_seed(seed)
    model = GPT2LMHeadModel(GPT2Config(vocab_size=len(tokenizer), n_positions=512, n_embd=32, n_layer=2, n_head=2,
                                       bos_token_id=eos, eos_token_id=eos))
    tokenizer.save_pretrained(folder)
    model.save_pretrained(folder)
    return folder
