"""Shared test settings: every test runs offline, with no telemetry from the host frameworks."""

import os
from pathlib import Path

os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
os.environ.setdefault("TELEMETRY_DISABLED", "1")

# The editable install exposes only the project's import packages (pyproject `dev-mode-exact`), so
# the repository root, and with it our `tests` package, is not on sys.path outside pytest. Processes
# that tests start import their helpers from `tests.*`: give them the root, for this run only.
_REPO = str(Path(__file__).resolve().parent.parent)
os.environ["PYTHONPATH"] = os.pathsep.join(
    p for p in (_REPO, os.environ.get("PYTHONPATH", "")) if p
)
