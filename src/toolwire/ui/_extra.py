"""Imported first by `toolwire.ui`: a missing dependency is named with the extra to install."""

from __future__ import annotations

from importlib.util import find_spec

MODULES = ("starlette", "uvicorn", "jsonschema")

_missing = [name for name in MODULES if find_spec(name) is None]
if _missing:
    raise ImportError(
        f"toolwire ui needs the ui extra ({', '.join(_missing)} not installed): "
        "pip install 'toolwire[ui]'",
        name=_missing[0],
    )
