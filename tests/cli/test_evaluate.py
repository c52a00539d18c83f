"""``treelearn evaluate``: k-fold cross-validation, several algorithms side by side."""

import io
import sys

import numpy as np
import pandas as pd
import pytest
from _cli import WATERMELON_WITH_MISSING, assert_one_line_error, run
from sklearn.model_selection import KFold, StratifiedKFold, cross_val_score

from treelearn import CARTClassifier, CARTRegressor, ID3Classifier
from treelearn.cli.evaluate import class_labels
from treelearn.cli.output import Progress
from treelearn.datasets import load_dataset


def _row(out, label):
    """The cells of the table row that starts with ``label``."""
    for line in out.splitlines():
        if line.startswith(label + "  "):
            return [cell.strip() for cell in line[len(label) :].split("  ") if cell.strip()]
    raise AssertionError(f"no row {label!r} in:\n{out}")


def test_iris_cart_and_id3_side_by_side(capsys):
    argv = ["evaluate", "--dataset", "iris", "--algorithm", "cart", "--algorithm", "id3"]
    result = run([*argv, "--cv", "10"], capsys)
    assert result.status == 0, result.err
    out = result.out
    assert out.startswith(
        "10-fold cross-validation on iris: 150 rows, 4 features (0 nominal, 4 numeric), "
        "target species (3 classes)\nstratified folds shuffled with seed 0; mean ± std over "
        "the 10 folds\n"
    )
    header = next(line for line in out.splitlines() if line.strip().startswith("cart"))
    assert header.split() == ["cart", "id3"]
    for label in ("accuracy", "precision setosa", "recall virginica", "leaves", "time"):
        assert len(_row(out, label)) == 2, label
    # The same numbers as scikit-learn's cross_val_score on the same folds.
    X, y = load_dataset("iris")
    folds = StratifiedKFold(10, shuffle=True, random_state=0)
    for cell, estimator in zip(
        _row(out, "accuracy"), [CARTClassifier(), ID3Classifier(discretize="mdl")], strict=True
    ):
        scores = cross_val_score(estimator, X, y, cv=folds)
        assert cell == f"{scores.mean():.3f} ± {scores.std():.3f}"
    assert (
        "\nconfusion matrix of cart (rows: true class, columns: predicted class; all 10 folds)\n"
        in out
    )
    assert out.count("confusion matrix of") == 2
    assert "id3: criterion entropy, discretize mdl" in out
    assert "note: id3: numeric columns are cut into intervals (--discretize mdl" in out


def test_confusion_matrix_counts_every_row_once(capsys):
    result = run(["evaluate", "--dataset", "play_tennis", "--cv", "3"], capsys)
    assert result.status == 0, result.err
    lines = result.out.splitlines()
    start = lines.index("confusion matrix of cart (rows: true class, columns: predicted class; "
                        "all 3 folds)")  # fmt: skip
    assert lines[start + 1].split() == ["no", "yes"]
    counts = np.array([[int(v) for v in lines[start + i].split()[1:]] for i in (2, 3)])
    assert counts.sum() == 14
    assert counts.sum(axis=1).tolist() == [5, 9]  # rows: the true classes


def test_chinese_csv_with_missing_values(tmp_path, capsys):
    path = tmp_path / "西瓜.csv"
    path.write_text(WATERMELON_WITH_MISSING, encoding="utf-8")
    result = run(["evaluate", path, "--drop", "编号", "--cv", "3", "--max-depth", "2"], capsys)
    assert result.status == 0, result.err
    assert "target 好瓜 (2 classes)" in result.out
    assert len(_row(result.out, "precision 是")) == 1
    assert "cart: criterion gini, max_depth 2, min_samples_leaf 1" in result.out


def test_regression_reports_rmse_and_mae(tmp_path, capsys):
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 10, 40)
    lines = ["x,noise,y"] + [f"{a:.3f},{b:.3f},{a * 2 + b:.3f}" for a, b in
                             zip(x, rng.normal(0, 1, 40), strict=True)]  # fmt: skip
    path = tmp_path / "r.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = run(["evaluate", path, "--cv", "4", "--max-depth", "3", "--seed", "7"], capsys)
    assert result.status == 0, result.err
    assert "(numeric)\nfolds shuffled with seed 7; mean ± std over the 4 folds" in result.out
    assert "confusion" not in result.out
    frame = pd.read_csv(io.StringIO(path.read_text(encoding="utf-8")))
    folds = KFold(4, shuffle=True, random_state=7)
    scores = -cross_val_score(
        CARTRegressor(max_depth=3), frame[["x", "noise"]], frame["y"], cv=folds,
        scoring="neg_root_mean_squared_error",
    )  # fmt: skip
    assert _row(result.out, "RMSE") == [f"{scores.mean():.3f} ± {scores.std():.3f}"]
    assert len(_row(result.out, "MAE")) == 1


def test_same_seed_same_numbers_other_seed_other_folds(capsys):
    argv = ["evaluate", "--dataset", "watermelon3", "--cv", "3", "--max-depth", "2"]
    first = run([*argv, "--seed", "1"], capsys).out
    again = run([*argv, "--seed", "1"], capsys).out
    other = run([*argv, "--seed", "2"], capsys).out
    assert _row(first, "accuracy") == _row(again, "accuracy")
    assert first.splitlines()[:8] != other.splitlines()[:8]


def test_small_class_note_and_too_many_folds(capsys):
    result = run(["evaluate", "--dataset", "play_tennis", "--cv", "6"], capsys)
    assert result.status == 0, result.err
    assert (
        "note: the smallest class ('no', 5 rows) has fewer rows than --cv 6; some test folds "
        "hold none of it." in result.out
    )
    result = run(["evaluate", "--dataset", "play_tennis", "--cv", "10"], capsys)
    assert_one_line_error(
        result,
        "--cv 10 needs at least 10 rows of some class, but the largest class of 'play' has 9; "
        "use --cv 9 or fewer.",
        command="evaluate",
    )
    result = run(["evaluate", "builtin:iris", "--target", "sepal length (cm)", "--cv", "200"],
                 capsys)  # fmt: skip
    assert_one_line_error(result, "--cv 200 asks for more folds than the 150 rows")


def test_options_apply_to_the_algorithms_that_take_them(capsys):
    argv = ["evaluate", "--dataset", "play_tennis", "--cv", "2", "--algorithm", "cart",
            "--algorithm", "id3", "--min-samples-leaf", "3"]  # fmt: skip
    result = run(argv, capsys)
    assert result.status == 0, result.err
    assert "cart: criterion gini, min_samples_leaf 3" in result.out
    assert "id3: criterion entropy\n" in result.out
    result = run(["evaluate", "--dataset", "play_tennis", "--algorithm", "id3",
                  "--min-samples-leaf", "3"], capsys)  # fmt: skip
    assert_one_line_error(
        result, "--min-samples-leaf is a CART and C4.5 option; ID3 does not take it."
    )
    result = run(["evaluate", "--dataset", "iris", "--target", "sepal width (cm)",
                  "--algorithm", "id3"], capsys)  # fmt: skip
    assert_one_line_error(result, "--algorithm id3 grows classification trees")


def test_a_failing_fold_is_one_line(tmp_path, capsys):
    path = tmp_path / "m.csv"
    path.write_text("a,b,y\nx,?,p\ny,u,q\nx,u,p\ny,v,q\n", encoding="utf-8")
    result = run(["evaluate", path, "--algorithm", "id3", "--cv", "2"], capsys)
    assert_one_line_error(result, f"cannot evaluate id3 on {path} (fold ", "missing")


def test_progress_bar_only_on_a_terminal(capsys, monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    terminal = Terminal()
    progress = Progress(4, stream=terminal)
    for i in range(4):
        progress.step(f"cart fold {i + 1}/4")
    progress.close()
    drawn = terminal.getvalue()
    assert "\r[############............] 2/4 cart fold 2/4" in drawn
    assert "\r[########################] 4/4 cart fold 4/4" in drawn
    assert drawn.endswith("\r\x1b[K")  # erased at the end
    pipe = io.StringIO()
    progress = Progress(4, stream=pipe)
    progress.step("cart fold 1/4")
    progress.close()
    assert pipe.getvalue() == ""
    # through the command: stderr is a terminal, so the bar is drawn and then erased
    monkeypatch.setattr("sys.stderr", Terminal())
    assert run(["evaluate", "--dataset", "play_tennis", "--cv", "2"], capsys).status == 0
    assert "2/2 cart fold 2/2" in sys.stderr.getvalue()


@pytest.mark.parametrize(
    ("values", "categories", "expected"),
    [
        (["b", "a", "b"], None, ["a", "b"]),
        (["yes", "no"], ["yes", "no", "maybe"], ["yes", "no"]),
        ([2, 1, 2], None, [1, 2]),
    ],
)
def test_class_labels(values, categories, expected):
    series = pd.Series(pd.Categorical(values, categories=categories) if categories else values)
    assert class_labels(series) == expected


def test_integer_and_boolean_classes(tmp_path, capsys):
    path = tmp_path / "ints.csv"
    rows = [f"{x},{1 + x % 3},{x % 2 == 0}" for x in range(30)]
    path.write_text("x,grade,even\n" + "\n".join(rows) + "\n", encoding="utf-8")
    result = run(["evaluate", path, "--target", "grade", "--drop", "even", "--cv", "3"], capsys)
    assert result.status == 0, result.err
    assert "30 rows, 1 feature (0 nominal, 1 numeric), target grade (3 classes)" in result.out
    assert len(_row(result.out, "recall 3")) == 1
    result = run(["evaluate", path, "--target", "even", "--cv", "3"], capsys)
    assert result.status == 0, result.err
    assert len(_row(result.out, "precision True")) == 1
