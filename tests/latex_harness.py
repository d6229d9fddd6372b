"""Compile LaTeX tables with pdflatex in the page geometry of a preset and read back what TeX measured: each panel's
width in pt and every overfull box. Used by tests/test_outputs_latex.py and docs/outputs.md's table pages."""
from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from toolkit.outputs import latex

PDFLATEX = shutil.which("pdflatex")
# The templates' geometry: ACL (acl.sty, 11 pt, 16 cm text, 0.6 cm column gap) and ACM sigconf (10 pt here: the
# article class has no 9 pt; a larger font is the stricter test).
GEOMETRY = {"acl": ("11pt", 455.24, 17.07), "acm": ("10pt", 506.295, 24.0)}


@dataclass
class Compiled:
    returncode: int
    log: str
    widths: dict[str, list[float]]  # table name -> each panel's width in pt
    overfull: list[str]  # the log's overfull-box lines
    pdf: Path | None


def _panels(tex: str) -> list[str]:
    """The tabulars of a rendered table (its panels), as they are typeset inside the float."""
    body = tex[tex.index(r"\setlength{\tabcolsep}"):tex.index(r"\caption{")]
    body = body.split("\n", 1)[1]
    return [part.strip() for part in body.split(latex.PANEL_GAP) if part.strip()]


def document(tables: dict[str, str], *, preset: str, encoding: str = "T1", measure: bool = True) -> str:
    """A two-column article in ``preset``'s geometry holding every table (each on its own page), preceded by the
    measurement of each panel's natural width (``\\typeout{WIDTH name i <pt>}``)."""
    size, textwidth, columnsep = GEOMETRY[preset.split("-")[0]]
    lines = [rf"\documentclass[{size},twocolumn]{{article}}", rf"\usepackage[{encoding}]{{fontenc}}",
             r"\usepackage[utf8]{inputenc}", r"\usepackage{booktabs}",
             rf"\setlength{{\textwidth}}{{{textwidth}pt}}", rf"\setlength{{\columnsep}}{{{columnsep}pt}}",
             r"\setlength{\oddsidemargin}{0pt}", r"\setlength{\evensidemargin}{0pt}", r"\setlength{\hoffset}{-0.5in}",
             r"\pagestyle{empty}", r"\newsavebox{\measured}", r"\begin{document}"]
    if measure:
        for name, tex in tables.items():
            for i, panel in enumerate(_panels(tex)):
                lines.append(rf"\sbox{{\measured}}{{{latex.FONT}\setlength{{\tabcolsep}}{{{latex.TABCOLSEP_PT:g}pt}}"
                             rf"{panel}}}\typeout{{WIDTH {name} {i} \the\wd\measured}}")
    for tex in tables.values():
        lines += [tex, r"\clearpage"]
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
    pdf = folder / "tables.pdf"
    return Compiled(proc.returncode, log, widths, overfull, pdf if pdf.exists() else None)
