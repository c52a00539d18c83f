"""The ``treelearn`` command: argument parsing, the subcommands, and error reporting.

Commands (thin over the Python API; one module each, adding its own parser):

``treelearn fit [DATA | --dataset NAME] [--target COL] [options] [--save FILE]``
    Read a table, grow a tree, print it and a summary (:mod:`treelearn.cli.fit`).
``treelearn show MODEL [--format text|rules|dot|svg|png|html] [-o FILE]``
    A saved model as text, rules, DOT, a picture or a page (:mod:`treelearn.cli.show`).
``treelearn explain MODEL|DATA [--node N] [options]``
    The textbook table of a node's split (:mod:`treelearn.cli.explain`).
``treelearn predict MODEL DATA [-o OUT] [--proba]``
    The input rows with the model's predictions appended, as CSV
    (:mod:`treelearn.cli.predict`).
``treelearn evaluate DATA --target COL [--cv K] [--algorithm NAME ...]``
    k-fold cross-validation, several algorithms side by side
    (:mod:`treelearn.cli.evaluate`).
``treelearn datasets``
    The bundled datasets (:mod:`treelearn.cli.datasets`).

DATA is a CSV/TSV, Parquet or ARFF file (:mod:`treelearn.data.readers`) or
``builtin:NAME``. Errors the user can fix (a missing or malformed file, an
unknown column or dataset, data the estimators reject) print one line to
stderr, ``treelearn <command>: error: <what>, <where>; <what to do>``, and
exit with status 2, without a traceback (``--debug`` shows it).
"""

import argparse
import os
import sys

from treelearn import __version__
from treelearn.cli import datasets, evaluate, explain, fit, predict, show
from treelearn.cli.compile_notice import compile_notice
from treelearn.cli.tables import CliError
from treelearn.exceptions import TreelearnError

__all__ = ["EXIT_USAGE", "build_parser", "main"]

#: Exit status of every error the user can fix (argparse uses 2 as well).
EXIT_USAGE = 2
#: Exit status after Ctrl-C (128 + SIGINT), as shells report it.
EXIT_INTERRUPTED = 130
#: The subcommand modules, in the order of ``treelearn --help``; each has ``add_parser``.
COMMANDS = (fit, show, explain, predict, evaluate, datasets)


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors are one line and name the help to read."""

    def error(self, message):
        self.exit(
            EXIT_USAGE,
            f"{self.prog}: error: {message} (see '{self.prog} --help')\n",
        )


def build_parser():
    """The ``treelearn`` argument parser with its subcommands."""
    parser = _Parser(
        prog="treelearn",
        description="Decision trees from a data file or a bundled dataset.",
        epilog="Run 'treelearn COMMAND --help' for the options of a command.",
    )
    parser.add_argument("--version", action="version", version=f"treelearn {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for command in COMMANDS:
        command.add_parser(commands)
    return parser


def main(argv=None):
    """Run the ``treelearn`` command; return the exit status.

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success, 2 for an error the user can fix, 130 after Ctrl-C.
    """
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # --help, --version and usage errors
        return exit_.code if isinstance(exit_.code, int) else EXIT_USAGE
    try:
        with compile_notice():  # (a line on a terminal while numba compiles, first runs)
            status = args.run(args)
        sys.stdout.flush()  # a closed pipe shows here, not at exit
        return status
    except (CliError, TreelearnError) as error:
        if args.debug:
            raise
        message = " ".join(str(error).split())
        print(f"treelearn {args.command}: error: {message}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        if args.debug:
            raise
        print(f"\ntreelearn {args.command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (treelearn show model.json | head): stop quietly.
        # Point stdout at devnull so that Python's exit-time flush does not fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):  # stdout without a file descriptor (a test's capture)
            pass
        finally:
            os.close(devnull)
        return 1
