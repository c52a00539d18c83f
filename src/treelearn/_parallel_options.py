"""numba's ``parallel`` option of treelearn's parallel kernels: their ``prange`` loops
run on numba's threads, and nothing else in them does.

``parallel=True`` also turns every array expression of a kernel into a loop of its
own on the threads (numba's "parfors"): ``np.zeros``, ``a[:] = 0.0``, ``a += b``,
``a.sum()``, each compiled as a separate threaded function and started on the
threads when it runs. In these kernels such expressions touch a few counters or one
statistics row per child, where a start of the threads costs more than the work,
and each costs seconds of compiling: a first two-thread fit (20,000 x 20, 255 bins,
an AMD EPYC VM) compiled for 253.7 s instead of 269.8 (``summarise_children_parallel``
6.3 s instead of 15.0), with the same trees and fit times. :data:`PRANGE_ONLY` keeps
the loops written as ``prange`` and runs the rest in order on the calling thread.
"""

from numba.core.cpu import ParallelOptions

#: ``@njit(parallel=PRANGE_ONLY)``: only ``prange`` loops run on threads. An instance,
#: not a dict: numba takes the options out of a dict the first time it compiles a
#: kernel, and a second compilation (another signature) would then find it empty and
#: turn everything on again; it copies an instance each time. (``ParallelOptions`` is
#: the class numba makes of any ``parallel`` value, in ``numba.core.cpu`` since numba
#: 0.49; ``tests/test_parallel_options.py`` checks what it does.)
PRANGE_ONLY = ParallelOptions(
    {
        "prange": True,
        "comprehension": False,
        "reduction": False,
        "inplace_binop": False,
        "setitem": False,
        "numpy": False,
        "stencil": False,
        "fusion": False,
    }
)
