"""Label formatting shared by every exporter: numbers, category sets, conditions, escaping.

Numbers
    :func:`format_number` rounds to ``decimals`` digits and drops trailing
    zeros (``4`` rather than ``4.000``; ``-0`` is ``0``).
Labels
    Feature names, category labels and class labels are shown with ``str``,
    on one line: a newline, tab or other control character in a label is
    shown as its Python escape (``\\n``, ``\\t``, ``\\x1b``), so that one
    label never spans several lines of text.
Category sets
    ``{a, b}`` in the order of the category codes.
Conditions
    :func:`condition_text` renders a :class:`~treelearn.tree.view.Condition`:
    ``x <= 2.5``, ``x > 2.5``, ``x in {a, b}``, ``x = a`` (``"=="``).
    :func:`branch_lines` gives an edge's label in pictures: the condition
    without the feature name, then how missing values take the branch (``+
    missing``, with the unseen categories routed as missing; ``+ missing (by
    weight: 0.4)`` at a C4.5 node).
Escaping
    :func:`escape_html` makes any text safe inside HTML, XML/SVG and Graphviz
    HTML-like labels: ``& < > " '`` become entities, and so do the characters
    that are special in Graphviz labels (``{ } | \\``), newlines become
    ``<BR/>`` when asked, and control characters (which XML cannot hold at all)
    become U+FFFD. :func:`escape_dot_string` escapes text for a double-quoted
    DOT string (backslash, quote, newline).
"""

import numbers

from treelearn.exceptions import ParameterError
from treelearn.tree.view import MISSING_WEIGHTED

__all__ = [
    "branch_lines",
    "category_set_text",
    "check_decimals",
    "condition_text",
    "escape_dot_string",
    "escape_html",
    "format_number",
    "label_text",
]

_HTML_ENTITIES = {
    "&": "&amp;",
    "<": "&lt;",
    ">": "&gt;",
    '"': "&quot;",
    "'": "&#39;",
    "{": "&#123;",
    "}": "&#125;",
    "|": "&#124;",
    "\\": "&#92;",
}
_REPLACEMENT = "\ufffd"


def check_decimals(decimals):
    """``decimals`` as an int; a :class:`ParameterError` unless it is an integer >= 0."""
    if isinstance(decimals, bool) or not isinstance(decimals, numbers.Integral) or decimals < 0:
        raise ParameterError(f"decimals must be an integer >= 0, got {decimals!r}.")
    return int(decimals)


def format_number(value, decimals):
    """``value`` rounded to ``decimals`` digits, without trailing zeros (``4``, ``0.382``)."""
    text = f"{float(value):.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


_LINE_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def label_text(label):
    """A feature name, category or class label as one line of text (module docstring)."""
    text = str(label)
    if text.isprintable():
        return text
    out = []
    for ch in text:
        if ch in _LINE_ESCAPES:
            out.append(_LINE_ESCAPES[ch])
        elif _is_control(ch) or ch in "\u2028\u2029":
            out.append(ch.encode("unicode_escape").decode("ascii"))
        else:
            out.append(ch)
    return "".join(out)


def category_set_text(labels):
    """``{a, b}``: the labels in the given order."""
    return "{" + ", ".join(label_text(label) for label in labels) + "}"


def condition_text(condition, decimals, with_name=True):
    """``x <= 2.5``, ``x > 2.5``, ``x in {a, b}`` or ``x = a``; without the name: ``<= 2.5``."""
    operator = condition.operator
    if operator in ("<=", ">"):
        operand = format_number(condition.threshold, decimals)
    elif operator == "==":
        operator, operand = "=", label_text(condition.categories[0])
    else:
        operand = category_set_text(condition.categories)
    text = f"{operator} {operand}"
    return f"{label_text(condition.feature_name)} {text}" if with_name else text


def branch_lines(branch, decimals):
    """An edge's label as lines of plain text: the condition, then the missing-value route."""
    lines = [condition_text(branch.condition, decimals, with_name=False)]
    if branch.missing == MISSING_WEIGHTED:
        lines.append(f"+ missing (by weight: {format_number(branch.fraction, decimals)})")
    elif branch.takes_missing:
        marker = "+ missing"
        if branch.unseen:
            marker += ", " + category_set_text(branch.unseen)
        lines.append(marker)
    return lines


def _is_control(ch):
    code = ord(ch)
    return code < 0x20 or 0x7F <= code < 0xA0 or code in (0xFFFE, 0xFFFF)


def escape_html(text, newline="<BR/>"):
    """``text`` made safe for HTML/XML and Graphviz HTML-like labels (module docstring).

    A newline becomes ``newline`` (pass ``" "`` for an attribute value), a tab
    a space, any other control character U+FFFD.
    """
    out = []
    for ch in str(text):
        if ch in _HTML_ENTITIES:
            out.append(_HTML_ENTITIES[ch])
        elif ch == "\n":
            out.append(newline)
        elif ch == "\t":
            out.append(" ")
        elif _is_control(ch) or 0xD800 <= ord(ch) <= 0xDFFF:
            out.append(_REPLACEMENT)
        else:
            out.append(ch)
    return "".join(out)


def escape_dot_string(text):
    """``text`` as the inside of a double-quoted DOT string: ``\\`` ``"`` and newlines escaped."""
    out = []
    for ch in str(text):
        if ch in '\\"':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append(" ")
        elif _is_control(ch) or 0xD800 <= ord(ch) <= 0xDFFF:
            out.append(_REPLACEMENT)
        else:
            out.append(ch)
    return "".join(out)
