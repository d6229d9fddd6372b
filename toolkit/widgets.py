"""ipywidgets apps: pickers wired to the package's functions, nothing more."""
from __future__ import annotations

from collections.abc import Sequence

import ipywidgets as w
import matplotlib.pyplot as plt
from IPython.display import display

from toolkit import eec
from toolkit.errors import ToolkitError
from toolkit.models import OFFLINE_DEFAULTS, available


class EECApp:
    """Pick models (and extra ``hf:``/``py:`` specs), a subset and a box-plot order; Run re-scores and redraws.

    ``widget`` is the box to display; ``result`` holds the last :class:`toolkit.eec.EECResult`.
    """

    def __init__(self, *, models: Sequence[str] = OFFLINE_DEFAULTS, cache: bool = True) -> None:
        named = [m for m in available() if ":" not in m]
        self.models = w.SelectMultiple(options=named, value=[m for m in models if m in named], description="models")
        self.extra = w.Text(placeholder="hf:/path/to/model, py:module:function", description="more specs")
        self.subset = w.Dropdown(options=eec.SUBSETS, value="all", description="subset")
        self.button = w.Button(description="Run", button_style="primary")
        self.output = w.Output()
        self.cache = cache
        self.result: eec.EECResult | None = None
        self.button.on_click(lambda _: self.run())
        self.widget = w.VBox([w.HBox([self.models, w.VBox([self.extra, self.subset, self.button])]), self.output])

    def specs(self) -> list[str]:
        extra = [s.strip() for s in self.extra.value.split(",") if s.strip()]
        return list(self.models.value) + extra

    def run(self) -> None:
        self.output.clear_output()
        with self.output:
            try:
                self.result = eec.run(models=self.specs(), subsets=[self.subset.value], cache=self.cache)
            except ToolkitError as exc:
                print(exc)
                return
            for attribute in eec.ATTRIBUTES:
                display(eec.paper_table(self.result.tests, attribute=attribute))
            for panels in eec.figures(self.result, subset=self.subset.value).values():
                display(panels[0].figure)  # one figure per attribute, a panel per task


def eec_app(*, models: Sequence[str] = OFFLINE_DEFAULTS, cache: bool = True) -> EECApp:
    """Build the EEC app; display ``app.widget`` in a notebook."""
    return EECApp(models=models, cache=cache)


class PSAApp:
    """Pick a corpus, models, a name set and a sample size; Run scores; the threshold slider redraws the label-flip
    view from the last result without re-scoring. ``widget`` is the box to display; ``result`` the last run."""

    def __init__(self, *, corpus: str = "sample", models: Sequence[str] = OFFLINE_DEFAULTS, n: int = 200,
                 cache: bool = True) -> None:
        from toolkit import psa

        self._psa = psa
        named = [m for m in available() if ":" not in m]
        self.corpus = w.Text(value=str(corpus), description="corpus", placeholder="'sample' or a CSV/JSONL path")
        self.models = w.SelectMultiple(options=named, value=[m for m in models if m in named], description="models")
        self.names = w.Text(value="", description="names CSV", placeholder="blank: 48 public figures")
        self.n = w.BoundedIntText(value=n, min=2, max=100_000, description="sentences")
        self.threshold = w.FloatSlider(value=0.5, min=0.05, max=0.95, step=0.05, description="threshold",
                                       continuous_update=False)
        self.button = w.Button(description="Run", button_style="primary")
        self.output, self.flips = w.Output(), w.Output()
        self.cache = cache
        self.result = None
        self.button.on_click(lambda _: self.run())
        self.threshold.observe(lambda _: self.redraw_flips(), names="value")
        self.widget = w.VBox([w.HBox([self.models, w.VBox([self.corpus, self.names, self.n, self.button])]),
                              self.output, self.threshold, self.flips])

    def run(self) -> None:
        self.output.clear_output()
        with self.output:
            try:
                self.result = self._psa.run(corpus=self.corpus.value.strip(), models=list(self.models.value),
                                            names=self.names.value.strip() or None, n=self.n.value, cache=self.cache)
            except ToolkitError as exc:
                print(exc)
                return
            display(self._psa.table2(self.result.summary))
            self._psa.figures(self.result)
            plt.show()
        self.redraw_flips()

    def redraw_flips(self) -> None:
        self.flips.clear_output()
        if self.result is None:
            return
        with self.flips:
            from toolkit import plots

            plots.psa_label_flips(self._psa.label_flips(self.result.scored, threshold=self.threshold.value))
            plt.show()


def psa_app(*, corpus: str = "sample", models: Sequence[str] = OFFLINE_DEFAULTS, n: int = 200,
            cache: bool = True) -> PSAApp:
    """Build the PSA app; display ``app.widget`` in a notebook."""
    return PSAApp(corpus=corpus, models=models, n=n, cache=cache)


class BTCSAMApp:
    """Pick models (and extra ``hf:``/``llm:`` specs), θ and the failure rule; Run scores the given test sets (cached) and shows the detection-probability heatmap and
    table. ``widget`` is the box to display; ``result`` the last run."""

    def __init__(self, *, sets: dict, models: Sequence[str] = OFFLINE_DEFAULTS, cache: bool = True) -> None:
        from toolkit import btcsam

        self._btcsam, self.sets, self.cache = btcsam, sets, cache
        named = [m for m in available() if ":" not in m]
        self.models = w.SelectMultiple(options=named, value=[m for m in models if m in named], description="models")
        self.extra = w.Text(value=", ".join(m for m in models if m not in named),
                            placeholder="hf:…, llm:hf:…, llm:openai:<model>@<url>", description="more specs")
        self.theta = w.SelectionSlider(options=list(btcsam.THETAS), value=0.2, description="θ")
        self.rule = w.Dropdown(options=btcsam.RULES, value="published", description="rule")
        self.button = w.Button(description="Run", button_style="primary")
        self.output = w.Output()
        self.result = None
        self.button.on_click(lambda _: self.run())
        self.widget = w.VBox([w.HBox([self.models, w.VBox([self.extra, self.theta, self.rule, self.button])]),
                              self.output])

    def specs(self) -> list[str]:
        return list(self.models.value) + [s.strip() for s in self.extra.value.split(",") if s.strip()]

    def run(self) -> None:
        self.output.clear_output()
        with self.output:
            try:
                self.result = self._btcsam.run(sets=self.sets, models=self.specs(), theta=self.theta.value,
                                               rule=self.rule.value, cache=self.cache)
            except ToolkitError as exc:
                print(exc)
                return
            self._btcsam.figures(self.result)
            plt.show()
            display(self.result.detection[self.result.detection["theta"] == self.theta.value])


def btcsam_app(*, sets: dict, models: Sequence[str] = OFFLINE_DEFAULTS, cache: bool = True) -> BTCSAMApp:
    """Build the BTC-SAM app over ``sets`` (name → case table); display ``app.widget`` in a notebook."""
    return BTCSAMApp(sets=sets, models=models, cache=cache)


import csv  # noqa: E402  (the annotation app below was added after the apps above)
import difflib  # noqa: E402
import html  # noqa: E402
from pathlib import Path  # noqa: E402

from toolkit.errors import InputError  # noqa: E402
from toolkit.studies.biasfinder import ANNOTATION_COLUMNS  # noqa: E402


class AnnotationApp:
    """BiasFinder's annotation study: the two mutants of each sampled BTC side by side, the differing words
    highlighted (difflib on word lists), and per text buttons for coherent (yes/no/unsure) and sentiment
    (positive/negative/neutral/unsure). Every click appends a row ``btc_id, variant, annotator, coherent, sentiment``
    to ``path``; a BTC is done when both texts have both fields, and the app moves on. Started again, it resumes at
    the first BTC this annotator has not finished. ``btcs`` from :func:`toolkit.biasfinder.sample_btcs`."""

    CHOICES = {"coherent": ("yes", "no", "unsure"), "sentiment": ("positive", "negative", "neutral", "unsure")}

    def __init__(self, btcs, *, path, annotator: str) -> None:
        if not annotator.strip():
            raise InputError("an annotator name is needed.", fix="annotation_app(..., annotator='ann1').")
        self.btcs, self.path, self.annotator = btcs.reset_index(drop=True), Path(path), annotator.strip()
        self.values: dict[tuple[str, str], dict[str, str]] = {}
        if self.path.exists():
            with self.path.open(newline="", encoding="utf-8") as handle:
                for row in csv.DictReader(handle):
                    if row["annotator"] == self.annotator:
                        self.values[(row["btc_id"], row["variant"])] = {f: row[f] for f in self.CHOICES}
        self.position = next((i for i in range(len(self.btcs)) if not self.done(i)), len(self.btcs))
        self.header, self.texts = w.HTML(), {v: w.HTML() for v in "ab"}
        self.buttons = {(v, f, c): w.Button(description=c, layout=w.Layout(width="auto"))
                        for v in "ab" for f, choices in self.CHOICES.items() for c in choices}
        for (variant, field_, choice), button in self.buttons.items():
            button.on_click(lambda _, v=variant, f=field_, c=choice: self.record(variant=v, **{f: c}))
        columns = [w.VBox([self.texts[v]] + [w.HBox([w.Label(f)] + [self.buttons[(v, f, c)] for c in choices])
                                              for f, choices in self.CHOICES.items()]) for v in "ab"]
        self.widget = w.VBox([self.header, w.HBox(columns)])
        self.show()

    def done(self, index: int) -> bool:
        btc_id = self.btcs.at[index, "btc_id"]
        return all(self.values.get((btc_id, v), {}).get(f) for v in "ab" for f in self.CHOICES)

    def record(self, *, variant: str, coherent: str | None = None, sentiment: str | None = None) -> None:
        """Set one or both fields of text ``variant`` (a|b) of the current BTC, append the row, move on when done."""
        for f, value in (("coherent", coherent), ("sentiment", sentiment)):
            if value is not None and value not in self.CHOICES[f]:
                raise InputError(f"unknown {f} {value!r}; available: {', '.join(self.CHOICES[f])}.",
                                 fix=f"record(variant='a', {f}='{self.CHOICES[f][0]}').")
        if variant not in ("a", "b"):
            raise InputError(f"variant must be 'a' or 'b'; got {variant!r}.", fix="record(variant='a', ...).")
        if self.position >= len(self.btcs):
            return
        btc_id = self.btcs.at[self.position, "btc_id"]
        current = self.values.setdefault((btc_id, variant), {f: "" for f in self.CHOICES})
        current.update({f: v for f, v in (("coherent", coherent), ("sentiment", sentiment)) if v is not None})
        new = not self.path.exists()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            if new:
                writer.writerow(ANNOTATION_COLUMNS)
            writer.writerow([btc_id, variant, self.annotator, current["coherent"], current["sentiment"]])
        if self.done(self.position):
            self.position += 1
        self.show()

    def show(self) -> None:
        if self.position >= len(self.btcs):
            self.header.value = f"<b>All {len(self.btcs)} BTCs annotated by {html.escape(self.annotator)}.</b>"
            for text in self.texts.values():
                text.value = ""
            return
        btc = self.btcs.iloc[self.position]
        words = {v: str(btc[f"text_{v}"]).split() for v in "ab"}
        marked = {v: [html.escape(word) for word in words[v]] for v in "ab"}
        for tag, a0, a1, b0, b1 in difflib.SequenceMatcher(a=words["a"], b=words["b"], autojunk=False).get_opcodes():
            if tag != "equal":
                for v, (lo, hi) in (("a", (a0, a1)), ("b", (b0, b1))):
                    marked[v][lo:hi] = [f"<mark>{word}</mark>" for word in marked[v][lo:hi]]
        self.header.value = (f"<b>BTC {self.position + 1} of {len(self.btcs)}</b> · {html.escape(self.annotator)} · "
                             f"{html.escape(str(btc['attribute']))}")
        for v in "ab":
            self.texts[v].value = f"<p><b>{v}</b>: {' '.join(marked[v])}</p>"
            chosen = self.values.get((btc["btc_id"], v), {})
            for f, choices in self.CHOICES.items():
                for c in choices:
                    self.buttons[(v, f, c)].button_style = "info" if chosen.get(f) == c else ""


def annotation_app(btcs, *, annotator: str, path=None) -> AnnotationApp:
    """Build the BTC annotation app (``path`` default: data/annotations/biasfinder.csv); display ``app.widget``."""
    from toolkit.biasfinder import annotations_path

    return AnnotationApp(btcs, path=path if path is not None else annotations_path(), annotator=annotator)
