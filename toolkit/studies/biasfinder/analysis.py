"""BiasFinder's measurements (Asyrofi et al., IEEE TSE 2021; seed 000): bias-uncovering test cases (BTCs) and the
human-annotation study of their true-positive rate. One small module per job, every name importable from here:

- :mod:`.counting` — :func:`btcs` (per model × template: pairs of mutants of different classes with different
  labels), :func:`table4` (the paper's Table 4), :func:`sample_templates`, :func:`pair_counts`.
- :mod:`.sampling` — :func:`sample_btcs` (the stratified annotation sample), :func:`sample_strata`,
  :func:`sample_size` (Cochran, finite-population corrected).
- :mod:`.judgements` — :func:`tpr`, :func:`kappa` (statsmodels' Cohen's κ), :func:`tpr_table` and
  :func:`kappa_table` with intervals; the annotation table's columns and accepted values.
- :mod:`.btc_rates` — :func:`rates` (BTC rate, within-class null, excess with a template-clustered bootstrap
  interval, Cohen's h, adjusted p, verdict) and :func:`table4_rates`.

Reading an annotation CSV file is :func:`toolkit.studies.biasfinder.annotation_files.read_annotation_csv` (an output file; the name
stays importable here for one release). Works on any scored case table, not only BiasFinder's.
"""
from toolkit.studies.biasfinder.btc_rates import (
    FEW_TEMPLATES,
    MIN_GIVEN_NAMES,
    MIN_TEMPLATES,
    RATE_COLUMNS,
    RATE_FAMILY,
    RATE_INTERVALS,
    SMALL_TEMPLATES,
    TABLE4_RATE_COLUMNS,
    VERDICT_GROUPS,
    rates,
    table4_rates,
)
from toolkit.studies.biasfinder.counting import (
    BTC_COLUMNS,
    PAIR_COLUMNS,
    TABLE4_COLUMNS,
    btcs,
    pair_counts,
    rate_rows,
    sample_templates,
    table4,
)
from toolkit.studies.biasfinder.judgements import (
    ANNOTATION_COLUMNS,
    ANNOTATION_VALUES,
    KAPPA_COLUMNS,
    TPR_COLUMNS,
    TPR_INTERVAL_COLUMNS,
    TPR_RULES,
    check_annotation_columns,
    kappa,
    kappa_table,
    tpr,
    tpr_table,
)
from toolkit.studies.biasfinder.sampling import SAMPLE_COLUMNS, STRATA_COLUMNS, sample_btcs, sample_size, sample_strata


def __getattr__(name: str):
    """``read_annotation_csv`` lives in :mod:`toolkit.studies.biasfinder.annotation_files` (an output file, a layer above the
    studies): the old name says where, without importing upward."""
    if name == "read_annotation_csv":
        raise AttributeError("toolkit.studies.biasfinder.analysis.read_annotation_csv moved: use "
                             "toolkit.studies.biasfinder.annotation_files.read_annotation_csv (or toolkit.studies.biasfinder.read_annotations)")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["ANNOTATION_COLUMNS", "ANNOTATION_VALUES", "BTC_COLUMNS", "FEW_TEMPLATES", "KAPPA_COLUMNS",
           "MIN_GIVEN_NAMES", "MIN_TEMPLATES", "PAIR_COLUMNS",
           "RATE_COLUMNS", "RATE_FAMILY", "RATE_INTERVALS", "SAMPLE_COLUMNS", "SMALL_TEMPLATES", "STRATA_COLUMNS",
           "TABLE4_COLUMNS", "TABLE4_RATE_COLUMNS", "TPR_COLUMNS", "TPR_INTERVAL_COLUMNS", "TPR_RULES", "VERDICT_GROUPS",
           "btcs", "check_annotation_columns", "kappa", "kappa_table", "pair_counts", "rate_rows", "rates",
           "sample_btcs", "sample_size", "sample_strata", "sample_templates", "table4", "table4_rates", "tpr",
           "tpr_table"]
