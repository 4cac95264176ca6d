"""``python -m anatid_core.cli``: the same as the ``anatid`` console script."""

import sys

from .app import main

sys.exit(main())
