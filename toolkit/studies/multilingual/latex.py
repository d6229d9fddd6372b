"""The multilingual study's tables as LaTeX layouts: the gaps per language, the race × gender interaction, both
regressions' terms and the defect counts (:class:`toolkit.outputs.latex.PaperTable` entries)."""
from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from toolkit import verdicts
from toolkit.outputs.latex_render import Layout
from toolkit.outputs.latex_tables import PaperTable, frame_layout, margin_text
from toolkit.studies.multilingual import corpora, defects
from toolkit.studies.multilingual.analysis import shown_subset

_COLUMNS = ["language", "source", "model", "attribute", "estimate", "ci_low", "ci_high", "p_adjusted", "verdict"]
_CAMARA = "Câmara et al. 2022; Goldfarb-Tarrant et al. 2023"


def _short(rows: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """``rows`` with each corpus as its short name (C, GT) and the caption's sentence spelling them out."""
    if "source" not in rows.columns:
        return rows, ""
    held = [s for s in dict.fromkeys(rows["source"].astype(str)) if s in corpora.SOURCE_SHORT]
    spelled = "; ".join(f"{corpora.SOURCE_SHORT[s]} = {corpora.SOURCE_NAMES[s]} et al. {s[-4:]}" for s in held)
    return rows.assign(source=rows["source"].map(lambda s: corpora.SOURCE_SHORT.get(s, s))), (
        f" Source: {spelled}." if spelled else "")


def _worded(rows: pd.DataFrame, settings: Mapping | None) -> tuple[pd.DataFrame, str]:
    """``rows`` with their verdicts in the words of :mod:`toolkit.verdicts` (each row's own groups named) and the
    legend defining each word used."""
    shown, legend = verdicts.display(rows, groups=verdicts.Groups("a", "b"), margin=margin_text(settings))
    return shown, f" Verdicts: {legend.removeprefix('verdict: ')}" if legend else ""


def _gaps(frame: pd.DataFrame, settings: Mapping | None = None, **_: object) -> Layout:
    subset = shown_subset(frame) if "subset" in frame.columns else "all"
    rows = frame[frame["subset"] == subset] if "subset" in frame.columns else frame
    shown, legend = _worded(rows, settings)
    shown, spelled = _short(shown)
    named = "" if subset == "all" else f" ({subset})"
    return frame_layout(table=shown, columns=_COLUMNS, label="tab:multilingual-gaps-table",
                        caption=f"Gaps per language{named} (Δ = first group − second, score scale) with simultaneous "
                                "intervals and verdicts." + spelled + legend)


def _interaction(frame: pd.DataFrame, settings: Mapping | None = None, **_: object) -> Layout:
    rows = frame[frame["attribute"].astype(str).str.endswith("interaction")]
    shown, legend = _worded(rows, settings)
    shown, spelled = _short(shown)
    return frame_layout(table=shown, columns=_COLUMNS, label="tab:multilingual-interaction",
                        caption="Race × gender interaction per language." + spelled + legend)


def _regression(frame: pd.DataFrame, **_: object) -> Layout:
    rows, spelled = _short(frame[frame["term"] != "intercept"])
    return frame_layout(table=rows, columns=["language", "source", "model", "method", "term", "estimate", "se",
                                             "p_value"],
                        label="tab:multilingual-regression-table",
                        caption="The Câmara et al. regression as run (paper) and the sound version (logit scale)."
                                + spelled)


def _defects(frame: pd.DataFrame, settings: Mapping | None = None, **_: object) -> Layout:
    return frame_layout(table=defects.summary(frame), caption="Defects per corpus and language.",
                        label="tab:multilingual-defects-table")


def _interactions(frame: pd.DataFrame) -> int:
    return int(frame["attribute"].astype(str).str.endswith("interaction").sum()) if "attribute" in frame else 0


LATEX_LAYOUTS: dict[str, PaperTable] = {entry.name: entry for entry in [
    PaperTable("multilingual_gaps_table", f"beyond {_CAMARA}", "multilingual_gaps", _gaps),
    PaperTable("multilingual_interaction", f"beyond {_CAMARA}", "multilingual_intersections", _interaction,
               _interactions),
    PaperTable("multilingual_regression_table", "Câmara et al. 2022's regression and a sound one",
               "multilingual_regression", _regression),
    PaperTable("multilingual_defects_table", "this toolkit's defect report", "multilingual_defects", _defects),
]}
