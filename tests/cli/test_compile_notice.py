"""The one-line notice on a terminal while numba compiles treelearn's kernels."""

import contextlib
import importlib
import io

import numba

from treelearn.cli.compile_notice import NOTICE, compile_notice

# (The module: ``treelearn.cli.main`` as an attribute is the function it exports.)
cli_main = importlib.import_module("treelearn.cli.main")


class _Terminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self):
        return True


def _uncompiled_kernel(module):
    """A numba kernel of ``module`` that compiles at its first call (no cache)."""

    def add_one(x):
        return x + 1

    add_one.__module__ = module
    return numba.njit(add_one)


def test_a_terminal_is_told_once_at_the_first_treelearn_compilation():
    terminal = _Terminal()
    with compile_notice(terminal):
        assert _uncompiled_kernel("elsewhere")(1) == 2
        assert terminal.getvalue() == ""  # not a treelearn kernel
        assert _uncompiled_kernel("treelearn.fake_kernels")(1) == 2
        assert _uncompiled_kernel("treelearn.fake_kernels")(2.5) == 3.5
    assert terminal.getvalue() == NOTICE + "\n"
    assert _uncompiled_kernel("treelearn.fake_kernels")(1) == 2  # outside: not listening
    assert terminal.getvalue() == NOTICE + "\n"


def test_a_compiled_kernel_called_again_prints_nothing():
    kernel = _uncompiled_kernel("treelearn.fake_kernels")
    kernel(1)  # compiled here, before the notice listens
    terminal = _Terminal()
    with compile_notice(terminal):
        assert kernel(5) == 6
    assert terminal.getvalue() == ""


def test_nothing_is_printed_off_a_terminal():
    not_a_terminal = io.StringIO()
    with compile_notice(not_a_terminal):
        _uncompiled_kernel("treelearn.fake_kernels")(1)
    assert not_a_terminal.getvalue() == ""


def test_the_commands_run_within_the_notice(monkeypatch, capsys):
    printed_inside = []

    @contextlib.contextmanager
    def recording_notice():
        yield
        # What the command printed while the notice listened.
        printed_inside.append(capsys.readouterr().out)

    monkeypatch.setattr(cli_main, "compile_notice", recording_notice)
    assert cli_main.main(["datasets"]) == 0
    assert len(printed_inside) == 1
    assert "watermelon2" in printed_inside[0]
