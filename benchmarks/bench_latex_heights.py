"""Every paper table at realistic sizes (tests/test_outputs_latex.py's: EEC 30 systems, PSA and BiasFinder four
models, BTC-SAM four models on ten sets) compiled with pdflatex at the four presets: each table's floats and their
heights in pt as TeX measures them, overfull boxes and "Float too large" warnings. Needs pdflatex.

    .venv/bin/python benchmarks/bench_latex_heights.py [out.json]

To measure another checkout's renderer with the same tables, run it from that checkout's root with
``TOOLKIT_TESTS=/path/to/this/checkout/tests``."""
from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(Path.cwd()), os.environ.get("TOOLKIT_TESTS", str(HERE / "tests")), str(HERE / "tests")]

import test_outputs_latex as sizes  # noqa: E402
from latex_harness import PDFLATEX, compile_tables  # noqa: E402

from toolkit.outputs import latex  # noqa: E402


def main() -> None:
    if PDFLATEX is None:
        sys.exit("pdflatex is not installed")
    out = {}
    for preset in sorted(latex.WIDTHS):
        tables = sizes.all_tables(preset)
        with tempfile.TemporaryDirectory() as folder:
            compiled = compile_tables(tables, Path(folder), preset=preset)
        height = getattr(latex.WIDTHS[preset], "height_pt", None)  # None: a renderer from before the height check
        out[preset] = {"text_height_pt": height, "overfull": len(compiled.overfull),
                       "too_large": len(compiled.too_large),
                       "floats_pt": {n: [round(h) for h in hs] for n, hs in compiled.heights.items()}}
        tallest = max(compiled.heights.items(), key=lambda item: max(item[1] or [0]))
        print(f"{preset}: {len(tables)} tables, overfull {len(compiled.overfull)}, too large "
              f"{len(compiled.too_large)}, tallest float {max(tallest[1]):.0f} pt ({tallest[0]}) of "
              f"{height} pt")
    if len(sys.argv) > 1:
        Path(sys.argv[1]).write_text(json.dumps(out, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
