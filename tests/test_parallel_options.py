"""treelearn._parallel_options: parallel kernels run their prange loops on threads, nothing else."""

import numpy as np
import pytest
from _package import treelearn_modules
from numba import njit, prange
from numba.core.registry import CPUDispatcher

from treelearn._parallel_options import PRANGE_ONLY


def _with_array_expressions(values, out):
    """A prange loop between array expressions that ``parallel=True`` would thread too."""
    out[:] = 0.0
    doubled = np.zeros(values.shape[0])
    for i in prange(values.shape[0]):
        doubled[i] = values[i] * 2
    out += doubled
    return doubled.sum()


def _threaded_loops(kernel):
    """How many loops numba compiled to run on threads, for each signature of ``kernel``."""
    return [
        len(kernel.overloads[signature].metadata["parfor_diagnostics"].initial_parfors)
        for signature in kernel.signatures
    ]


def test_only_the_prange_loop_runs_on_threads_for_every_signature():
    kernel = njit(parallel=PRANGE_ONLY)(_with_array_expressions)
    everything = njit(parallel=True)(_with_array_expressions)
    for dtype in (np.float64, np.float32, np.int64):
        values = np.arange(10, dtype=dtype)
        out = np.ones(10)
        # The same results as serial code.
        assert kernel(values, out) == 90.0
        np.testing.assert_array_equal(out, 2 * np.arange(10))
        everything(values, np.ones(10))
    # The second and third signatures too: options given as a dict would have been used
    # up by the first compilation, and the others would thread everything.
    assert _threaded_loops(kernel) == [1, 1, 1]
    assert min(_threaded_loops(everything)) > 1


def test_every_parallel_kernel_of_the_package_takes_prange_only():
    parallel = {}
    for module in treelearn_modules():
        for name, value in vars(module).items():
            if isinstance(value, CPUDispatcher) and value.py_func.__module__ == module.__name__:
                option = value.targetoptions.get("parallel", False)
                if option:
                    parallel[f"{module.__name__}.{name}"] = option
    # (The kernels that search, partition, build histograms, encode and predict on threads.)
    assert len(parallel) >= 15
    wrong = [name for name, option in parallel.items() if option is not PRANGE_ONLY]
    assert not wrong, f"kernels with parallel=True or other options: {wrong}"


@pytest.mark.parametrize("name", ["comprehension", "reduction", "inplace_binop", "setitem",
                                  "numpy", "stencil", "fusion"])  # fmt: skip
def test_prange_only_turns_the_rest_off(name):
    assert PRANGE_ONLY.enabled and PRANGE_ONLY.prange
    assert getattr(PRANGE_ONLY, name) is False
