"""Registers anatid with Cognee whenever Cognee is imported, in any process (issue 12).

Cognee has no plugin discovery: a provider exists only once some module has called
``use_graph_adapter``. Users of ``cognee-cli``, the API server, ``cognee-mcp`` or Cognee's
Docker image write no Python, so the wheel installs ``anatid_cognee_hook.pth``, whose one line
calls :func:`install` at interpreter start-up unless ``ANATID_COGNEE_HOOK=0``.

:func:`install` only puts a finder at the front of ``sys.meta_path``. The finder answers for the name
``cognee`` alone and only once; every other import passes through it with one string
comparison. When ``cognee`` is imported, the finder hands back Cognee's own module spec with
its loader's ``exec_module`` wrapped: Cognee's ``__init__`` runs unchanged to the end, then
``import anatid_cognee`` registers the provider and the dataset handlers. Registering after
Cognee's ``__init__`` has finished (not when the import starts) is what keeps the registration
free of circular imports.

This module imports nothing beyond what site.py has already imported (``os``, ``sys``), and
does no I/O: an interpreter that never imports Cognee pays one tiny module import.
"""

from __future__ import annotations

import os
import sys
from typing import Any

#: Set to 0 / false / no / off to turn the hook off (the .pth line then imports nothing).
ENV_VAR = "ANATID_COGNEE_HOOK"
_OFF = frozenset({"0", "false", "no", "off"})
_TARGET = "cognee"


def disabled() -> bool:
    """Whether ``ANATID_COGNEE_HOOK`` turns the hook off."""
    return os.environ.get(ENV_VAR, "").strip().lower() in _OFF


class CogneeImportHook:
    """A ``sys.meta_path`` finder that answers only for ``cognee``, once."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname != _TARGET:
            return None
        uninstall()
        spec = _real_spec(fullname, path, target)
        loader = getattr(spec, "loader", None)
        if loader is not None and hasattr(loader, "exec_module"):
            _register_after(loader)
        return spec

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: registers anatid when cognee is imported>"


_hook = CogneeImportHook()


def install() -> None:
    """Append the finder to ``sys.meta_path`` (idempotent). If Cognee is already imported,
    register now instead."""
    if disabled():
        return
    if _TARGET in sys.modules:
        _register()
        return
    if _hook not in sys.meta_path:
        # First, ahead of the path finder that would otherwise find Cognee itself.
        sys.meta_path.insert(0, _hook)


def uninstall() -> None:
    """Remove the finder (a no-op when it is not installed)."""
    while _hook in sys.meta_path:
        sys.meta_path.remove(_hook)


def installed() -> bool:
    return _hook in sys.meta_path


def _real_spec(fullname: str, path: Any, target: Any) -> Any:
    """Cognee's spec from the finders after this one (the finder is already removed)."""
    for finder in list(sys.meta_path):
        find_spec = getattr(finder, "find_spec", None)
        if find_spec is None:
            continue
        spec = find_spec(fullname, path, target)
        if spec is not None:
            return spec
    return None


def _register_after(loader: Any) -> None:
    """Make ``loader.exec_module`` run Cognee's ``__init__`` first, then register.

    The wrapper is an attribute of this one loader instance (import machinery creates a loader
    per module), so no class is patched and the loader's type is unchanged.
    """
    exec_module = loader.exec_module

    def exec_module_then_register(module: Any) -> None:
        try:
            exec_module(module)
        except BaseException:
            # Cognee's import failed (it is still in sys.modules until this returns): listen
            # for the next attempt.
            if _hook not in sys.meta_path:
                sys.meta_path.insert(0, _hook)
            raise
        finally:
            try:
                del loader.exec_module
            except AttributeError:
                pass
        _register()

    loader.exec_module = exec_module_then_register


def _register() -> None:
    try:
        import anatid_cognee  # noqa: F401  (its import registers the provider)
    except Exception as exc:  # a broken anatid install must not break `import cognee`
        import warnings

        warnings.warn(
            f"anatid could not register its Cognee provider ({type(exc).__name__}: {exc}). "
            f"Reinstall anatid-drivers[cognee], or set {ENV_VAR}=0 and import anatid_cognee "
            "yourself.",
            RuntimeWarning,
            stacklevel=2,
        )
