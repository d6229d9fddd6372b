"""``python -m toolkit.nlp.neuralcoref fetch|check``: :func:`toolkit.nlp.neuralcoref.main`. A module of its own, so
running the command imports the package once (as ``toolkit.nlp`` already did) and Python has nothing to warn about."""
import sys

from toolkit.nlp.neuralcoref import main

sys.exit(main())
