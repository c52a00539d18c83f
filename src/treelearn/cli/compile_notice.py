"""One line on a terminal's stderr when numba compiles treelearn's kernels.

numba compiles a kernel the first time it runs for its argument types and caches
the machine code beside the installed modules. A command's first run after
installing (and the first fit of a new kind of table) can therefore spend from
seconds to a few minutes compiling before it prints anything. When stderr is a terminal, the
commands say so once, at the first compilation of a treelearn kernel; nothing is
printed when the kernels come from numba's cache, or when stderr is a file or a
pipe (scripts, tests).
"""

import contextlib
import sys

from numba.core import event

__all__ = ["NOTICE", "compile_notice"]

NOTICE = (
    "treelearn: numba is compiling kernels this command needs for the first time "
    "(from seconds to a few minutes, once: later runs load them from its cache) ..."
)


class _FirstCompile(event.Listener):
    """Prints :data:`NOTICE` at the first ``numba:compile`` event of a treelearn kernel."""

    def __init__(self, stream):
        self.stream = stream
        self.shown = False

    def on_start(self, ev):
        if self.shown:
            return
        function = getattr(ev.data.get("dispatcher"), "py_func", None)
        if getattr(function, "__module__", "").startswith("treelearn."):
            self.shown = True
            print(NOTICE, file=self.stream, flush=True)

    def on_end(self, ev):
        pass


def _is_terminal(stream):
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or closed
        return False


@contextlib.contextmanager
def compile_notice(stream=None):
    """Within the block, print :data:`NOTICE` to ``stream`` (default: ``sys.stderr``)
    once, when numba starts compiling a treelearn kernel, if ``stream`` is a terminal.

    Parameters
    ----------
    stream : file-like, optional
        Where the notice goes; read at entry (default: ``sys.stderr``).

    Yields
    ------
    None
    """
    stream = sys.stderr if stream is None else stream
    if not _is_terminal(stream):
        yield
        return
    with event.install_listener("numba:compile", _FirstCompile(stream)):
        yield
