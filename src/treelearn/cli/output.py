"""What the command writes: aligned text tables, files written atomically, a progress bar.

Tables measure text by its width in a terminal (a CJK character takes two
columns), so Chinese labels line up. Files are written to a temporary file in
the target's folder and moved over the target (:func:`os.replace`): a reader
sees the old file or the new one, never half of one.
"""

import os
import sys
import tempfile
import unicodedata
from pathlib import Path

from treelearn.cli.tables import CliError

__all__ = ["Progress", "format_table", "pad", "text_width", "write_atomic"]


def text_width(text):
    """Columns ``text`` takes in a terminal: wide (CJK) characters take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in str(text))


def pad(text, width, right=False):
    """``text`` padded with spaces to ``width`` terminal columns (left-aligned by default)."""
    text = str(text)
    fill = " " * max(0, width - text_width(text))
    return fill + text if right else text + fill


def format_table(rows, right=(), gap=2):
    """Rows of cells as aligned lines; columns whose index is in ``right`` align right.

    The last column is not padded (no trailing spaces).
    """
    rows = [[str(cell) for cell in row] for row in rows]
    n_columns = max(len(row) for row in rows)
    widths = [
        max((text_width(row[j]) for row in rows if j < len(row)), default=0)
        for j in range(n_columns)
    ]
    lines = []
    for row in rows:
        cells = [
            pad(cell, widths[j], right=j in right) if j < len(row) - 1 or j in right else cell
            for j, cell in enumerate(row)
        ]
        lines.append((" " * gap).join(cells).rstrip())
    return "\n".join(lines)


def write_atomic(path, data):
    """Write ``data`` (str as UTF-8, or bytes) to ``path`` atomically.

    Raises
    ------
    CliError
        If the folder does not exist or cannot be written to.
    """
    path = Path(path)
    if isinstance(data, str):
        data = data.encode("utf-8")
    folder = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise CliError(f"cannot write {path}: it is a folder; give a file name.")
    if not folder.is_dir():
        raise CliError(f"cannot write {path}: folder {folder} does not exist; create it first.")
    try:
        descriptor, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    except OSError as error:
        raise CliError(f"cannot write {path}: {error.strerror or error}.") from None
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, 0o666 & ~_umask())
        os.replace(temp, path)
    except OSError as error:
        Path(temp).unlink(missing_ok=True)
        raise CliError(f"cannot write {path}: {error.strerror or error}.") from None
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


class Progress:
    """A one-line progress bar on stderr, drawn only when stderr is a terminal.

    When stderr is not a terminal (a pipe, a log file, a test) nothing is
    written, so captured output stays clean.

    Parameters
    ----------
    total : int
        Steps in all.
    stream : file, optional
        Where to draw (default: ``sys.stderr``).
    """

    WIDTH = 24

    def __init__(self, total, stream=None):
        self.total = max(1, total)
        self.done = 0
        self.stream = sys.stderr if stream is None else stream
        isatty = getattr(self.stream, "isatty", None)
        self.enabled = bool(isatty and isatty())
        self._drawn = False

    def step(self, label):
        """Count one step done and redraw the bar with ``label``."""
        self.done += 1
        self.show(label)

    def show(self, label):
        if not self.enabled:
            return
        filled = self.WIDTH * self.done // self.total
        bar = "#" * filled + "." * (self.WIDTH - filled)
        self.stream.write(f"\r[{bar}] {self.done}/{self.total} {label}\x1b[K")
        self.stream.flush()
        self._drawn = True

    def close(self):
        """Erase the bar."""
        if self.enabled and self._drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self._drawn = False
