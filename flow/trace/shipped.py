"""The data the project ships beside its code: the sample traces with their questions, and the trace format's schema.

In a clone they are the repository's own folders (sample_traces/, schema/); the wheel carries copies of them
inside the package, under flow/_data/ (pyproject.toml), since an installed program has no repository.
"""

from __future__ import annotations

from pathlib import Path

_FLOW = Path(__file__).resolve().parents[1]


def shipped(name: str) -> Path:
    """The folder NAME as the installed wheel holds it, else as the clone does."""
    installed = _FLOW / "_data" / name
    return installed if installed.is_dir() else _FLOW.parent / name


SAMPLE_DIR = shipped("sample_traces")
