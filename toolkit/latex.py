"""LaTeX tables of the papers' tables (issue 26), for ACL/FAccT submissions: booktabs rules, ``\\caption`` and
``\\label``, every text escaped, no siunitx (plain ``tabular``; numbers right-aligned, negative numbers with a
math minus).

- :func:`to_latex` — any frame: chosen columns with their headers, a ``\\midrule`` between blocks of a ``group``
  column (its value printed once per block).
- :data:`PAPER_TABLES` — a registry, one entry per paper table: the study table it is drawn from (``source``, a
  table name as :func:`toolkit.results.write` writes it, or a study function's frame), its rows, columns and
  caption. :func:`paper_table` renders one by name (an unknown name is TK103 listing the valid ones);
  :func:`paper_tables` every one whose source is among the given tables (what ``--latex`` writes beside the CSVs);
  :func:`from_run` does that for a finished run's folder.

The entries, with the columns a reviewer asks for — n, the estimate and its interval (``ci_low``, ``ci_high``),
``p_adjusted`` and the ``verdict`` where the study table has them (columns marked optional are left out when a
table from an older run lacks them; a missing required column is TK101):

- ``eec_table5``/``6``/``7`` — Kiritchenko & Mohammad 2018, Tables 5–7: per task, systems per bias group and their
  average Δ (source ``eec_summary``); ``eec_table5_systems`` (6, 7) — the same tests per system: n pairs, mean Δ,
  Bonferroni p, the two-way estimate with its interval, ``p_adjusted``, verdict (``eec_tests``).
- ``psa_table2`` — Prabhakaran et al. 2019, Table 2: ScoreDev and ScoreRange with intervals (``psa_summary``);
  ``psa_gender_gap`` — beyond the paper: female − male names, estimate, interval, null, verdict (``psa_gender``).
- ``biasfinder_table4`` — Asyrofi et al. 2021, Table 4: templates, mutants, BTCs, BTC rate, excess
  (``biasfinder_table4``); ``biasfinder_table5`` — Table 5: TPR of the annotated BTCs (``biasfinder_tpr``, the
  frame of :func:`toolkit.studies.biasfinder.tpr_table`).
- ``btcsam_table2`` — Kardkovács et al. 2025, Table 2: detection probability with its interval
  (``btcsam_detection``); ``btcsam_table3`` — Table 3: diversity (``btcsam_diversity``); ``btcsam_table4`` —
  Table 4: diversity per stage (``btcsam_stage_diversity``, the frame of
  :func:`toolkit.studies.btcsam.stage_diversity`); ``btcsam_table5`` — Table 5: failure % with its interval and
  the excess over the same-group null (``btcsam_failure_pct``).

Numbers: one precision per column (:func:`column_decimals`: whole-number columns as integers, else 3 decimals
below 10, 2 below 100, 1 below 1000), p-values below 0.001 as ``<0.001`` (:func:`format_number`), missing values
as ``--``, negative numbers with a math minus. Unicode the papers' columns use (Δ, ↑, ↓, θ, κ, ±, −, ≥, ≤)
becomes math; pdfLaTeX's default UTF-8 input handles the rest of Latin text.

Text from a corpus or a run folder (names, reviews, model specs) is made safe for pdfLaTeX by :func:`escape`, so a
``.tex`` file always compiles (with the OT1 default and with ``\\usepackage[T1]{fontenc}``) and shows what the
table holds: the text is NFC-normalised; ``[`` and ``*`` are braced (``{[}``, ``{*}``: a cell starting with ``[``
would be read as the optional argument of the ``\\\\`` or ``\\midrule`` before it, and one starting with ``*`` would
lose it to the ``\\\\*`` form); the pairs TeX turns into other characters
(``--`` en dash, ``---`` em dash, ````` `` ````` and ``''`` quotes, ``!``` and ``?``` inverted marks, ``,,`` low
quotes) are split by ``{}`` (``-{}-``); ``|`` is ``\\textbar{}``; invisible format characters (Unicode category
Cf: bidi controls such as U+202E, zero-width spaces and joiners, the BOM, soft hyphens) are removed, so they can
neither reorder the printed text nor break the compile; and every other character pdfLaTeX's fonts lack
(emoji, CJK, most scripts beyond Latin, control characters) becomes a visible placeholder, a bold ``?`` with its
code point (``\\textbf{?}\\textsuperscript{U+1F600}``; :data:`PLACEHOLDER`). :data:`SAFE_CODEPOINTS` lists what
passes unchanged (checked against TeX Live 2022's pdfLaTeX; ``tests/test_latex.py`` compiles hostile tables when
pdflatex is installed).
"""
from __future__ import annotations

import math
import numbers
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from toolkit.errors import InputError, SchemaError, unknown

MISSING = "--"
_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
            "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "<": r"\textless{}",
            ">": r"\textgreater{}", "Δ": r"$\Delta$", "↑": r"$\uparrow$", "↓": r"$\downarrow$", "θ": r"$\theta$",
            "κ": r"$\kappa$", "±": r"$\pm$", "−": r"$-$", "≥": r"$\geq$", "≤": r"$\leq$", "×": r"$\times$",
            "≠": r"$\neq$", "\n": " ", "\r": " ", "\t": " ", "[": "{[}", "*": "{*}",
            "|": r"\textbar{}"}
ENVIRONMENTS = ("table", "table*")
_SAFE_RANGES = ((0x20, 0x7E), (0xA0, 0xAA), (0xAC, 0xBA), (0xBC, 0xCF), (0xD1, 0xDD), (0xDF, 0xEF), (0xF1, 0xFD),
                (0xFF, 0x103), (0x106, 0x10F), (0x112, 0x117), (0x11A, 0x125), (0x128, 0x12D), (0x130, 0x137),
                (0x139, 0x13E), (0x141, 0x148), (0x14C, 0x165), (0x168, 0x171), (0x174, 0x17E), (0x192, 0x192),
                (0x1C4, 0x1D4), (0x1E2, 0x1E3), (0x1E6, 0x1E9), (0x1F0, 0x1F0), (0x1F4, 0x1F5), (0x218, 0x21B),
                (0x232, 0x233), (0x237, 0x237), (0x2010, 0x2016), (0x2018, 0x2019), (0x201C, 0x201D),
                (0x2020, 0x2022), (0x2026, 0x2026), (0x2030, 0x2031), (0x203B, 0x203B), (0x203D, 0x203D),
                (0x2044, 0x2044), (0x204E, 0x204E), (0x2052, 0x2052), (0x20AC, 0x20AC), (0x2103, 0x2103),
                (0x2116, 0x2116), (0x2122, 0x2122), (0x2190, 0x2190), (0x2192, 0x2192))
SAFE_CODEPOINTS = frozenset(c for low, high in _SAFE_RANGES for c in range(low, high + 1))
"""Code points pdfLaTeX (UTF-8 input, OT1 or T1 font encoding) prints as they are; others are escaped, mapped to
math, removed (format characters) or shown as :data:`PLACEHOLDER`."""
PLACEHOLDER = r"\textbf{?}\textsuperscript{U+%04X}"
_LIGATURES = frozenset({"--", "``", "''", "!`", "?`", ",,"})


def _character(ch: str) -> str:
    if ch in _SPECIAL:
        return _SPECIAL[ch]
    if ord(ch) in SAFE_CODEPOINTS:
        return ch
    if unicodedata.category(ch) == "Cf":  # bidi controls, zero-width characters, BOM: invisible, never printed
        return ""
    return PLACEHOLDER % ord(ch)


def escape(text: object) -> str:
    """``text`` as LaTeX text that pdfLaTeX compiles and prints as written: ``\\ & % $ # _ { } ~ ^ < > [ * |``
    escaped, line breaks as spaces, the Greek letters and arrows of the tables' headers as math, ligature pairs
    (``--``, ````` `` `````, ``''``, ``!```, ``?```, ``,,``) split, format characters (bidi controls, zero-width
    characters) removed, characters outside pdfLaTeX's fonts as a visible ``?`` with their code point (module
    docstring)."""
    out: list[str] = []
    previous = ""
    for ch in unicodedata.normalize("NFC", str(text)):
        piece = _character(ch)
        if piece and previous + ch in _LIGATURES:
            out.append("{}")
        out.append(piece)
        previous = ch if piece == ch else ""
    return "".join(out)


def format_number(value: object, *, decimals: int = 3, p_value: bool = False) -> str:
    """One cell: a number with ``decimals`` decimals (whole numbers of a whole-number column as they are), a
    p-value (``p_value``) below 0.001 as ``<0.001``, a negative sign as math minus, missing values as ``--``,
    booleans as yes/no, text escaped."""
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return MISSING
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return "yes" if value else "no"
    if not isinstance(value, numbers.Real):
        return escape(value)
    number = float(value)
    if math.isnan(number):
        return MISSING
    if math.isinf(number):
        return r"$\infty$" if number > 0 else r"$-\infty$"
    if p_value and 0 <= number < 0.001:
        return r"$<$0.001"
    text = f"{int(value):d}" if isinstance(value, numbers.Integral) else f"{number:.{decimals}f}"
    if text.lstrip("-").strip("0.") == "":  # -0.000 is 0.000
        text = text.lstrip("-")
    return f"$-${text[1:]}" if text.startswith("-") else text


def column_decimals(series: pd.Series) -> int:
    """Decimals for a numeric column: 0 when every value is whole, else 3 below 10, 2 below 100, 1 below 1000,
    0 from there (by the largest magnitude), so a column reads with one precision."""
    values = pd.to_numeric(series, errors="coerce").dropna().astype(float)
    values = values[values.abs() != math.inf]
    if values.empty or (values == values.round()).all():
        return 0
    largest = values.abs().max()
    return 3 if largest < 10 else 2 if largest < 100 else 1 if largest < 1000 else 0


def _is_number(series: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(series.dtype)


def _is_p(column: str) -> bool:
    return column == "p" or column.startswith(("p_", "null_p"))


def to_latex(*, table: pd.DataFrame, caption: str, label: str,
             columns: Sequence[str] | Mapping[str, str] | None = None, group: str | None = None,
             environment: str = "table", note: str = "") -> str:
    """``table`` as a LaTeX table: ``columns`` (names, or name → header; default all) in a ``tabular`` with
    booktabs rules (``l`` for text, ``r`` for numbers), ``\\caption{caption}`` (escaped) and ``\\label{label}``
    below it, in ``environment`` (``table`` or ``table*`` for the full page width). ``group`` (one of the columns)
    prints its value once per block of equal values and puts a ``\\midrule`` between blocks; ``note`` (escaped) is
    added to the caption. A named index becomes columns. Unknown columns are SchemaError (TK101)."""
    if not isinstance(table, pd.DataFrame):
        raise InputError(f"table must be a pandas DataFrame; got {type(table).__name__}.",
                         fix="pass a study's result table.")
    if environment not in ENVIRONMENTS:
        raise unknown("environment", environment, ENVIRONMENTS)
    if not label or any(ch in label for ch in "\\{}%#$&~^ "):
        raise InputError(f"label {label!r} must be non-empty, without spaces or LaTeX special characters.",
                         fix="use letters, digits and : - . _ only, e.g. 'tab:eec-table5'.")
    frame = table.reset_index() if any(n is not None for n in table.index.names) else table
    headers = dict(columns) if isinstance(columns, Mapping) else {c: c for c in (columns or list(frame.columns))}
    missing = [c for c in headers if c not in frame.columns]
    if group is not None and group not in headers:
        missing.append(group)
    if missing:
        raise SchemaError(f"the table lacks column(s) {', '.join(map(repr, missing))}; it has "
                          f"{', '.join(map(str, frame.columns))}.", fix="pick columns the table has.")
    names = list(headers)
    if group is not None:  # the block column first
        names = [group] + [c for c in names if c != group]
    spec = "".join("r" if _is_number(frame[c]) else "l" for c in names)
    decimals = {c: column_decimals(frame[c]) if _is_number(frame[c]) else 3 for c in names}
    lines = [rf"\begin{{{environment}}}[t]", r"\centering", r"\small", rf"\begin{{tabular}}{{{spec}}}", r"\toprule",
             " & ".join(escape(headers[c]) for c in names) + r" \\", r"\midrule"]
    previous = object()
    for position, row in enumerate(frame.loc[:, names].itertuples(index=False, name=None)):
        cells = [format_number(v, decimals=decimals[c], p_value=_is_p(str(c))) for c, v in zip(names, row)]
        if group is not None:
            if position and row[0] != previous:
                lines.append(r"\midrule")
            if row[0] == previous:
                cells[0] = ""
            previous = row[0]
        lines.append(" & ".join(cells) + r" \\")
    text = escape(caption) + (" " + escape(note) if note else "")
    lines += [r"\bottomrule", r"\end{tabular}", rf"\caption{{{text}}}", rf"\label{{{label}}}",
              rf"\end{{{environment}}}"]
    return "\n".join(lines) + "\n"


# --- the papers' tables -------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class PaperTable:
    """One paper table: drawn from the study table ``source``, rows chosen by ``rows`` (None: all), ``columns``
    (name → header; those in ``optional`` are left out when absent), blocks by ``group``."""

    name: str
    paper: str
    source: str
    caption: str
    columns: tuple[tuple[str, str], ...]
    optional: frozenset[str] = frozenset()
    rows: Callable[[pd.DataFrame], pd.DataFrame] | None = None
    group: str | None = None
    environment: str = "table"


def _where(**equal: str) -> Callable[[pd.DataFrame], pd.DataFrame]:
    def select(frame: pd.DataFrame) -> pd.DataFrame:
        missing = [c for c in equal if c not in frame.columns]
        if missing:
            raise SchemaError(f"the table lacks column(s) {', '.join(map(repr, missing))}.",
                              fix="pass the study table the entry names as its source.")
        mask = pd.Series(True, index=frame.index)
        for column, value in equal.items():
            mask &= frame[column].astype(str) == value
        return frame[mask]
    return select


_STATS = (("estimate", "estimate"), ("ci_low", "CI low"), ("ci_high", "CI high"), ("p_adjusted", "p adj."),
          ("verdict", "verdict"))
_OPTIONAL_STATS = frozenset(c for c, _ in _STATS)
_EEC_GROUP = {"Table 5": ("gender", "all", "F", "M", "gender, all sentences"),
              "Table 6": ("gender", "neutral", "F", "M", "gender, sentences without an emotion word"),
              "Table 7": ("race", "all", "AA", "EA", "race, all sentences")}
_EEC = "Kiritchenko & Mohammad 2018"


def _eec_entries() -> list[PaperTable]:
    entries = []
    for table, (attribute, subset, a, b, what) in _EEC_GROUP.items():
        number = table.split()[1]
        entries.append(PaperTable(
            name=f"eec_table{number}", paper=f"{_EEC}, {table}", source="eec_summary", group="task",
            caption=f"EEC ({what}): systems per bias group and their average score difference "
                    f"({_EEC}, {table}); scores are valence or intensity in [0, 1].",
            columns=(("task", "task"), ("direction", "bias group"), ("n_systems", "#systems"),
                     ("avg_diff_a_higher", f"avg Δ {a}↑–{b}↓"), ("avg_diff_a_lower", f"avg Δ {a}↓–{b}↑")),
            rows=_where(table=table)))
        entries.append(PaperTable(
            name=f"eec_table{number}_systems", paper=f"{_EEC}, {table} (per system)", source="eec_tests",
            group="task", environment="table*",
            caption=f"EEC ({what}), per system: paired t-test over n pairs with Bonferroni p (the paper's), and the "
                    f"mean Δ = {a} − {b} with templates and names as samples: estimate, 95% interval "
                    "simultaneous over the family, corrected p and verdict.",
            columns=(("task", "task"), ("model", "system"), ("n_pairs", "n"), ("mean_diff", "mean Δ"),
                     ("p_bonferroni", "p Bonf."), *_STATS),
            optional=_OPTIONAL_STATS, rows=_where(attribute=attribute, subset=subset)))
    return entries


PAPER_TABLES: dict[str, PaperTable] = {entry.name: entry for entry in [
    *_eec_entries(),
    PaperTable(
        name="psa_table2", paper="Prabhakaran et al. 2019, Table 2", source="psa_summary", group="corpus",
        caption="PSA: ScoreDev and ScoreRange per model with 95% bootstrap intervals over sentences "
                "(Prabhakaran et al. 2019, Table 2); valence in [0, 1], half the paper's [−1, 1] scale.",
        columns=(("corpus", "corpus"), ("model", "model"), ("n_texts", "n sentences"), ("n_names", "n names"),
                 ("score_dev", "ScoreDev"), ("score_dev_low", "CI low"), ("score_dev_high", "CI high"),
                 ("score_range", "ScoreRange"), ("score_range_low", "CI low"), ("score_range_high", "CI high")),
        optional=frozenset({"score_dev_low", "score_dev_high", "score_range_low", "score_range_high"}),
        environment="table*"),
    PaperTable(
        name="psa_gender_gap", paper="beyond Prabhakaran et al. 2019", source="psa_gender", group="corpus",
        environment="table*",
        caption="PSA: mean score with female names − with male names (estimate), its two-way bootstrap interval "
                "(sentences and name pairs as samples), the placebo null's range, corrected p and verdict.",
        columns=(("corpus", "corpus"), ("model", "model"), ("n_texts", "n sentences"), ("n_pairs", "name pairs"),
                 ("estimate", "estimate"), ("ci_low", "CI low"), ("ci_high", "CI high"), ("null_low", "null low"),
                 ("null_high", "null high"), ("p_adjusted", "p adj."), ("verdict", "verdict")),
        optional=frozenset({"null_low", "null_high"})),
    PaperTable(
        name="biasfinder_table4", paper="Asyrofi et al. 2021, Table 4", source="biasfinder_table4",
        group="attribute", environment="table*",
        caption="BiasFinder: templates, mutants and bias-uncovering test cases (BTCs) per characteristic and model "
                "(Asyrofi et al. 2021, Table 4), with the BTC rate and its 95% interval, the within-class null rate "
                "and the excess over it.",
        columns=(("attribute", "characteristic"), ("model", "model"), ("templates", "templates"),
                 ("mutants", "mutants"), ("templates_with_btc", "templates w/ BTC"), ("btcs", "BTCs"),
                 ("btc_rate", "BTC rate"), ("btc_rate_low", "CI low"), ("btc_rate_high", "CI high"),
                 ("null_rate", "null rate"), ("excess", "excess"), ("excess_low", "CI low"),
                 ("excess_high", "CI high"), ("verdict", "verdict")),
        optional=frozenset({"btc_rate", "btc_rate_low", "btc_rate_high", "null_rate", "excess", "excess_low",
                            "excess_high", "verdict"})),
    PaperTable(
        name="biasfinder_table5", paper="Asyrofi et al. 2021, Table 5", source="biasfinder_tpr",
        caption="BiasFinder: true-positive rate of the annotated BTCs per annotator with its 95% Wilson interval "
                "(Asyrofi et al. 2021, Table 5).",
        columns=(("annotator", "annotator"), ("rule", "rule"), ("n_btcs", "n BTCs"),
                 ("true_positives", "true positives"), ("tpr", "TPR"), ("tpr_low", "CI low"),
                 ("tpr_high", "CI high")),
        optional=frozenset({"true_positives", "tpr_low", "tpr_high"})),
    PaperTable(
        name="btcsam_table2", paper="Kardkovács et al. 2025, Table 2", source="btcsam_detection", group="theta",
        caption="BTC-SAM: detection probability per test set and bias type at each θ, averaged over models and "
                "cases, with its 95% Wilson interval (Kardkovács et al. 2025, Table 2).",
        columns=(("theta", "θ"), ("test_set", "test set"), ("bias_type", "bias type"), ("n_cases", "n cases"),
                 ("n_models", "models"), ("detection_probability", "detection prob."), ("ci_low", "CI low"),
                 ("ci_high", "CI high")),
        optional=frozenset({"ci_low", "ci_high"})),
    PaperTable(
        name="btcsam_table3", paper="Kardkovács et al. 2025, Table 3", source="btcsam_diversity",
        environment="table*",
        caption="BTC-SAM: diversity of each test set (Kardkovács et al. 2025, Table 3).",
        columns=(("test_set", "test set"), ("unique_cases", "cases"), ("sentences", "sentences"),
                 ("unique_tokens", "unique tokens"), ("mean_chars", "chars/sent."), ("mean_tokens", "tokens/sent."),
                 ("mean_word_len", "word length"), ("identity_terms", "identity terms"),
                 ("concept_terms", "concept terms"))),
    PaperTable(
        name="btcsam_table4", paper="Kardkovács et al. 2025, Table 4", source="btcsam_stage_diversity",
        group="test_set", environment="table*",
        caption="BTC-SAM: diversity per generation stage, with the mean word-level edit distance to the source "
                "(Kardkovács et al. 2025, Table 4).",
        columns=(("test_set", "test set"), ("stage", "stage"), ("unique_cases", "cases"), ("sentences", "sentences"),
                 ("unique_tokens", "unique tokens"), ("mean_chars", "chars/sent."), ("mean_tokens", "tokens/sent."),
                 ("mean_word_len", "word length"), ("identity_terms", "identity terms"),
                 ("concept_terms", "concept terms"), ("mean_edit_distance", "edit distance"))),
    PaperTable(
        name="btcsam_table5", paper="Kardkovács et al. 2025, Table 5", source="btcsam_failure_pct", group="model",
        environment="table*",
        caption="BTC-SAM: failure % per model, test set and bias type with its 95% Wilson interval "
                "(Kardkovács et al. 2025, Table 5), and the excess of cross-group over same-group pairs with "
                "Newcombe's interval, corrected p and verdict.",
        columns=(("model", "model"), ("test_set", "test set"), ("bias_type", "bias type"), ("theta", "θ"),
                 ("n_cases", "n cases"), ("n_failed", "failed"), ("failure_pct", "failure %"), ("ci_low", "CI low"),
                 ("ci_high", "CI high"), ("excess_pct", "excess"), ("excess_low", "CI low"),
                 ("excess_high", "CI high"), ("p_adjusted", "p adj."), ("verdict", "verdict")),
        optional=frozenset({"ci_low", "ci_high", "excess_pct", "excess_low", "excess_high", "p_adjusted",
                            "verdict"})),
]}


def paper_table(*, name: str, table: pd.DataFrame) -> str:
    """The LaTeX of the paper table ``name`` (a key of :data:`PAPER_TABLES`) drawn from ``table``, its source
    (e.g. ``eec_summary`` for ``eec_table5``). Unknown name: UnknownNameError (TK103) listing the names; a source
    without a required column: SchemaError (TK101)."""
    if name not in PAPER_TABLES:
        raise unknown("paper table", name, PAPER_TABLES)
    entry = PAPER_TABLES[name]
    frame = entry.rows(table) if entry.rows is not None else table
    columns = {c: h for c, h in entry.columns if c in table.columns or c not in entry.optional}
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise SchemaError(f"{name} is drawn from {entry.source}, but the table given lacks "
                          f"{', '.join(map(repr, missing))}.", fix=f"pass the {entry.source} table of a run.")
    return to_latex(table=frame, caption=entry.caption, label=f"tab:{name.replace('_', '-')}", columns=columns,
                    group=entry.group, environment=entry.environment)


def paper_tables(*, tables: Mapping[str, pd.DataFrame]) -> dict[str, str]:
    """``{name: LaTeX}`` for every paper table whose source is among ``tables`` (name → frame, as a study's
    ``write`` passes them to :func:`toolkit.results.write`) and that has at least one row."""
    out = {}
    for name, entry in PAPER_TABLES.items():
        if entry.source in tables:
            frame = tables[entry.source]
            if len(entry.rows(frame) if entry.rows is not None else frame):
                out[name] = paper_table(name=name, table=frame)
    return out


def from_run(*, out_dir: str | Path, folder: str | Path | None = None) -> list[Path]:
    """Write ``<name>.tex`` for every paper table of the run in ``out_dir`` (its tables read with
    :func:`toolkit.results.read_table`, the formula guard taken off) into ``folder`` (default ``out_dir``); return
    the paths. For runs written without ``--latex``; files written here are not listed in the run's provenance."""
    from toolkit import report, results

    run = report.load_run(out_dir=out_dir)
    target = Path(folder) if folder is not None else Path(out_dir).expanduser()
    written = []
    for name, text in paper_tables(tables={n: t.frame for n, t in run.tables.items()}).items():
        written.append(results.write_file(target / f"{name}.tex",
                                          lambda handle, data=text.encode("utf-8"): handle.write(data)))
    return written
