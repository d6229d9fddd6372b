"""Every PDF a study writes embeds its fonts as TrueType (Type 42), never Type 3, which ACL's and IEEE's PDF checks
reject (issue 26)."""
from __future__ import annotations

import re


def _font_subtypes(pdf: bytes) -> set[str]:
    return set(re.findall(rb"/Subtype\s*/(Type3|Type1|TrueType|CIDFontType2|CIDFontType0|Type0)", pdf))


def test_every_pdf_of_the_eec_and_psa_runs_embeds_truetype_fonts(tmp_path):
    from toolkit.studies import eec, psa

    eec.write(eec.run(models=["vader"], subsets=["all"], cache=False, n_boot=200), tmp_path / "eec",
              figures_dir=tmp_path / "fig")
    psa.write(psa.run(corpus="sample", models=["vader"], n=6, n_boot=20, cache=False), tmp_path / "psa",
              figures_dir=tmp_path / "fig")
    pdfs = sorted((tmp_path / "fig").glob("*.pdf"))
    assert len(pdfs) >= 5  # EEC's figures and PSA's label distribution (VADER's one-bar ScoreSens is said in words)
    from toolkit import plots

    for path in pdfs:
        pdf = path.read_bytes()
        kinds = _font_subtypes(pdf)
        assert b"Type3" not in kinds and kinds & {b"CIDFontType2", b"TrueType"}, (path.name, kinds)
        width = float(re.search(rb"/MediaBox\s*\[\s*[-\d.]+\s+[-\d.]+\s+([-\d.]+)", pdf).group(1)) / 72
        assert width <= plots.preset().width + 1e-6, (path.name, width)  # the PSA ScoreSens PDF was 12.6 in


def test_plots_save_embeds_truetype_and_leaves_the_global_settings_alone(tmp_path):
    import matplotlib

    from toolkit import plots

    before = matplotlib.rcParams["pdf.fonttype"]
    ax = plots.new_axes()
    ax.set_title("Δ by system")
    plots.save(ax, tmp_path / "f.png")
    assert b"Type3" not in _font_subtypes((tmp_path / "f.pdf").read_bytes())
    assert matplotlib.rcParams["pdf.fonttype"] == before
