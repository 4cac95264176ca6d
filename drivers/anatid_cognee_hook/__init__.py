"""Registers anatid with Cognee whenever Cognee is imported, in any process (issue 12).

Cognee has no plugin discovery: a provider exists only once some module has called
``use_graph_adapter``. Users of ``cognee-cli``, the API server, ``cognee-mcp`` or Cognee's
Docker image write no Python, so the wheel installs ``anatid_cognee_hook.pth``. Its one
executable line runs at every interpreter start-up and only puts a tiny finder at the front of
``sys.meta_path`` (unless ``ANATID_COGNEE_HOOK=0``): the finder compares each imported name
with ``"cognee"`` and returns ``None`` for every other one. Nothing is imported and nothing is
read at start-up; this module is imported only when ``cognee`` is.

When ``cognee`` is looked up, the finder calls :func:`find_spec` here, which resolves Cognee's
own module spec from the other finders and hands it back with its loader's ``exec_module``
wrapped: Cognee's ``__init__`` runs unchanged to the end, then ``import anatid_cognee``
registers the provider and the dataset handlers. The finder stays in place until that wrapped
``exec_module`` actually runs: a lookup that does not import (``importlib.util.find_spec
("cognee")``, as tools do to probe for an optional package) gets a spec whose loader is never
run, so removing the finder there would leave the real import unregistered. Registering after
Cognee's ``__init__`` has finished, not when the import starts, is what keeps the registration
free of circular imports.

:func:`install` puts the same finder in place from Python (e.g. in an interpreter started with
``-S``, where no ``.pth`` file runs).
"""

from __future__ import annotations

import os
import sys

# Not `typing.TYPE_CHECKING`: type checkers treat any name TYPE_CHECKING as true, and this
# module stays free of imports beyond os and sys.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from importlib.machinery import ModuleSpec
    from types import ModuleType

    from _typeshed.importlib import MetaPathFinderProtocol

#: Set to 0 / false / no / off to turn the hook off (the .pth line then installs nothing).
ENV_VAR = "ANATID_COGNEE_HOOK"
_OFF = frozenset({"0", "false", "no", "off"})
_TARGET = "cognee"
#: The attribute that marks the finder, whether the .pth line or :func:`install` made it.
MARK = "anatid_cognee_hook"


def disabled() -> bool:
    """Whether ``ANATID_COGNEE_HOOK`` turns the hook off."""
    return os.environ.get(ENV_VAR, "").strip().lower() in _OFF


class CogneeImportHook:
    """The finder :func:`install` puts in place; the .pth line builds an equivalent one."""

    anatid_cognee_hook = True

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        return find_spec(self, fullname, path, target) if fullname == _TARGET else None

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: registers anatid when cognee is imported>"


def find_spec(
    finder: MetaPathFinderProtocol,
    fullname: str,
    path: Sequence[str] | None,
    target: ModuleType | None,
) -> ModuleSpec | None:
    """Cognee's spec, its loader set to register anatid once Cognee's ``__init__`` ran.

    The finder is not removed here: this may be a probe that never imports (see the module
    docstring). It is removed when the wrapped loader runs, i.e. by the real import.
    """
    if disabled():  # turned off after start-up (e.g. os.environ set in code): step aside
        uninstall()
        return None
    spec = _real_spec(fullname, path, target)
    loader = spec.loader if spec is not None else None
    if loader is not None and hasattr(loader, "exec_module"):
        _register_after(loader, finder)
    return spec


def install() -> None:
    """Put the finder at the front of ``sys.meta_path`` (idempotent). If Cognee is already
    imported, register now instead."""
    if disabled():
        return
    if _TARGET in sys.modules:
        _register()
        return
    if not installed():
        # First, ahead of the path finder that would otherwise find Cognee itself.
        sys.meta_path.insert(0, CogneeImportHook())


def uninstall() -> None:
    """Remove the finder, however it was installed (a no-op when it is not)."""
    sys.meta_path[:] = [f for f in sys.meta_path if not getattr(f, MARK, False)]


def installed() -> bool:
    return any(getattr(f, MARK, False) for f in sys.meta_path)


def _real_spec(
    fullname: str, path: Sequence[str] | None, target: ModuleType | None
) -> ModuleSpec | None:
    """Cognee's spec from the other finders: every finder on ``sys.meta_path`` but ours."""
    for other in list(sys.meta_path):
        if getattr(other, MARK, False):
            continue
        find = getattr(other, "find_spec", None)
        if find is None:
            continue
        spec = find(fullname, path, target)
        if spec is not None:
            return spec
    return None


def _register_after(loader: object, finder: MetaPathFinderProtocol) -> None:
    """Make ``loader.exec_module`` run Cognee's ``__init__`` first, then register.

    The wrapper is an attribute of this one loader instance (import machinery creates a loader
    per lookup), so no class is patched, the loader's type is unchanged, and the loader of a
    probe that is never run changes nothing.
    """
    exec_module = getattr(loader, "exec_module")  # noqa: B009 (loader is any object)

    def exec_module_then_register(module: object) -> None:
        # The real import has begun: the finder's work is done.
        uninstall()
        try:
            exec_module(module)
        except BaseException:
            # Cognee's import failed (it is still in sys.modules until this returns): listen
            # for the next attempt.
            if not installed():
                sys.meta_path.insert(0, finder)
            raise
        finally:
            try:
                delattr(loader, "exec_module")
            except AttributeError:
                pass
        _register()

    setattr(loader, "exec_module", exec_module_then_register)  # noqa: B010


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
