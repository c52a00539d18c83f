"""``treelearn show MODEL``: text, rules and DOT; pictures and HTML through treelearn.export."""

import pytest
from _cli import assert_one_line_error, run

import treelearn
from treelearn import export as exporters
from treelearn.export import export_dot, export_rules, export_text


@pytest.fixture
def model_path(tmp_path, capsys):
    """A CART play-tennis model saved by 'treelearn fit --save'."""
    path = tmp_path / "tennis.json"
    result = run(["fit", "--dataset", "play_tennis", "--max-depth", "2", "--save", path], capsys)
    assert result.status == 0, result.err
    return path


def test_show_text_rules_and_dot(model_path, capsys):
    model = treelearn.load(model_path)
    result = run(["show", model_path], capsys)
    assert result.status == 0, result.err
    assert result.out == export_text(model).rstrip("\n") + "\n"
    assert result.out.startswith("|--- outlook in {rainy, sunny}  (+ missing)\n")
    result = run(["show", model_path, "--format", "rules"], capsys)
    assert result.out == "\n".join(str(rule) for rule in export_rules(model)) + "\n"
    assert result.out.endswith(
        "\nif outlook = overcast then class = yes  (confidence: 1, support: 4)\n"
    )
    result = run(["show", model_path, "--format", "dot", "--decimals", "1"], capsys)
    assert result.out == export_dot(model, decimals=1).rstrip("\n") + "\n"
    assert result.out.startswith("digraph Tree {")


@pytest.mark.parametrize(
    ("argv", "name", "fmt", "start"),
    [
        (["--format", "rules"], "tennis.rules", "rules", "if (outlook in {rainy, sunny}"),
        ([], "tree.dot", "dot", "digraph Tree {"),  # the format follows the extension
        ([], "tree.txt", "text", "|--- outlook in {rainy, sunny}"),
    ],
)
def test_show_to_a_file(model_path, capsys, argv, name, fmt, start):
    output = model_path.parent / name
    result = run(["show", model_path, *argv, "-o", output], capsys)
    assert result.status == 0, result.err
    assert result.out.startswith(f"wrote the {fmt} of {model_path} to {output}")
    assert output.read_text(encoding="utf-8").startswith(start)
    assert sorted(p.name for p in model_path.parent.iterdir()) == sorted(["tennis.json", name])


def test_show_a_chinese_model(tmp_path, capsys):
    path = tmp_path / "西瓜.json"
    run(["fit", "--dataset", "watermelon2", "--max-depth", "1", "--save", path], capsys)
    result = run(["show", path, "--format", "rules"], capsys)
    assert result.status == 0, result.err
    assert result.out == (
        "if 纹理 = 清晰 or 纹理 is missing then class = 是  (confidence: 0.778, support: 9)\n"
        "if 纹理 in {模糊, 稍糊} then class = 否  (confidence: 0.875, support: 8)\n"
    )


@pytest.mark.parametrize(("fmt", "function"), [("svg", "save_image"), ("png", "save_image"),
                                                ("html", "export_html")])  # fmt: skip
def test_pictures_and_pages_call_the_exporter(model_path, capsys, monkeypatch, fmt, function):
    calls = []

    def fake(model, path, decimals=3):
        calls.append((type(model).__name__, path))
        path.write_text("picture", encoding="utf-8")

    monkeypatch.setattr(exporters, function, fake, raising=False)
    result = run(["show", model_path, "--format", fmt], capsys)
    assert result.status == 0, result.err
    expected = model_path.with_suffix(f".{fmt}")  # default: next to the model
    assert calls == [("CARTClassifier", expected)]
    assert result.out == f"wrote the {fmt} of {model_path} to {expected}\n"
    other = model_path.parent / f"other.{fmt}"
    assert run(["show", model_path, "-o", other], capsys).status == 0  # format from -o
    assert calls[-1] == ("CARTClassifier", other)


@pytest.mark.parametrize("fmt", ["svg", "png", "html"])
def test_pictures_without_the_exporter_say_what_to_do(model_path, capsys, monkeypatch, fmt):
    function = "export_html" if fmt == "html" else "save_image"
    monkeypatch.delattr(exporters, function, raising=False)
    result = run(["show", model_path, "--format", fmt], capsys)
    assert_one_line_error(
        result,
        f"--format {fmt} needs treelearn.export.{function}, which this version of treelearn "
        "does not have yet; use --format dot",
        command="show",
    )


def test_real_svg_when_the_exporter_exists(model_path, capsys):
    if not hasattr(exporters, "save_image"):
        pytest.skip("treelearn.export.save_image is not there yet")
    output = model_path.parent / "tree.svg"
    result = run(["show", model_path, "-o", output], capsys)
    if result.status != 0 and "needs a package" in result.err:
        pytest.skip(result.err)
    assert result.status == 0, result.err
    assert "<svg" in output.read_text(encoding="utf-8")


def test_show_errors(model_path, tmp_path, capsys):
    result = run(["show", tmp_path / "none.json"], capsys)
    assert_one_line_error(
        result, f"no such model file: {tmp_path / 'none.json'}", "fit DATA --save", command="show"
    )
    data = tmp_path / "data.csv"
    data.write_text("a,b\n1,2\n", encoding="utf-8")
    result = run(["show", data], capsys)
    assert_one_line_error(result, f"'{data}' is not a valid treelearn model file", "not valid JSON")
    result = run(["show", model_path, "--format", "png", "-o", tmp_path / "tree.svg"], capsys)
    assert_one_line_error(result, "does not end in .png, but --format is png")
    result = run(["show", model_path, "-o", tmp_path / "no" / "tree.txt"], capsys)
    assert_one_line_error(result, "folder", "does not exist; create it first")
