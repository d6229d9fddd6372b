"""The README a newcomer follows: a short quick start with the two commands, links into docs/ that resolve (files and
anchors), no development paths, no internal issue numbers; the same for the docs pages it points to and for the
notebooks' markdown and parameter comments."""
import json
import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
# The pages this README links into and that hold what it used to: checked like the README itself.
PAGES = ["docs/index.md", "docs/notebooks.md", "docs/models.md", "docs/data.md", "docs/reference.md"]
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
ISSUE = re.compile(r"\bissues? ?#?\d+", re.IGNORECASE)


def _prose(text: str) -> list[str]:
    """The lines outside fenced code blocks."""
    lines, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            lines.append(line)
    return lines


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped (hyphens and underscores kept), spaces to -."""
    text = heading.strip().lower()
    text = "".join(ch for ch in text if ch in " -_" or unicodedata.category(ch)[0] in "LN")
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for line in _prose(path.read_text(encoding="utf-8")):
        match = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if match:
            slug = _slug(match.group(1))
            out.add(slug if slug not in seen else f"{slug}-{seen[slug]}")
            seen[slug] = seen.get(slug, 0) + 1
    return out


def _links(path: Path) -> list[str]:
    return [m.group(1) for line in _prose(path.read_text(encoding="utf-8")) for m in LINK.finditer(line)]


def test_slug_follows_githubs_rule():
    assert _slug("`make figures` parameters") == "make-figures-parameters"
    assert _slug("BTC-SAM's model zoo") == "btc-sams-model-zoo"
    assert _slug("Precision: faster scoring on a CPU") == "precision-faster-scoring-on-a-cpu"
    assert _slug("SemEval-2018 Task 1 (the `ait:` systems)") == "semeval-2018-task-1-the-ait-systems"


@pytest.mark.parametrize("page", ["README.md", *PAGES])
def test_every_relative_link_resolves_to_a_file_and_anchor(page):
    source = ROOT / page
    broken = []
    for target in _links(source):
        if re.match(r"[a-z]+:", target):  # https:, mailto: — not checked offline
            continue
        file_part, _, anchor = target.partition("#")
        linked = (source.parent / file_part).resolve() if file_part else source
        if not linked.exists():
            broken.append(f"{target}: no file {linked.relative_to(ROOT) if ROOT in linked.parents else linked}")
        elif anchor and linked.suffix == ".md" and anchor not in _anchors(linked):
            broken.append(f"{target}: no heading with anchor #{anchor} in {linked.name}")
    assert not broken, f"{page}: " + "; ".join(broken)


def test_readme_links_into_docs_and_every_docs_page_it_names_exists():
    targets = {t.partition("#")[0] for t in _links(README) if t.startswith("docs/")}
    assert {"docs/index.md", "docs/data.md", "docs/models.md", "docs/notebooks.md"} <= targets
    index = {t.partition("#")[0] for t in _links(ROOT / "docs" / "index.md")}
    listed = {p.name for p in (ROOT / "docs").glob("*.md")} - {"index.md"}
    assert {Path(p).name for p in PAGES[1:]} <= index, "docs/index.md must list the pages the README moved into"
    assert index <= listed | {"../README.md"}


def test_quick_start_fits_one_screen_and_comes_before_the_recipes():
    lines = README.read_text(encoding="utf-8").splitlines()
    headings = [i for i, line in enumerate(lines) if line.startswith("## ")]
    start = next(i for i in headings if lines[i].lower().startswith("## quick start"))
    end = next(i for i in headings if i > start)
    assert end - start <= 40, f"quick start is {end - start} lines"
    first_recipe = next(i for i, line in enumerate(lines) if line.startswith("### EEC"))
    assert start < first_recipe <= 70, first_recipe
    for paper in ("### EEC", "### PSA", "### BiasFinder", "### BTC-SAM"):
        assert any(line.startswith(paper) for line in lines), paper


def test_quick_start_has_the_two_commands_ci_runs_in_one_bash_block():
    text = README.read_text(encoding="utf-8")
    block = re.search(r"```bash\n(make figures[^\n]*\nmake test[^\n]*\n)```", text)
    assert block, "the two-command block (make figures, make test) is missing"
    assert "make test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "JupyterLab" in text and "figures/" in text


def test_each_recipe_names_its_paper_and_data_sources():
    text = README.read_text(encoding="utf-8")
    for needle in ("10.18653/v1/S18-2005", "10.18653/v1/D19-1578", "10.1109/TSE.2021.3136169",
                   "10.18653/v1/2025.emnlp-main.763", "https://ai.stanford.edu/~amaas/data/sentiment/",
                   "https://competitions.codalab.org/competitions/17751", "https://saifmohammad.com/WebPages/Biases-SA.html",
                   "Apache-2.0"):
        assert needle in text, needle


def test_btcsam_data_section_named_by_the_missing_files_error_exists():
    # toolkit.studies.btcsam's missing-files message sends users to the README's section 'BTC-SAM data'.
    assert "btc-sam-data" in _anchors(README)


def test_times_are_one_table_with_a_date_or_an_estimate_on_every_row():
    lines = README.read_text(encoding="utf-8").splitlines()
    start = lines.index("## Times")
    rows = [line for line in lines[start:] if line.startswith("| ") and not line.startswith("| run ")]
    assert len(rows) >= 4
    for row in rows:
        assert re.search(r"20\d\d-\d\d|estimated|not re-measured", row), row


@pytest.mark.parametrize("page", ["README.md", *PAGES])
def test_no_development_paths_or_issue_numbers(page):
    text = (ROOT / page).read_text(encoding="utf-8")
    assert "../shared" not in text and "shared/data" not in text, page
    assert not ISSUE.search(text), f"{page}: {ISSUE.search(text).group(0)!r}"


def test_notebook_markdown_and_parameter_comments_have_no_development_paths():
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
            if cell["cell_type"] == "markdown" or "parameters" in cell.get("metadata", {}).get("tags", []):
                assert "../shared" not in source and "shared/data" not in source, path.name
                assert not ISSUE.search(source), (path.name, ISSUE.search(source).group(0))
