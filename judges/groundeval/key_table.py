"""A str → int table kept as two flat arrays, so a saved index maps it instead of unpickling a million-key dict.

The keys are UTF-8 byte strings in one fixed-width column, sorted (byte order is code-point order, the order
``sorted`` gives ``str``), beside their values; a key is found by bisection (``np.searchsorted``) and remembered,
so a term a session asks for again costs a dict lookup. Keys must not end in a NUL character (a fixed-width
byte column cannot tell it from padding): tokens never do, and an artifact id that does is refused.
"""

from __future__ import annotations

from typing import Iterable, Iterator

import numpy as np

_REMEMBERED = 1 << 16     # keys looked up and remembered at most (then looked up again each time)


class KeyTable:
    """``keys`` (sorted, fixed-width bytes) and ``values`` (int64, the same order); ``get(key)`` is its value or None."""

    __slots__ = ("keys", "values", "_found", "_width")

    def __init__(self, keys: np.ndarray, values: np.ndarray) -> None:
        self.keys, self.values = keys, values
        self._width = keys.dtype.itemsize
        self._found: dict[str, int | None] = {}

    @classmethod
    def of(cls, items: Iterable[tuple[str, int]]) -> KeyTable:
        """The table of ``(key, value)`` pairs (keys distinct)."""
        pairs = list(items)
        encoded = [key.encode() for key, _ in pairs]
        refused = sorted(key for key in encoded if key.endswith(b"\0"))
        if refused:
            raise ValueError(f"key {refused[0]!r} ends in a NUL character")
        width = max(map(len, encoded), default=1) or 1
        keys = np.array(encoded, dtype=f"S{width}")      # NUL-padded: sorts as the bytes do (none ends in NUL)
        order = np.argsort(keys, kind="stable")
        return cls(keys[order], np.array([value for _, value in pairs], dtype=np.int64)[order])

    @classmethod
    def numbered(cls, keys: list[str]) -> KeyTable:
        """``of(zip(keys, range(len(keys))))``: each key valued by its position; cheaper when every key is ASCII
        without NUL (numpy encodes them itself), as tokens are."""
        joined = "".join(keys)
        if not joined.isascii() or "\0" in joined:
            return cls.of(zip(keys, range(len(keys))))
        array = np.array(keys, dtype="S") if keys else np.zeros(0, dtype="S1")
        order = np.argsort(array, kind="stable")
        return cls(array[order], order.astype(np.int64))

    def get(self, key: str) -> int | None:
        try:
            return self._found[key]
        except KeyError:
            pass
        raw = key.encode()
        value = None
        if len(raw) <= self._width and not raw.endswith(b"\0"):
            at = int(self.keys.searchsorted(raw))    # the method: np.searchsorted wraps it in Python (2-3 us a call)
            if at < len(self.keys) and self.keys[at] == raw:
                value = int(self.values[at])
        if len(self._found) < _REMEMBERED:
            self._found[key] = value
        return value

    def __getitem__(self, key: str) -> int:
        value = self.get(key)
        if value is None:
            raise KeyError(key)
        return value

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key) is not None

    def __len__(self) -> int:
        return len(self.keys)

    def __iter__(self) -> Iterator[str]:
        """The keys, by ascending value."""
        return (key.decode() for key in self.keys[np.argsort(self.values, kind="stable")].tolist())


__all__ = ["KeyTable"]
