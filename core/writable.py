from __future__ import annotations

from typing import Any, Protocol


class Writable(Protocol):
    """Where an export writes: a text file, standard output, a StringIO."""

    def write(self, s: str, /) -> Any: ...
