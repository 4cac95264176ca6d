"""Shared test settings: every test runs offline, with no telemetry from the host frameworks."""

import os

os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
os.environ.setdefault("TELEMETRY_DISABLED", "1")
