"""Compile LaTeX tables with pdflatex in the page geometry of a preset and read back what TeX measured: each panel's
width in pt, each float's height in pt, every overfull box and every float too large for the page. Used by
tests/test_outputs_latex.py and docs/outputs.md's table pages."""
from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from toolkit.outputs import latex

PDFLATEX = shutil.which("pdflatex")
# The templates' geometry: ACL (acl.sty, 11 pt, 16 cm × 24.7 cm text, 0.6 cm column gap) and ACM sigconf (10 pt here:
# the article class has no 9 pt; a larger font is the stricter test; its text height as geometry computes it for
# sigconf). The text heights are latex.WIDTHS[...].height_pt.
GEOMETRY = {"acl": ("11pt", 455.24, 17.07, 702.78), "acm": ("10pt", 506.295, 24.0, 626.0)}
# Each float's height, typed out when LaTeX closes its box (before placing it): ``FLOAT <height> <depth>``.
_FLOAT_HOOK = (r"\makeatletter\let\tkendfloatbox\@endfloatbox\def\@endfloatbox{\tkendfloatbox"
               r"\typeout{FLOAT \the\ht\@currbox\space\the\dp\@currbox}}\makeatother")


@dataclass
class Compiled:
    returncode: int
    log: str
    widths: dict[str, list[float]]  # table name -> each panel's width in pt
    overfull: list[str]  # the log's overfull-box lines
    pdf: Path | None
    heights: dict[str, list[float]] = field(default_factory=dict)  # table name -> each float's height in pt
    too_large: list[str] = field(default_factory=list)  # the log's "Float too large for page" lines


def _panels(tex: str) -> list[str]:
    """The tabulars of a rendered table (its panels), as they are typeset inside the float."""
    out = []
    for float_ in tex.split(r"\setlength{\tabcolsep}")[1:]:  # a table continued over several floats has several
        body = float_[:float_.index(r"\caption{")].split("\n", 1)[1]
        body = body[:body.rindex(r"\end{tabular}") + len(r"\end{tabular}")]
        out += [part.strip() for part in body.split(latex.PANEL_GAP) if part.strip()]
    return out


def document(tables: dict[str, str], *, preset: str, encoding: str = "T1", measure: bool = True) -> str:
    """A two-column article in ``preset``'s geometry holding every table (each on its own page), preceded by the
    measurement of each panel's natural width (``\\typeout{WIDTH name i <pt>}``)."""
    size, textwidth, columnsep, textheight = GEOMETRY[preset.split("-")[0]]
    lines = [rf"\documentclass[{size},twocolumn]{{article}}", rf"\usepackage[{encoding}]{{fontenc}}",
             r"\usepackage[utf8]{inputenc}", r"\usepackage{booktabs}",
             rf"\setlength{{\textwidth}}{{{textwidth}pt}}", rf"\setlength{{\columnsep}}{{{columnsep}pt}}",
             rf"\setlength{{\textheight}}{{{textheight}pt}}", r"\setlength{\topmargin}{-0.5in}", _FLOAT_HOOK,
             r"\setlength{\oddsidemargin}{0pt}", r"\setlength{\evensidemargin}{0pt}", r"\setlength{\hoffset}{-0.5in}",
             r"\pagestyle{empty}", r"\newsavebox{\measured}", r"\begin{document}"]
    if measure:
        for name, tex in tables.items():
            for i, panel in enumerate(_panels(tex)):
                lines.append(rf"\sbox{{\measured}}{{{latex.FONT}\setlength{{\tabcolsep}}{{{latex.TABCOLSEP_PT:g}pt}}"
                             rf"{panel}}}\typeout{{WIDTH {name} {i} \the\wd\measured}}")
    for name, tex in tables.items():
        lines += [rf"\typeout{{TABLE {name}}}", tex, r"\clearpage"]
    lines.append(r"\end{document}")
    return "\n".join(lines) + "\n"


def compile_tables(tables: dict[str, str], folder: Path, *, preset: str, encoding: str = "T1") -> Compiled:
    """Compile ``tables`` (name → LaTeX) in ``folder`` at ``preset``'s geometry; see :class:`Compiled`."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tables.tex").write_text(document(tables, preset=preset, encoding=encoding), encoding="utf-8")
    proc = subprocess.run([PDFLATEX, "-interaction=nonstopmode", "-halt-on-error", "tables.tex"], cwd=folder,
                          capture_output=True, text=True, errors="replace", timeout=300)
    log = (folder / "tables.log").read_text(errors="replace") if (folder / "tables.log").exists() else proc.stdout
    widths: dict[str, list[float]] = {}
    for name, _, pt in re.findall(r"^WIDTH (\S+) (\d+) ([\d.]+)pt", log, flags=re.M):
        widths.setdefault(name, []).append(float(pt))
    overfull = re.findall(r"^Overfull \\[hv]box.*$", log, flags=re.M)
    heights: dict[str, list[float]] = {}
    current = ""
    for name, height, depth in re.findall(r"^(?:TABLE (\S+)|FLOAT ([\d.]+)pt ([\d.]+)pt)$", log, flags=re.M):
        if name:
            current = name
            heights[current] = []
        elif current:
            heights[current].append(float(height) + float(depth))
    too_large = re.findall(r"^LaTeX Warning: Float too large for page.*$", log, flags=re.M)
    pdf = folder / "tables.pdf"
    return Compiled(proc.returncode, log, widths, overfull, pdf if pdf.exists() else None, heights, too_large)
