"""``treelearn show``: a saved model as text, rules, DOT, a picture or an HTML page."""

from pathlib import Path

import treelearn
from treelearn import export as exporters
from treelearn.cli.options import add_debug, non_negative_int
from treelearn.cli.output import write_atomic
from treelearn.cli.tables import CliError
from treelearn.export import export_dot, export_rules, export_text

__all__ = ["FORMATS", "add_parser", "load_model", "run_show"]

#: Formats printed as text (to stdout, or to -o FILE).
TEXT_FORMATS = ("text", "rules", "dot")
#: Formats written to a file by an exporter of treelearn.export: format -> function name.
FILE_FORMATS = {"svg": "save_image", "png": "save_image", "html": "export_html"}
FORMATS = TEXT_FORMATS + tuple(FILE_FORMATS)
_SUFFIX_FORMATS = {".txt": "text", ".dot": "dot", ".gv": "dot", ".svg": "svg", ".png": "png"}
_SUFFIX_FORMATS |= {".html": "html", ".htm": "html"}


def add_parser(commands):
    """Add ``show`` to the subcommands."""
    show = commands.add_parser(
        "show",
        help="show a saved model as text, rules, DOT, SVG/PNG or HTML",
        description="Show a model saved by 'treelearn fit --save FILE'.",
        epilog=(
            "text, rules and dot print to the terminal, or to -o FILE; svg, png and html "
            "write a file (-o FILE, default: the model's name with the format's extension). "
            "Without --format the format follows the extension of -o (.txt, .dot, .svg, "
            ".png, .html), else text. Example: 'treelearn show model.json --format rules'."
        ),
    )
    show.add_argument("model", metavar="MODEL", help="a model file written by fit --save")
    show.add_argument("--format", choices=FORMATS, help="what to show (default: text)")
    show.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of printing")
    show.add_argument(
        "--decimals",
        type=non_negative_int,
        default=3,
        metavar="N",
        help="digits after the decimal point (default: 3)",
    )
    add_debug(show)
    show.set_defaults(run=run_show)


def load_model(path):
    """``treelearn.load(path)``; a missing or unreadable file is a :class:`CliError`.

    A file that is not a model file raises
    :class:`~treelearn.exceptions.ModelFormatError`, whose message names it.
    """
    path = Path(path)
    if not path.exists():
        raise CliError(
            f"no such model file: {path}; write one with 'treelearn fit DATA --save {path}'."
        )
    if path.is_dir():
        raise CliError(f"{path} is a folder, not a model file.")
    try:
        return treelearn.load(path)
    except OSError as error:
        raise CliError(f"cannot read {path}: {error.strerror or error}.") from None


def _choose_format(requested, output):
    if requested is not None:
        return requested
    if output is not None:
        return _SUFFIX_FORMATS.get(Path(output).suffix.lower(), "text")
    return "text"


def run_show(args):
    """Print or write the model in the chosen format."""
    model = load_model(args.model)
    fmt = _choose_format(args.format, args.output)
    if fmt in FILE_FORMATS:
        return _write_file_format(model, fmt, args)
    if fmt == "text":
        text = export_text(model, decimals=args.decimals)
    elif fmt == "rules":
        text = "\n".join(str(rule) for rule in export_rules(model, decimals=args.decimals))
    else:
        text = export_dot(model, decimals=args.decimals)
    text = text.rstrip("\n") + "\n"
    if args.output is None:
        print(text, end="")
        return 0
    write_atomic(args.output, text)
    picture = Path(args.output).with_suffix(".svg")
    hint = f"; render it with: dot -Tsvg {args.output} -o {picture}" if fmt == "dot" else ""
    print(f"wrote the {fmt} of {args.model} to {args.output}{hint}")
    return 0


def _write_file_format(model, fmt, args):
    function_name = FILE_FORMATS[fmt]
    exporter = getattr(exporters, function_name, None)
    image = "svg" if fmt == "html" else fmt
    if exporter is None:
        raise CliError(
            f"--format {fmt} needs treelearn.export.{function_name}, which this version of "
            f"treelearn does not have yet; use --format dot and render it with Graphviz "
            f"(treelearn show {args.model} --format dot -o tree.dot && dot -T{image} "
            f"tree.dot -o tree.{image})."
        )
    output = Path(args.output) if args.output else Path(args.model).with_suffix(f".{fmt}")
    expected = (".htm", ".html") if fmt == "html" else (f".{fmt}",)
    if output.suffix.lower() not in expected:
        raise CliError(
            f"-o {output} does not end in .{fmt}, but --format is {fmt}; name the file "
            f"{output.with_suffix('.' + fmt)}."
        )
    if not output.parent.is_dir():
        raise CliError(
            f"cannot write {output}: folder {output.parent} does not exist; create it first."
        )
    try:
        exporter(model, output, decimals=args.decimals)
    except ImportError as error:
        raise CliError(f"--format {fmt} needs a package that is not installed: {error}") from None
    except OSError as error:
        raise CliError(f"cannot write {output}: {error.strerror or error}.") from None
    print(f"wrote the {fmt} of {args.model} to {output}")
    return 0
