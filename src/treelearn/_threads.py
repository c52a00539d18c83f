"""The Python threads that fits run their GIL-free work on, started once per process.

A fit on several threads hands numba kernels (which release the GIL) and numpy
sorts to Python threads in two places: the bin edges of the columns and the
subtrees below the top of the tree. A ``ThreadPoolExecutor`` made for each of
them started its threads afresh, and ``Thread.start`` waits until the new thread
runs: right after a parallel numba kernel, whose OpenMP workers still spin on
the cores, the four starts of a two-thread fit took 2 to 15 ms of a 210 ms fit
(clf2, 800,000 x 20, ``max_depth=10``, two cores). :func:`thread_pool` keeps a
pool for each thread count, its threads started the first time they are needed
and then left waiting for work between fits.

Only work that never waits on the pool itself may go to it (it could take every
thread and wait for none to come free). A child made by ``os.fork`` does not
inherit the parent's threads: the pool is forgotten there and made again.
"""

import os
import threading
from concurrent.futures import ThreadPoolExecutor

_lock = threading.Lock()
_pools = {}


def thread_pool(n_threads):
    """The process's ``ThreadPoolExecutor`` of ``n_threads`` threads (one per
    thread count asked for, so that work given to it never runs on more threads
    than the fit's ``n_jobs``), made the first time it is asked for. Not to be
    shut down by its users."""
    with _lock:
        pool = _pools.get(n_threads)
        if pool is None:
            pool = ThreadPoolExecutor(n_threads, thread_name_prefix=f"treelearn-{n_threads}")
            _pools[n_threads] = pool
        return pool


def _forget_pools():
    """In a forked child: the parent's pools have no threads here."""
    global _lock, _pools
    _lock = threading.Lock()
    _pools = {}


os.register_at_fork(after_in_child=_forget_pools)
