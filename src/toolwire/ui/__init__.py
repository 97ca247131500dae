"""`toolwire ui`: a local web page over the run log, for reading runs, following live ones and
answering calls that wait for a person (`toolwire run --approve web`, or `log_approver`).

Needs the `ui` extra: `pip install 'toolwire[ui]'`.
"""

from __future__ import annotations

from . import _extra  # noqa: F401  (first: names the extra when a dependency is missing)
from ._app import create_app
from ._serve import serve

__all__ = ["create_app", "serve"]
