"""The multilingual study's tables as LaTeX layouts: the gaps per language, the race × gender interaction, both
regressions' terms and the defect counts (:class:`toolkit.outputs.latex.PaperTable` entries)."""
from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from toolkit.outputs.latex_render import Layout
from toolkit.outputs.latex_tables import PaperTable, frame_layout
from toolkit.studies.multilingual import defects

_COLUMNS = ["language", "source", "model", "attribute", "estimate", "ci_low", "ci_high", "p_adjusted", "verdict"]
_CAMARA = "Câmara et al. 2022; Goldfarb-Tarrant et al. 2023"


def _gaps(frame: pd.DataFrame, **_: object) -> Layout:
    rows = frame[frame["subset"] == "all"] if "subset" in frame.columns else frame
    return frame_layout(table=rows, columns=_COLUMNS, label="tab:multilingual-gaps-table",
                        caption="Gaps per language (Δ = a − b, score scale) with simultaneous intervals and verdicts.")


def _interaction(frame: pd.DataFrame, **_: object) -> Layout:
    rows = frame[frame["attribute"].astype(str).str.endswith("interaction")]
    return frame_layout(table=rows, columns=_COLUMNS, label="tab:multilingual-interaction",
                        caption="Race × gender interaction per language.")


def _regression(frame: pd.DataFrame, **_: object) -> Layout:
    rows = frame[frame["term"] != "intercept"]
    return frame_layout(table=rows, columns=["language", "model", "method", "term", "estimate", "se", "p_value"],
                        label="tab:multilingual-regression-table",
                        caption="The Câmara et al. regression as run (paper) and the sound version (logit scale).")


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
