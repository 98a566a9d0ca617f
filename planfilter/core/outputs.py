"""Writing outputs so that no file is lost: atomic writes and a manifest per output folder.

Every output is written to a temporary file in its own folder and renamed over the target
when complete, so a crash or a full disk leaves the old file or the new one, never half of
one. An output folder holds :data:`MANIFEST`, the files planfilter wrote there (and, for a
benchmark run, the fingerprint of its settings, so that ``--resume`` can refuse to mix runs
made with other settings). A file the manifest does not list, such as the user's own notes,
or any file of a folder planfilter never wrote into, is never replaced unless the caller
forces it; a listed file that this command writes no more (last run's plots under
``--no-plots``) is removed, so a folder never mixes the outputs of two runs.

The manifest is updated *before* a file is renamed into place: after a crash it may list a
file that is not there, never hold an unlisted file that planfilter wrote.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from .errors import PlanfilterError

MANIFEST = ".planfilter-manifest.json"
FORCE_HINT = "give --force to replace it"


class OutputError(PlanfilterError):
    """An output cannot be written: a file in the way, or one planfilter did not write."""


def atomic_write(path: Path, data: bytes | str | Callable[[Path], None]) -> None:
    """Write ``data`` (bytes, text as UTF-8, or a function that writes the temporary path it
    is given) to a temporary file beside ``path``, flush it to disk, then rename it over
    ``path``. On any failure the temporary file is removed and ``path`` is left as it was."""
    folder = path.parent
    folder.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    tmp = Path(name)
    try:
        if callable(data):
            os.close(fd)
            data(tmp)
            with tmp.open("rb+") as handle:
                os.fsync(handle.fileno())
        else:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data.encode("utf-8") if isinstance(data, str) else data)
                handle.flush()
                os.fsync(handle.fileno())
        os.chmod(tmp, _mode(path))
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def _mode(path: Path) -> int:
    """The permissions the file keeps (a new file's: what the umask allows), not the
    temporary file's owner-only ones."""
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def check_folder(folder: Path) -> None:
    """Raise when ``folder`` cannot be an output folder: it, or a folder above it, is a file."""
    for part in (folder, *folder.parents):
        if not part.exists():
            continue
        if part.is_dir():
            return
        if part == folder:
            raise OutputError(f"{folder}: is a file, not a folder")
        raise OutputError(f"{folder}: cannot make this folder: {part} is a file")


def check_file_target(path: Path, *, force: bool = False, replaces: Path | None = None) -> None:
    """Raise when the single output file ``path`` cannot or may not be written: its folder
    is a file, it is a folder, or it exists and is neither forced nor ``replaces`` (the input
    the output is made from, which the command means to update in place)."""
    check_folder(path.parent)
    if path.is_dir():
        raise OutputError(f"{path}: is a folder; give a file name")
    if not path.exists() or force:
        return
    if replaces is not None and replaces.exists() and path.samefile(replaces):
        return
    raise OutputError(f"{path}: already exists and is not the file this command updates; "
                      f"{FORCE_HINT}, or choose another file")


def comments(text: str) -> list[str]:
    """The comments of YAML ``text``: what follows a ``#`` that starts a line or follows a
    space (a ``#`` inside a quoted value counts too: asking once too often loses nothing)."""
    found = []
    for line in text.splitlines():
        stripped = line.lstrip()
        if stripped.startswith("#"):
            found.append(stripped[1:].strip())
            continue
        for mark in (" #", "\t#"):
            at = line.find(mark)
            if at >= 0:
                found.append(line[at + 2:].strip())
                break
    return [c for c in found if c]


def check_comments(path: Path, new_text: str, *, force: bool = False) -> None:
    """Raise when writing ``new_text`` over ``path`` would drop comments ``path`` holds (it
    is read as plain YAML, which keeps none), unless ``force``d."""
    if force or not path.is_file():
        return
    try:
        old = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return
    kept = set(comments(new_text))
    lost = [c for c in comments(old) if c not in kept]
    if lost:
        raise OutputError(f"{path}: rewriting it would drop {len(lost)} comment(s) it holds "
                          f"(the first: {lost[0][:60]!r}), because it is read as plain YAML; "
                          f"{FORCE_HINT} anyway, or write to another file and compare")


class OutputFolder:
    """One command's writes into one output folder, under that folder's manifest."""

    def __init__(self, folder: Path, *, force: bool = False):
        self.folder = Path(folder)
        self.force = force
        check_folder(self.folder)
        self._manifest = self._read_manifest()
        self._saved: dict[str, Any] = json.loads(json.dumps(self._manifest))
        self.written: list[str] = []

    @property
    def manifest_path(self) -> Path:
        return self.folder / MANIFEST

    def _read_manifest(self) -> dict[str, Any]:
        path = self.manifest_path
        if path.is_dir():
            raise OutputError(f"{path}: is a folder; planfilter keeps its manifest there")
        if not path.exists():
            return {"files": []}
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise OutputError(f"{path}: not a planfilter manifest ({exc}); remove it, or give "
                              "another output folder") from None
        if not isinstance(data, dict) or not isinstance(data.get("files"), list):
            raise OutputError(f"{path}: not a planfilter manifest (no 'files' list); remove "
                              "it, or give another output folder")
        return data

    @property
    def listed(self) -> frozenset[str]:
        """The files the manifest says planfilter wrote here."""
        return frozenset(str(f) for f in self._manifest["files"])

    @property
    def fingerprint(self) -> Mapping[str, str] | None:
        found = self._manifest.get("fingerprint")
        return found if isinstance(found, dict) else None

    def check(self, names: Iterable[str]) -> None:
        """Raise, naming every culprit at once, when one of ``names`` cannot be written here:
        a folder in its place, or a file planfilter did not write (unless forced)."""
        problems = []
        for name in names:
            path = self.folder / name
            if path.is_dir():
                problems.append(f"{path}: is a folder where planfilter writes a file; move it")
            elif path.exists() and name not in self.listed and not self.force:
                problems.append(f"{path}: already exists and planfilter did not write it (it "
                                f"is not in {self.manifest_path.name}); {FORCE_HINT}, or "
                                "choose another output folder")
        if problems:
            raise OutputError(problems[0] if len(problems) == 1 else
                              f"{len(problems)} outputs cannot be written: "
                              + "; ".join(problems))

    def claim(self, names: Iterable[str], fingerprint: Mapping[str, str] | None = None) -> None:
        """Check ``names``, make the folder and list them in the manifest (with the settings'
        ``fingerprint`` when given) before anything is written to them."""
        names = list(names)
        self.check(names)
        self.folder.mkdir(parents=True, exist_ok=True)
        if fingerprint is not None:
            self._manifest["fingerprint"] = dict(fingerprint)
        self._list(names)

    def _list(self, names: Iterable[str]) -> None:
        files = sorted(self.listed | set(names))
        if (self.manifest_path.exists() and files == sorted(self._manifest["files"])
                and self._manifest.get("fingerprint") == self._saved.get("fingerprint")):
            return
        self._manifest["files"] = files
        self._save()

    def _save(self) -> None:
        atomic_write(self.manifest_path,
                     json.dumps(self._manifest, indent=2, sort_keys=True) + "\n")
        self._saved = json.loads(json.dumps(self._manifest))

    def write(self, name: str, data: bytes | str | Callable[[Path], None]) -> Path:
        """Write one output atomically (see :func:`atomic_write`) and list it."""
        self.claim([name])
        path = self.folder / name
        atomic_write(path, data)
        self.written.append(name)
        return path

    def remove_stale(self, owned: Iterable[str]) -> tuple[Path, ...]:
        """Remove the files of ``owned`` (the outputs this command may write) that the
        manifest lists and this command did not write now: the last run's outputs that
        would otherwise sit beside the new ones."""
        stale = sorted(n for n in set(owned) & self.listed if n not in self.written)
        removed = []
        for name in stale:
            path = self.folder / name
            if path.is_file():
                path.unlink()
                removed.append(path)
        if stale:
            self._manifest["files"] = sorted(self.listed - set(stale))
            self._save()
        return tuple(removed)


def differences(saved: Mapping[str, str] | None, now: Mapping[str, str]) -> list[str]:
    """The settings whose values differ between two fingerprints, as ``name (was -> now)``."""
    if saved is None:
        return ["(no settings recorded: the folder was not written by `planfilter run` with a "
                "manifest)"]
    out = []
    for key in sorted(set(saved) | set(now)):
        if saved.get(key) != now.get(key):
            out.append(f"{key} ({_short(saved.get(key))} -> {_short(now.get(key))})")
    return out


def _short(value: str | None, limit: int = 60) -> str:
    if value is None:
        return "unset"
    return value if len(value) <= limit else value[: limit - 3] + "..."
