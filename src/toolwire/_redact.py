"""Secrets never reach the model through an error message."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

# Group 1 of each pattern is kept (the label before a secret); the rest is replaced.
_PATTERNS = [
    re.compile(r"()\bsk-[A-Za-z0-9_-]{16,}"),
    re.compile(r"()\b(?:gh[pousr]|github_pat)_[A-Za-z0-9_]{20,}"),
    re.compile(r"()\bxox[abprs]-[A-Za-z0-9-]{10,}"),
    re.compile(r"()\bAKIA[0-9A-Z]{16}\b"),
    re.compile(r"()\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+"),
    re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]{8,}"),
    re.compile(
        r"(?i)((?:api[_-]?key|token|secret|password|passwd)[\"']?\s*[:=]\s*[\"']?)"
        r"[^\s\"',;}]{4,}"
    ),
    re.compile(r"(://[^/\s:@]+:)[^/\s@]+(?=@)"),
]
_SECRET_ENV = re.compile(r"(?i)(key|token|secret|password|passwd|credential)")
REDACTED = "[REDACTED]"


def secret_env_values() -> list[str]:
    return [v for k, v in os.environ.items() if _SECRET_ENV.search(k) and len(v) >= 8]


def redact(text: str, known_secrets: Iterable[str] = ()) -> str:
    for secret in known_secrets:
        if len(secret) >= 6:
            text = text.replace(secret, REDACTED)
    for pattern in _PATTERNS:
        text = pattern.sub(rf"\g<1>{REDACTED}", text)
    return text
