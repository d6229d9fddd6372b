"""Execute the numbered notebooks with papermill: ``python -m toolkit.notebooks [NAME …]`` (``make figures``).

Executed copies land in ``data/executed/`` (gitignored); the notebooks write their figures to ``figures/``.
The test suite calls :func:`execute` with small parameters.
"""
from __future__ import annotations

import sys
from pathlib import Path

from toolkit import paths


def notebooks_dir() -> Path:
    return paths.project_root() / "notebooks"


def execute(notebook: str | Path, *, parameters: dict | None = None, output_dir: str | Path | None = None,
            kernel_name: str = "python3", timeout: int = 1800) -> Path:
    """Run one notebook with ``parameters`` injected after its ``parameters`` cell; return the executed copy."""
    import papermill

    source = Path(notebook)
    if not source.exists():
        source = notebooks_dir() / source
    out_dir = Path(output_dir) if output_dir is not None else paths.data_dir() / "executed"
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / source.name
    papermill.execute_notebook(str(source), str(target), parameters=parameters or {}, kernel_name=kernel_name,
                               cwd=str(source.parent), execution_timeout=timeout, progress_bar=False)
    return target


def main(argv: list[str] | None = None) -> int:
    names = argv if argv is not None else sys.argv[1:]
    chosen = [notebooks_dir() / n for n in names] or sorted(notebooks_dir().glob("[0-9][0-9]_*.ipynb"))
    for notebook in chosen:
        print(f"executing {notebook.name} …", flush=True)
        print(f"  → {execute(notebook)}")
    print(f"figures in {paths.figures_dir()}:")
    for figure in sorted(paths.figures_dir().glob("*.png")):
        print(f"  {figure.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
