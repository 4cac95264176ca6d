"""Cognee's deletion calls run inside an erasure scope (issue 15).

Cognee has no hook that tells a storage adapter "this delete is the user's": its deletion API
and its pipelines call the same ``delete_nodes``/``delete_data_points``. So registration wraps
the functions through which every public deletion path of Cognee 1.6 passes, each looked up by
Cognee at call time (class attributes, module globals), so the SDK, the HTTP routes, the CLI
and ``cognee-mcp`` all reach the wrapper:

* ``cognee.datasets.delete_data``, ``empty_dataset``, ``delete_all`` (also what
  ``cognee.delete``, ``forget(data_id=...)``, ``forget(dataset=...)`` and
  ``forget(everything=True)`` call);
* ``forget(..., memory_only=True)``'s two helpers;
* ``cognee.prune.prune_system`` and ``prune_data`` (the latter removes raw files only);
* the skills API's delete (``DELETE /api/v1/skills/...``).

Each wrapper runs Cognee's function unchanged inside :func:`anatid_cognee.erasures.erasure`.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from typing import Any

from .erasures import erasure

_MARK = "__anatid_erasure__"

#: (module, class or None, attribute) of every wrapped Cognee function.
TARGETS: tuple[tuple[str, str | None, str], ...] = (
    ("cognee.api.v1.datasets.datasets", "datasets", "delete_data"),
    ("cognee.api.v1.datasets.datasets", "datasets", "empty_dataset"),
    ("cognee.api.v1.datasets.datasets", "datasets", "delete_all"),
    ("cognee.api.v1.forget.forget", None, "_forget_dataset_memory"),
    ("cognee.api.v1.forget.forget", None, "_forget_data_memory"),
    ("cognee.api.v1.prune.prune", "prune", "prune_system"),
    ("cognee.api.v1.prune.prune", "prune", "prune_data"),
    ("cognee.api.v1.skills.list_skills", None, "_delete_skill_in_context"),
)


def _scoped(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        async with erasure():
            return await fn(*args, **kwargs)

    setattr(wrapper, _MARK, True)
    return wrapper


def install() -> None:
    """Wrap every target once (idempotent). A target Cognee does not have is an error: the
    pinned Cognee (1.6) has them all, and a silent miss would turn erasures back into soft
    deletes."""
    for module_name, owner_name, attr in TARGETS:
        module = importlib.import_module(module_name)
        owner: Any = getattr(module, owner_name) if owner_name else module
        fn = getattr(owner, attr)
        if getattr(fn, _MARK, False):
            continue
        wrapped = _scoped(fn)
        setattr(owner, attr, staticmethod(wrapped) if owner_name else wrapped)


def installed() -> bool:
    """Whether every target is wrapped."""
    for module_name, owner_name, attr in TARGETS:
        module = importlib.import_module(module_name)
        owner: Any = getattr(module, owner_name) if owner_name else module
        if not getattr(getattr(owner, attr), _MARK, False):
            return False
    return True


__all__ = ["TARGETS", "install", "installed"]
