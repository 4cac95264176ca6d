"""The import hook installed with the wheel (``anatid_cognee_hook.pth``) — issue 12.

Each check runs in a fresh interpreter (this one has imported Cognee already): the hook must
import nothing until ``cognee`` is imported, register anatid once it is, and be inert when
``ANATID_COGNEE_HOOK=0``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
from pathlib import Path

from tests.cognee.cognee_processes import child_env

PTH = "anatid_cognee_hook.pth"


def _python(code: str, **env: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=child_env(TELEMETRY_DISABLED="1", LITELLM_LOCAL_MODEL_COST_MAP="True", **env),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


_STATE = (
    "import json, sys; print(json.dumps([sorted(m for m in sys.modules "
    "if m.split('.')[0] in ('anatid_cognee_hook', 'anatid_cognee', 'anatid_core', 'cognee', "
    "'duckdb', 'numpy', 'pyarrow')), "
    "[type(f).__name__ for f in sys.meta_path if getattr(f, 'anatid_cognee_hook', False)]]))"
)


def test_the_pth_file_is_installed_in_site_packages():
    # CI's editable install (`pip install -e .`) and a wheel install both put it there.
    assert (Path(sysconfig.get_paths()["purelib"]) / PTH).is_file()


def test_an_interpreter_that_never_imports_cognee_imports_nothing_of_ours():
    loaded, finders = _python(_STATE)
    assert loaded == []  # not even the hook module: the .pth line only adds a finder
    assert finders == ["AnatidCogneeHook"]


def test_the_environment_variable_turns_the_hook_off_entirely():
    for value in ("0", "false", "OFF"):
        assert _python(_STATE, ANATID_COGNEE_HOOK=value) == [[], []]


def test_importing_cognee_registers_anatid_and_removes_the_finder():
    code = (
        "import json, sys, cognee, anatid_cognee_hook as hook\n"
        "from cognee.infrastructure.databases.graph.supported_databases import "
        "supported_databases as graphs\n"
        "from cognee.infrastructure.databases.vector.supported_databases import "
        "supported_databases as vectors\n"
        "from cognee.infrastructure.databases.dataset_database_handler import "
        "supported_dataset_database_handlers as handlers\n"
        "print(json.dumps([graphs['anatid'].__name__, vectors['anatid'].__name__,\n"
        "    sorted(h for h in handlers if h.startswith('anatid')), hook.installed()]))"
    )
    assert _python(code) == [
        "AnatidGraphAdapter",
        "AnatidVectorAdapter",
        ["anatid_graph", "anatid_vector"],
        False,
    ]


_REGISTERED = (
    "from cognee.infrastructure.databases.graph.supported_databases import "
    "supported_databases as graphs\n"
    "from cognee.infrastructure.databases.dataset_database_handler import "
    "supported_dataset_database_handlers as handlers\n"
    "registered = ['anatid' in graphs, 'anatid_graph' in handlers]\n"
)


def test_a_spec_lookup_before_the_import_keeps_the_hook_for_the_real_import():
    """Tools probe for optional packages with find_spec before importing them (our own
    tests/extras.py once did): the probe must neither import anything nor use up the hook."""
    code = (
        "import importlib.util, json, sys\n"
        "specs = [importlib.util.find_spec('cognee') for _ in range(2)]\n"
        "ours = ('anatid_cognee_hook', 'anatid_cognee', 'anatid_core', 'cognee', 'duckdb')\n"
        "probed = [sorted(m for m in sys.modules if m.split('.')[0] in ours),\n"
        "    sum(1 for f in sys.meta_path if getattr(f, 'anatid_cognee_hook', False)),\n"
        "    [s is not None and s.name for s in specs]]\n"
        "import cognee\n" + _REGISTERED + "import anatid_cognee_hook as hook\n"
        "print(json.dumps([probed, registered, hook.installed()]))"
    )
    probed, registered, still_installed = _python(code)
    # Only the hook module itself (stdlib os and sys) is imported by a lookup.
    assert probed == [["anatid_cognee_hook"], 1, ["cognee", "cognee"]]
    assert registered == [True, True]
    assert still_installed is False  # the real import used it up


def test_turning_the_hook_off_in_code_before_importing_cognee_keeps_anatid_out():
    code = (
        "import json, os, sys\n"
        "os.environ['ANATID_COGNEE_HOOK'] = 'off'\n"
        "import cognee\n" + _REGISTERED + "print(json.dumps([registered, "
        "'anatid_cognee' in sys.modules, "
        "any(getattr(f, 'anatid_cognee_hook', False) for f in sys.meta_path)]))"
    )
    assert _python(code) == [[False, False], False, False]


def test_importing_a_cognee_submodule_first_registers_too():
    code = (
        "import json, cognee.cli._cognee\n"
        "from cognee.infrastructure.databases.graph.supported_databases import "
        "supported_databases\n"
        "print(json.dumps('anatid' in supported_databases))"
    )
    assert _python(code) is True


def test_install_from_python_is_idempotent_and_uninstall_removes_any_copy():
    code = (
        "import json, sys, anatid_cognee_hook as hook\n"
        "hook.install(); hook.install()\n"
        "count = sum(1 for f in sys.meta_path if getattr(f, hook.MARK, False))\n"
        "hook.uninstall()\n"
        "print(json.dumps([count, hook.installed()]))"
    )
    assert _python(code) == [1, False]


def test_importing_anatid_cognee_explicitly_still_works_with_the_hook_on():
    code = (
        "import json, anatid_cognee\n"
        "from cognee.infrastructure.databases.graph.supported_databases import "
        "supported_databases\n"
        "print(json.dumps(supported_databases['anatid'] is anatid_cognee.AnatidGraphAdapter))"
    )
    assert _python(code) is True


def test_with_the_hook_off_cognee_imports_without_anatid():
    code = (
        "import json, sys, cognee\n"
        "from cognee.infrastructure.databases.graph.supported_databases import "
        "supported_databases\n"
        "print(json.dumps(['anatid' in supported_databases, 'anatid_cognee' in sys.modules]))"
    )
    assert _python(code, ANATID_COGNEE_HOOK="0") == [False, False]


def test_the_installed_distribution_records_the_pth():
    # The install CI runs (`pip install -e ".[all]"`): hatchling puts force-included files
    # into editable wheels too.
    from importlib.metadata import files

    assert PTH in [str(f) for f in files("anatid-drivers") or []]


def test_a_built_wheel_carries_the_pth_at_its_root_and_the_hook_package(tmp_path: Path):
    """What ``pip install anatid-drivers`` would install."""
    import zipfile

    root = Path(__file__).resolve().parents[2]
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(root)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    (wheel,) = tmp_path.glob("anatid_drivers-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert PTH in names
    assert "anatid_cognee_hook/__init__.py" in names
    # site.py skips comment lines and exec()s lines that start with "import ": exactly one.
    lines = [x for x in (root / "drivers" / PTH).read_text().splitlines() if x.strip()]
    assert [x.startswith("import ") for x in lines if not x.startswith("#")] == [True]
