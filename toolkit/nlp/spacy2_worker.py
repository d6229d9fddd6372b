"""The spaCy 2 parsing worker, run as a script by another interpreter (``.venv-spacy2``; see
:mod:`toolkit.nlp.spacy2`).

It imports nothing from the toolkit, only spaCy and the model package named on its command line, so it runs under
spaCy 2.3 (BiasFinder's) as under spaCy 3. Protocol, one JSON document per line: first it writes the model's meta
(``spacy``, ``lang``, ``name``, ``version``, ``license``); then for each line read, ``{"op": "parse" | "tokenize",
"texts": [...]}``, it writes one line: for ``parse`` the list of their parses (each text parsed alone): ``words``,
``spaces``, ``tags``, ``pos``, ``deps``, ``heads`` (absolute), ``sent_starts``, ``ents`` (``[start, end, label]``,
token offsets) — the fields of the neuralcoref fixtures; for ``tokenize`` each text's token texts. It ignores
Ctrl-C (the driver stops it) and exits as soon as its input ends, queued work or not.
"""
import importlib
import json
import os
import platform
import queue
import signal
import sys
import threading


def parse_of(doc) -> dict:
    return {"words": [t.text for t in doc], "spaces": [bool(t.whitespace_) for t in doc],
            "tags": [t.tag_ for t in doc], "pos": [t.pos_ for t in doc], "deps": [t.dep_ for t in doc],
            "heads": [t.head.i for t in doc], "sent_starts": [t.i == 0 or bool(t.is_sent_start) for t in doc],
            "ents": [[e.start, e.end, e.label_] for e in doc.ents]}


def main(argv: list) -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    model = argv[1] if len(argv) > 1 else "en_core_web_sm"
    disable = [name for name in (argv[2].split(",") if len(argv) > 2 else []) if name]
    import warnings

    import spacy

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # W031: the 2.2.5 model under spaCy 2.3, as BiasFinder's reference parse
        nlp = importlib.import_module(model).load(disable=[d for d in disable if d in ("tagger", "parser", "ner")])
    meta = nlp.meta
    out = sys.stdout
    out.write(json.dumps({"spacy": spacy.__version__, "lang": meta.get("lang"), "name": meta.get("name"),
                          "version": meta.get("version"), "license": meta.get("license"), "package": model,
                          "python": platform.python_version()}) + "\n")
    out.flush()
    lines: queue.Queue = queue.Queue()  # read ahead, so the driver's next request never waits on this one's reply

    def read() -> None:
        for line in sys.stdin:
            lines.put(line)
        os._exit(0)  # input ended: the driver closed it or is gone (even SIGKILLed); the queued work is nobody's

    threading.Thread(target=read, daemon=True).start()
    while True:
        line = lines.get()
        request = json.loads(line)
        if request["op"] == "tokenize":  # the tokenizer alone: BiasFinder's preprocessText re-joins its tokens
            reply = [[t.text for t in nlp.tokenizer(text)] for text in request["texts"]]
        else:
            # one text at a time, as BiasFinder called it: spaCy 2's batched pipe pads its CNN over a batch, which
            # moves a few tags and heads (3 of the 150 reference reviews)
            reply = [parse_of(nlp(text)) for text in request["texts"]]
        out.write(json.dumps(reply) + "\n")
        out.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
