"""The algorithm registry: one entry adds an algorithm to fit, evaluate and --help."""

import functools

from _cli import assert_one_line_error, run

from treelearn import CARTClassifier
from treelearn.cli import algorithms
from treelearn.cli.algorithms import ALGORITHMS, Algorithm


def test_one_registry_entry_adds_an_algorithm(capsys, monkeypatch):
    stump = Algorithm(
        "stump",
        "STUMP",
        functools.partial(CARTClassifier, max_depth=1),
        None,
        frozenset({"criterion"}),
        criteria=("entropy",),
        summary="one split",
    )
    monkeypatch.setitem(ALGORITHMS, "stump", stump)
    result = run(["fit", "--dataset", "play_tennis", "--algorithm", "stump"], capsys)
    assert result.status == 0, result.err
    assert result.out.startswith("STUMP classification tree for play (play_tennis)")
    assert "tree               2 leaves, depth 1" in result.out
    argv = ["evaluate", "--dataset", "play_tennis", "--cv", "2"]
    result = run([*argv, "--algorithm", "cart", "--algorithm", "stump"], capsys)
    assert result.status == 0, result.err
    assert "stump: " in result.out
    result = run(["fit", "--help"], capsys)
    assert "stump (one split)" in " ".join(result.out.split())
    result = run(["fit", "--dataset", "play_tennis", "--algorithm", "stump", "--max-depth", "2"],
                 capsys)  # fmt: skip
    assert_one_line_error(
        result, "--max-depth is a CART, ID3 and C4.5 option; STUMP does not take it."
    )
    result = run(["fit", "--dataset", "play_tennis", "--algorithm", "stump", "--criterion",
                  "gini"], capsys)  # fmt: skip
    assert_one_line_error(result, "STUMP does not take --criterion gini; it takes entropy.")
    argv = ["fit", "--dataset", "iris", "--target", "petal width (cm)", "--algorithm", "stump"]
    assert_one_line_error(
        run(argv, capsys), "--algorithm stump grows classification trees", "use --algorithm cart"
    )


def test_articles():
    assert algorithms._article("ID3") == "an"
    assert algorithms._article("CART") == "a"
    assert algorithms._article("C4.5") == "a"


def test_c45_fits_and_is_evaluated_beside_cart(capsys):
    result = run(["fit", "--dataset", "play_tennis_numeric", "--algorithm", "c4.5"], capsys)
    assert result.status == 0, result.err
    assert result.out.startswith("C4.5 classification tree for play")
    assert "(gain ratio, C4.5's rule)" in result.out
    argv = ["evaluate", "--dataset", "iris", "--algorithm", "cart", "--algorithm", "c4.5"]
    result = run([*argv, "--cv", "10"], capsys)
    assert result.status == 0, result.err
    header = next(line for line in result.out.splitlines() if "cart" in line and "c4.5" in line)
    assert header.split() == ["cart", "c4.5"]
    assert result.out.count("accuracy") == 1
    result = run(["fit", "--dataset", "play_tennis", "--algorithm", "c4.5", "--criterion",
                  "gini"], capsys)  # fmt: skip
    assert_one_line_error(result, "--criterion is a CART and ID3 option; C4.5 does not take it.")


def test_pruning_options(capsys):
    argv = ["fit", "--dataset", "iris", "--algorithm", "c4.5"]
    grown = run([*argv, "--pruning", "none"], capsys)
    pruned = run([*argv, "--cf", "0.01"], capsys)
    assert grown.status == pruned.status == 0, (grown.err, pruned.err)

    def leaves(out):
        line = next(line for line in out.splitlines() if line.startswith("tree "))
        return int(line.split()[1])

    assert leaves(pruned.out) < leaves(grown.out)
    cart = run(["fit", "--dataset", "iris", "--ccp-alpha", "0.02"], capsys)
    assert leaves(cart.out) == 4
    result = run(["fit", "--dataset", "iris", "--algorithm", "c4.5", "--ccp-alpha", "0.1"],
                 capsys)  # fmt: skip
    assert_one_line_error(result, "--ccp-alpha is a CART option; C4.5 does not take it.")
    numeric = ["fit", "--dataset", "iris", "--target", "petal width (cm)"]
    assert_one_line_error(
        run([*numeric, "--pruning", "pessimistic"], capsys), "counts misclassifications"
    )
    assert_one_line_error(run([*numeric, "--cf", "0.2"], capsys), "--cf is the confidence factor")
    result = run([*argv, "--cf", "2"], capsys)
    assert result.status == 2 and "expected a number between 0 and 1" in result.err
