"""Cognee's own adapter test modules, fetched from the installed wheel at test time.

The files are copied into a temporary directory (never into this repository), imported from
there, and their adapter fixtures replaced by ones that build anatid adapters. A test that
exercises another backend's internals is marked with the reason it does not apply.
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
import tempfile
from pathlib import Path
from types import ModuleType

import cognee

WHEEL_TESTS = Path(cognee.__file__).parent / "tests"
_COPIES = Path(tempfile.mkdtemp(prefix="anatid-cognee-suites-"))


def load_wheel_module(relative: str, *companions: str) -> ModuleType:
    """Copy ``cognee/tests/<relative>`` (and companion data files) to a temp dir and import it."""
    source = WHEEL_TESTS / relative
    if not source.exists():
        raise FileNotFoundError(f"{source} is not in the installed cognee wheel")
    target = _COPIES / source.name
    shutil.copyfile(source, target)
    for name in companions:
        shutil.copyfile(source.parent / name, _COPIES / name)
    module_name = f"_cognee_wheel_{source.stem}"
    spec = importlib.util.spec_from_file_location(module_name, target)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


def export_tests(module: ModuleType, namespace: dict, skip: dict[str, str]) -> None:
    """Put the module's tests (and helpers they use) into ``namespace`` so pytest collects
    them there; tests named in ``skip`` are skipped with the given reason."""
    import pytest

    for name, value in vars(module).items():
        if name.startswith("__") or name in namespace:
            continue
        if name.startswith("test_") and callable(value):
            if name in skip:
                value = pytest.mark.skip(reason=skip[name])(value)
        namespace[name] = value
