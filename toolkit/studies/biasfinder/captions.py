"""BiasFinder's table captions, as the apps show them: what the table holds, n, the correction family and its size
(each reads only the study's result or its settings)."""
from __future__ import annotations


def biasfinder_family(settings: dict) -> str:
    """The BiasFinder caption's correction clause; no test when no characteristic has 2 templates with a null."""
    if not settings.get("family_size"):
        return ("no test of the BTC rate: it needs 2 templates of one characteristic with a within-class null; "
                "gender needs n_names ≥ 2 and a name slot, country n_country_names ≥ 2, occupation has no null")
    return (f"{str(settings['correction']).capitalize()} over {settings['family_size']} tests ({settings['family']}); "
            "a model's verdict changes with the models selected")


def biasfinder_table4(*, mutants: int, templates: int, settings: dict, legend: str = "") -> str:
    return (f"BiasFinder Table 4: BTCs per model and characteristic (n = {mutants:,} mutants of {templates:,} "
            f"templates; {biasfinder_family(settings)})." + (f" {legend}" if legend else ""))
