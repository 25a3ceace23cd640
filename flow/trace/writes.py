"""Writing a file: atomically, and what stops it said in one plain line naming the path. Light on imports, for the
stdio proxy, which a client waits for."""

from __future__ import annotations

import contextlib
from pathlib import Path


def write_atomically(path: str | Path, data: bytes) -> Path:
    """`data` into the file `path` (its folder made if need be) through a temporary file beside it: never a
    half-written file, nor a good one clobbered by a broken write, nor the temporary file left behind. What stops
    it is one plain line naming `path` (`unwritable`)."""
    path = Path(path)
    if path.is_dir():
        raise unwritable(path, IsADirectoryError())
    tmp = path.with_name(path.name + ".tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(data)
        tmp.replace(path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise unwritable(path, exc) from None
    return path


_WHY_NOT = {
    IsADirectoryError: "is a folder: name a file to write",
    NotADirectoryError: "cannot be written: part of its path is a file, not a folder",
    PermissionError: "cannot be written: permission denied",
    FileNotFoundError: "cannot be written: its folder does not exist and cannot be made, or takes no new files",
}


def unwritable(path: str | Path, exc: OSError) -> OSError:
    """Why `path` could not be written, as one plain line naming it (not Python's `[Errno 21] ... -> ...`); an
    exception of the same type, for callers that tell them apart."""
    why = next((said for kind, said in _WHY_NOT.items() if isinstance(exc, kind)), None)
    return type(exc)(f"{path}: {why or f'cannot be written: {exc.strerror or exc}'}")
