"""The files of a store's persistent indexes (issues 34, 41): where they live, what a manifest
says of them, and how a new index replaces the old without a reader ever seeing half of it.

A store ``FILE`` keeps them in the folder ``FILE.anatid-index/`` (created 0700 for a private
store, no wider than the store otherwise; an existing folder's mode is never changed), one set per
index (a vector space's, or a kind's text index):

* ``<stem>-<high>.usearch`` or ``.postings``: the index itself (an HNSW graph with the space's
  normalised vectors, or every posting of the kind's versions), memory-mapped by every process
  that searches;
* ``<stem>-<high>.keys``: the record id of each version it holds (:mod:`~.keys_file`);
* ``<stem>.json``, the manifest: the store it belongs to (``store_id``) and the build it came
  from (``token``, a row the build wrote into the store: :mod:`~.index_ties`), the highest
  version id it holds (``high``), how many (``count``), a ``fingerprint`` of the file's versions
  at its ends, the two files' names, sizes, checksums and stamps (:mod:`~.index_seal`), when it
  was built, and a digest of all of that (a damaged manifest is no manifest).

They are derived data: deleting the folder loses nothing (searches scan exactly until the next
build). An index whose manifest does not match the file (another store's, an older copy of this
one, a purge since) or whose files differ from their checksums is never opened: searches stay
exact, the problem is logged once per process, and ``anatid check`` names the file.

A new index is written under a temporary name, synced, sealed, renamed to its final name (which
carries ``high``, so it never replaces a file a reader maps), and only then named by a new
manifest (written the same way); the old files are removed after. A crash at any point leaves
either the old set or the new one, and at most an orphan file that the next build removes.

The folder follows the store's file rules (issue 32): a symlinked folder is followed, as a
symlinked store file is, and removing the store removes the index files it points at; no
command writes its output into it (:mod:`~.outputs` asks :func:`owner_of_folder`); a folder
that other users may write, or that is not this user's, is never used; one this process cannot
write makes a build fail with :class:`~anatid_core.base.errors.StorageError`, never a bare
``PermissionError``, and its mode is left as it is.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import shutil
import stat
import threading
import uuid
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timezone
from typing import Any

from ..base.errors import StorageError
from ..base.model import Kind
from .filemode import creation_mask, no_wider
from .index_seal import FileSeal, Stamp, seal_of, stamp_of
from .keys_file import KeysFile, mapped, write_keys

FOLDER_SUFFIX = ".anatid-index"
FORMAT = 2
#: A file in every index folder naming the store it belongs to: a folder reached through a
#: symlink, under another name, is still known as an index folder.
MARKER = ".anatid-index-of"
LOG = logging.getLogger("anatid_core.index")


@dataclass(frozen=True)
class Manifest:
    """What one index holds, which store and build it belongs to, and its files' seals."""

    store_id: str
    kind: Kind
    space: str | None  # None: the kind's text index
    dim: int
    high: int
    count: int
    fingerprint: str
    file: str
    size: int
    keys: str
    keys_size: int
    token: str = ""
    built_at: str = ""
    seals: dict[str, Any] = field(default_factory=dict)
    stamps: dict[str, list[int]] = field(default_factory=dict)
    format: int = FORMAT

    def seal(self, name: str) -> FileSeal:
        return FileSeal.from_json(self.seals[name])

    def stamp(self, name: str) -> Stamp | None:
        found = self.stamps.get(name)
        return tuple(found) if isinstance(found, list) and len(found) == 5 else None  # type: ignore[return-value]


def folder_of(store_path: str) -> str:
    return store_path + FOLDER_SUFFIX


def stem(kind: Kind, space: str | None) -> str:
    """The name every file of one index starts with."""
    if space is None:  # the kind's text index
        return f"{kind}-text"
    digest = hashlib.sha256(space.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{kind}-{digest}"


def manifest_path(store_path: str, kind: Kind, space: str | None) -> str:
    return os.path.join(folder_of(store_path), stem(kind, space) + ".json")


def index_file_name(kind: Kind, space: str | None, high: int) -> str:
    suffix = "postings" if space is None else "usearch"
    return f"{stem(kind, space)}-{int(high)}.{suffix}"


def flat_file_name(kind: Kind, space: str, high: int) -> str:
    return f"{stem(kind, space)}-{int(high)}.flat"


def keys_file_name(kind: Kind, space: str | None, high: int, *, flat: bool = False) -> str:
    # A flat index and the graph that replaces it may share ``high``: their keys files may not
    # share a name (publishing the graph removes the flat index's files).
    return f"{stem(kind, space)}-{int(high)}{'-flat' if flat else ''}.keys"


# --------------------------------------------------------------------------- manifests


def _digest(raw: dict[str, Any]) -> str:
    body = {k: v for k, v in raw.items() if k != "digest"}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode("utf-8")).hexdigest()


def load_manifest(path: str) -> Manifest:
    """The manifest at ``path``; ``ValueError`` (saying why) if it is not a whole manifest of
    this format, ``OSError`` if it cannot be read."""
    with open(path, encoding="utf-8") as fh:
        raw = json.load(fh)
    if not isinstance(raw, dict):
        raise ValueError("not a manifest")
    if raw.get("format") != FORMAT:
        raise ValueError(f"a manifest of format {raw.get('format')!r}, not {FORMAT}")
    if raw.get("digest") != _digest(raw):
        raise ValueError("its digest does not match its contents (damaged)")
    raw.pop("digest")
    try:
        found = Manifest(**raw)
        for name in (found.file, found.keys):
            found.seal(name)
    except (TypeError, KeyError) as e:
        raise ValueError(f"not a manifest ({e})") from None
    return found


def read_manifest(store_path: str, kind: Kind, space: str | None) -> Manifest | None:
    """The index's manifest, or None if there is none or it cannot be read as a whole one."""
    try:
        found = load_manifest(manifest_path(store_path, kind, space))
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    if found.kind != kind or found.space != space:
        return None
    return found


def manifests(store_path: str) -> list[Manifest]:
    """Every whole manifest in the store's index folder."""
    return [m for _, m, _ in manifest_files(store_path) if m is not None]


def manifest_files(store_path: str) -> list[tuple[str, Manifest | None, str | None]]:
    """Every manifest file of the folder: (path, the manifest or None, why it is none)."""
    folder = folder_of(store_path)
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    out: list[tuple[str, Manifest | None, str | None]] = []
    for name in names:
        if not name.endswith(".json") or name.startswith("."):
            continue
        path = os.path.join(folder, name)
        try:
            out.append((path, load_manifest(path), None))
        except (OSError, ValueError, UnicodeDecodeError) as e:
            out.append((path, None, str(e)))
    return out


def manifest_stamp(store_path: str, kind: Kind, space: str | None) -> Stamp | None:
    """The stamp of the index's manifest: changes when a build publishes a new one."""
    return stamp_of(manifest_path(store_path, kind, space))


def files_stamp(store_path: str, m: Manifest) -> tuple[Stamp | None, ...]:
    """The stamps of the manifest and the two files it names: an opened index is dropped when
    any changes (a new build, a removal, or a file written in place)."""
    folder = folder_of(store_path)
    return (
        manifest_stamp(store_path, m.kind, m.space),
        stamp_of(os.path.join(folder, m.file)),
        stamp_of(os.path.join(folder, m.keys)),
    )


_logged: set[tuple[str, str]] = set()
_logged_lock = threading.Lock()


def log_unused(store_path: str, m: Manifest, reason: str) -> None:
    """Say once per process (and reason) that an index is not used, and why."""
    key = (manifest_path(store_path, m.kind, m.space), reason)
    with _logged_lock:
        if key in _logged:
            return
        _logged.add(key)
    what = "text index" if m.space is None else f"vector index of space {m.space!r}"
    LOG.warning(
        "%s: the %s %s is not used (%s); searches scan exactly until the next build replaces it",
        store_path,
        m.kind,
        what,
        reason,
    )


# --------------------------------------------------------------------------- the folder


def folder_problem(store_path: str) -> str | None:
    """Why the index folder must not be used (None: it may, or it does not exist): it is not
    a directory, not this user's, or writable by other users (its files could be swapped)."""
    folder = folder_of(store_path)
    try:
        st = os.stat(folder)  # a symlinked folder is followed, as a symlinked store file is
    except FileNotFoundError:
        return None
    except OSError as e:
        return f"{folder} cannot be read ({e.strerror or e})"
    if not stat.S_ISDIR(st.st_mode):
        return f"{folder} is not a directory"
    if hasattr(os, "geteuid") and st.st_uid != os.geteuid():
        return f"{folder} belongs to another user (uid {st.st_uid})"
    if st.st_mode & 0o022:
        return f"{folder} is writable by other users (mode {stat.S_IMODE(st.st_mode):04o})"
    return None


def usable_folder(store_path: str) -> bool:
    """Whether searches may read the index folder: it exists and is safe to read."""
    return os.path.isdir(folder_of(store_path)) and folder_problem(store_path) is None


def make_folder(store_path: str) -> str:
    """The index folder, created if needed (0700 for a private store, else the store's read
    and execute bits: never wider than the store); :class:`StorageError` if it is unsafe or
    cannot be written. An existing folder's mode is left as its owner set it."""
    folder = folder_of(store_path)
    mode = stat.S_IMODE(os.stat(store_path).st_mode)
    wanted = 0o700 | ((mode & 0o044) | ((mode & 0o044) >> 2))
    try:
        os.mkdir(folder, 0o700)
        os.chmod(folder, wanted)
    except FileExistsError:
        pass
    except OSError as e:
        raise StorageError(
            f"cannot create the index folder {folder} ({e.strerror or e}); searches scan "
            "exactly without it: make its directory writable, or leave it so"
        ) from None
    problem = folder_problem(store_path)
    if problem is not None:
        raise StorageError(
            f"{problem}: anatid will not keep indexes there; delete it (it holds only derived "
            "data) and build again"
        )
    mode_now = stat.S_IMODE(os.stat(folder).st_mode)
    # The owner's write bit is asked for too: a folder its owner made read-only stays so, even
    # for root, who could write it anyway.
    if not mode_now & stat.S_IWUSR or not os.access(folder, os.W_OK | os.X_OK):
        raise StorageError(
            f"the index folder {folder} is not writable (mode {mode_now:04o}); searches scan "
            f"exactly meanwhile: make it writable (chmod u+w) or delete it, then build again"
        )
    marker = os.path.join(folder, MARKER)
    if not os.path.exists(marker):
        with contextlib.suppress(OSError), writing(store_path), open(marker, "w") as fh:
            fh.write(store_path + "\n")
    return folder


def owner_of_folder(folder: str) -> str | None:
    """The store whose index folder ``folder`` is (by its name or its marker), else None."""
    if folder.endswith(FOLDER_SUFFIX) and os.path.isfile(folder[: -len(FOLDER_SUFFIX)]):
        return folder[: -len(FOLDER_SUFFIX)]
    try:
        with open(os.path.join(folder, MARKER), encoding="utf-8") as fh:
            named = fh.read().strip()
    except (OSError, UnicodeDecodeError):
        return None
    return named or folder


def temp_path(store_path: str, kind: Kind, space: str | None) -> str:
    return os.path.join(folder_of(store_path), f".{stem(kind, space)}-{uuid.uuid4().hex}.tmp")


def writing(store_path: str) -> contextlib.AbstractContextManager[None]:
    """Hold while creating a file in the folder: it is no wider than the store."""
    return no_wider(creation_mask(store_path))


def sync_file(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def sync_folder(folder: str) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# --------------------------------------------------------------------------- publishing


def sealed(manifest: Manifest, written: str, keys: str) -> Manifest:
    """``manifest`` with the seals of the written (temporary) index and keys files: read back
    in full before they are published (outside any turn on the store)."""
    seals = {manifest.file: seal_of(written).to_json(), manifest.keys: seal_of(keys).to_json()}
    built = datetime.now(timezone.utc).isoformat(timespec="seconds")
    return replace(manifest, seals=seals, built_at=built)


def publish(store_path: str, written: str, keys: str, manifest: Manifest) -> None:
    """Make ``written`` and ``keys`` (synced, :func:`sealed` temporary files) the index named
    by ``manifest``, and remove the files it replaces."""
    folder = folder_of(store_path)
    old = read_manifest(store_path, manifest.kind, manifest.space)
    final_keys = os.path.join(folder, manifest.keys)
    final_file = os.path.join(folder, manifest.file)
    os.replace(keys, final_keys)
    os.replace(written, final_file)
    stamps = {}
    for name, path in ((manifest.keys, final_keys), (manifest.file, final_file)):
        found = stamp_of(path)
        if found is not None:
            stamps[name] = list(found)
    write_manifest(store_path, replace(manifest, stamps=stamps))
    if old is not None and old.file != manifest.file:
        for name in (old.file, old.keys):
            with contextlib.suppress(FileNotFoundError):
                os.remove(os.path.join(folder, name))


def write_manifest(store_path: str, manifest: Manifest) -> None:
    """Write ``manifest`` with its digest in place of the index's manifest: a temporary file,
    synced, renamed, the folder synced."""
    raw = asdict(manifest)
    raw["digest"] = _digest(raw)
    tmp = temp_path(store_path, manifest.kind, manifest.space)
    with writing(store_path), open(tmp, "w", encoding="utf-8") as fh:
        json.dump(raw, fh)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, manifest_path(store_path, manifest.kind, manifest.space))
    sync_folder(folder_of(store_path))


def remove_space(store_path: str, kind: Kind, space: str | None) -> None:
    """Remove an index (manifest first: no reader opens its files after)."""
    found = read_manifest(store_path, kind, space)
    with contextlib.suppress(FileNotFoundError):
        os.remove(manifest_path(store_path, kind, space))
    if found is not None:
        for name in (found.file, found.keys):
            with contextlib.suppress(FileNotFoundError):
                os.remove(os.path.join(folder_of(store_path), name))


def _ours(name: str) -> bool:
    """Whether a file name is one the index folder's own (manifests, index, keys, temporary,
    lock and bookkeeping files)."""
    return name.endswith((".json", ".usearch", ".flat", ".keys", ".postings", ".tmp")) or name in (
        ".build.lock",
        ".verified",
        MARKER,
    )


def remove_all(store_path: str) -> list[str]:
    """Remove the whole index folder; returns the paths removed. A symlinked folder is
    followed: the index files where it points go (nothing else there), then the link."""
    folder = folder_of(store_path)
    if os.path.islink(folder):
        target = os.path.realpath(folder)
        removed = []
        if os.path.isdir(target):
            for name in sorted(os.listdir(target)):
                path = os.path.join(target, name)
                if _ours(name) and not os.path.isdir(path):
                    with contextlib.suppress(FileNotFoundError):
                        os.remove(path)
                        removed.append(path)
            with contextlib.suppress(OSError):
                os.rmdir(target)  # only if nothing of anyone else's is left there
                removed.append(target)
        os.remove(folder)
        return [*removed, folder]
    if not os.path.isdir(folder):
        return []
    removed = [os.path.join(folder, name) for name in sorted(os.listdir(folder))]
    shutil.rmtree(folder, ignore_errors=True)
    return [*removed, folder]


def remove_orphans(store_path: str) -> None:
    """Remove index files no manifest names, and temporary files of builds that died."""
    folder = folder_of(store_path)
    try:
        names = os.listdir(folder)
    except OSError:
        return
    named = set()
    for name in names:
        if name.endswith(".json") and not name.startswith("."):
            with contextlib.suppress(OSError, ValueError, TypeError, AttributeError):
                with open(os.path.join(folder, name), encoding="utf-8") as fh:
                    raw = json.load(fh)
                named.update({str(raw.get("file")), str(raw.get("keys"))})
    for name in names:
        derived = name.endswith((".usearch", ".flat", ".keys", ".postings"))
        if name.endswith(".tmp") or (derived and name not in named):
            with contextlib.suppress(OSError):
                os.remove(os.path.join(folder, name))


__all__ = [
    "FOLDER_SUFFIX",
    "KeysFile",
    "LOG",
    "MARKER",
    "Manifest",
    "Stamp",
    "files_stamp",
    "folder_of",
    "flat_file_name",
    "folder_problem",
    "index_file_name",
    "keys_file_name",
    "load_manifest",
    "log_unused",
    "make_folder",
    "manifest_files",
    "manifest_path",
    "manifest_stamp",
    "manifests",
    "mapped",
    "owner_of_folder",
    "publish",
    "read_manifest",
    "remove_all",
    "remove_orphans",
    "remove_space",
    "sealed",
    "stem",
    "sync_file",
    "sync_folder",
    "temp_path",
    "usable_folder",
    "write_keys",
    "write_manifest",
    "writing",
]
