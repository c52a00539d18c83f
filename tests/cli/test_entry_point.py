"""The installed ``treelearn`` command and ``python -m treelearn``, run as subprocesses."""

import os
import shutil
import subprocess
import sys

import pytest
from _cli import WEATHER_ARFF

ENV = {**os.environ, "PYTHONIOENCODING": "utf-8"}


def _run(command, **options):
    return subprocess.run(
        [str(part) for part in command],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=300,
        env=ENV,
        **options,
    )


def _treelearn():
    executable = shutil.which("treelearn")
    if executable is None:
        pytest.skip("the treelearn entry point is not installed (pip install .)")
    return executable


def test_installed_entry_point_id3_watermelon():
    result = _run([_treelearn(), "fit", "--dataset", "watermelon2", "--algorithm", "id3"])
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[2].startswith("|--- 纹理 = ")
    assert result.stderr == ""


def test_fit_save_and_predict_on_files(tmp_path):
    treelearn = _treelearn()
    data = tmp_path / "weather.arff"
    data.write_text(WEATHER_ARFF, encoding="utf-8")
    model = tmp_path / "weather.json"
    result = _run([treelearn, "fit", data, "--save", model, "--max-depth", "2"])
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"CART classification tree for play it ({data})")
    output = tmp_path / "out.csv"
    result = _run([treelearn, "predict", model, data, "-o", output, "--proba"])
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"wrote 14 predictions for {data} to {output}\n"
    lines = output.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "outlook,temperature,humidity,windy,play it,prediction,P(yes),P(no)"
    assert len(lines) == 15


def test_python_dash_m_error():
    result = _run([sys.executable, "-m", "treelearn", "fit", "missing.csv"])
    assert result.returncode == 2
    assert result.stderr == (
        "treelearn fit: error: no such file: missing.csv; check the path (or use --dataset NAME).\n"
    )


def test_a_closed_pipe_ends_quietly():
    """``treelearn fit ... | head -0``: the reader is gone before the output; no traceback."""
    process = subprocess.Popen(
        [sys.executable, "-m", "treelearn", "fit", "--dataset", "play_tennis"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=ENV,
    )
    process.stdout.close()  # the reader goes away before anything is written
    _, stderr = process.communicate(timeout=300)
    assert stderr == b""
    assert process.returncode == 1


def test_the_main_job_imports_no_cross_validation_or_metrics():
    """``treelearn fit`` starts without scikit-learn's model selection and metrics
    (about 0.07 s of imports that only ``evaluate`` and ``select_ccp_alpha`` need)."""
    code = (
        "import sys\n"
        "from treelearn.cli import main\n"
        "status = main(['fit', '--dataset', 'watermelon2'])\n"
        "heavy = ('sklearn.model_selection', 'sklearn.metrics')\n"
        "print(status, sorted(m for m in sys.modules if m.startswith(heavy)), file=sys.stderr)\n"
    )
    done = _run([sys.executable, "-c", code])
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines()[-1] == "0 []"
