"""Files written, or compared with what would be written, with their SHA-256 computed on
the way: every artifact and grade is hashed as it is written, never read back for it."""

from __future__ import annotations

import hashlib
from pathlib import Path


class HashingWriter:
    """Writes UTF-8 text to a file while computing its SHA-256."""

    def __init__(self, path: Path) -> None:
        self._file = open(path, "wb")
        self._hash = hashlib.sha256()

    def write(self, text: str) -> None:
        self.write_bytes(text.encode("utf-8"))

    def write_bytes(self, data: bytes | memoryview) -> None:
        self._hash.update(data)
        try:
            self._file.write(data)
        except OSError as exc:  # a full disk does not name the file: this does
            exc.filename = exc.filename or self._file.name
            raise

    def close(self) -> str:
        try:
            self._file.close()
        except OSError as exc:
            exc.filename = exc.filename or self._file.name
            raise
        return self._hash.hexdigest()


class ComparingWriter(HashingWriter):
    """Hashes what is written, as HashingWriter does, but compares it with a file's bytes
    instead of writing it: `same` says whether it was the whole file, byte for byte."""

    def __init__(self, given: Path) -> None:
        self._file = open(given, "rb", buffering=0)
        self._hash = hashlib.sha256()
        self._given = bytearray()  # reused: a new buffer for every chunk cost its pages' first touch
        self.same = True

    def write_bytes(self, data: bytes | memoryview) -> None:
        self._hash.update(data)
        if self.same:
            size = len(data)
            if len(self._given) < size:
                self._given = bytearray(size)
            read, view = 0, memoryview(self._given)
            while read < size and (got := self._file.readinto(view[read:size])):
                read += got
            # startswith compares the buffers with memcmp, with no copy of either
            self.same = read == size and self._given.startswith(data)

    def close(self) -> str:
        self.same = self.same and not self._file.read(1)
        return super().close()


def write_text(path: Path, text: str) -> str:
    """Write text; return the SHA-256 of its bytes."""
    writer = HashingWriter(path)
    writer.write(text)
    return writer.close()
