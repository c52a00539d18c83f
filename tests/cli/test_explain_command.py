"""``treelearn explain``: the textbook table from a data file, a bundled dataset or a model file."""

from _cli import WEATHER_ARFF, assert_one_line_error, run

import treelearn
from treelearn.cli.explain import explanation_text


def table_rows(out):
    """{attribute: cells} of the printed table (the lines after the header row)."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("attribute"))
    return {line.split()[0]: line.split()[1:] for line in lines[start + 1 :] if line.strip()}


def test_id3_watermelon_root_is_the_books(capsys):
    result = run(["explain", "--dataset", "watermelon2", "--algorithm", "id3"], capsys)
    assert result.status == 0, result.err
    assert result.out.startswith(
        "node 0: 17 rows (weight 17); classes 否 9, 是 8; entropy 0.998, Gini 0.498\n"
        "split on: 纹理; rule: largest information gain\n"
    )
    rows = table_rows(result.out)
    # attribute: kind, gain, split info, gain ratio, Gini index, status, chosen
    assert rows["纹理"] == ["nominal", "0.381", "1.447", "0.263", "0.277", "candidate", "*"]
    assert rows["触感"] == ["nominal", "0.006", "0.874", "0.007", "0.494", "candidate"]


def test_c45_shows_thresholds_the_corrected_gain_and_the_average_rule(capsys):
    result = run(["explain", "--dataset", "watermelon3"], capsys)  # c4.5 by default
    assert result.status == 0, result.err
    assert "rule: gain ratio among attributes of at least average gain (C4.5)" in result.out
    assert "average gain: 0.154" in result.out
    rows = table_rows(result.out)
    # attribute: kind, threshold, gain, corrected, split info, ratio, Gini, above avg, ...
    assert rows["含糖率"][:3] == ["numeric", "0.103", "0.349"]
    assert rows["纹理"][-3:] == ["yes", "candidate", "*"]


def test_explain_from_a_saved_model_and_a_deeper_node(tmp_path, capsys):
    path = tmp_path / "weather.arff"
    path.write_text(WEATHER_ARFF, encoding="utf-8")
    model_path = tmp_path / "c45.json"
    fitted = run(["fit", path, "--algorithm", "c4.5", "--save", model_path], capsys)
    assert fitted.status == 0, fitted.err
    model = treelearn.load(model_path)
    node = int(model.tree_.children_of(0)[0])
    result = run(["explain", model_path, "--node", node], capsys)
    assert result.status == 0, result.err
    assert result.out.startswith(f"node {node}: ")
    assert result.out == explanation_text(treelearn.explain(model, node)) + "\n"


def test_cart_is_explained_from_its_data_but_not_from_a_model_file(tmp_path, capsys):
    result = run(["explain", "--dataset", "play_tennis", "--algorithm", "cart"], capsys)
    assert result.status == 0, result.err
    assert table_rows(result.out)["outlook"][:2] == ["nominal", "0.247"]
    model_path = tmp_path / "cart.json"
    run(["fit", "--dataset", "play_tennis", "--save", model_path], capsys)
    result = run(["explain", model_path], capsys)
    assert_one_line_error(result, "holds a CARTClassifier, which keeps no split records",
                          "treelearn explain DATA --algorithm cart", command="explain")  # fmt: skip


def test_errors(capsys):
    result = run(["explain", "--dataset", "play_tennis", "--algorithm", "id3", "--node", "99"],
                 capsys)  # fmt: skip
    assert_one_line_error(result, "--node 99 is not in the tree; it has nodes 0 to")
    result = run(["explain", "--dataset", "iris", "--target", "petal width (cm)", "--task",
                  "regression", "--algorithm", "cart"], capsys)  # fmt: skip
    assert_one_line_error(result, "defined for classes")
