"""The Python threads that fits run their GIL-free work on, started once per process.

A fit on several threads hands numba kernels (which release the GIL) and numpy
sorts to Python threads in three places: the bin edges of the columns, the
subtrees below the top of the tree, and their stitching. A
``ThreadPoolExecutor`` made for each of them started its threads afresh, and
``Thread.start`` waits until the new thread runs: right after a parallel numba
kernel, whose OpenMP workers still spin on the cores, the four starts of a
two-thread fit took 2 to 15 ms of a 210 ms fit (clf2, 800,000 x 20,
``max_depth=10``, two cores). :func:`thread_pool` keeps a pool for each thread
count, its threads started the first time they are needed and then left waiting
for work between fits.

Only work that never waits on the pool itself may go to it (it could take every
thread and wait for none to come free). A child made by ``os.fork`` does not
inherit the parent's threads: the pool is forgotten there and made again.

Two things kept the threads from sharing the cores evenly (20 bin samples of
200,000 float32 sorted on two threads: 9 ms on one):

- The OpenMP workers of numba's parallel kernels do not sleep when a kernel ends:
  GNU OpenMP (libgomp) keeps them spinning, waiting for the next parallel region,
  about 7 ms on this kind of machine (the spin count is the user's
  ``GOMP_SPINCOUNT`` / ``OMP_WAIT_POLICY``, left alone). Work handed to the pool
  in that time shares a core with a spinning worker: the sorts took 5.8-11.0 ms,
  and the subtrees' batches after the top of the tree 69.5-73.8 ms of thread
  time against 61.7-65.7 on one thread. :func:`thread_pool` first lets the
  calling thread's OpenMP workers go (:func:`release_openmp_workers`): libgomp
  ends them (0.05-0.5 ms), and the next parallel kernel starts them again. (With
  ``GOMP_SPINCOUNT=10000`` the batches took 64.0-66.3 ms.)
- With the workers gone, the calling thread waiting and two pool threads woken,
  Linux at times ran both pool threads on one core for the whole of the work
  while the other stayed idle: the sorts 5.1-9.4 ms. :func:`map_on_threads` runs
  work on the calling thread and ``n_threads - 1`` pool threads instead, which
  the scheduler puts on the idle core: 4.6-5.4 ms.

Both together, fits of 800,000 x 20 at depth 10 with 255 bins on two threads took
81.5 / 134.2 / 143.2 ms at best against 90.0 / 137.3 / 147.0 (two classes, ten,
regression; one process, alternating with the former pool).
"""

import ctypes
import functools
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numba

_lock = threading.Lock()
_pools = {}
#: ``omp_pause_soft`` of OpenMP 5.0's ``omp_pause_resource_t``.
_OMP_PAUSE_SOFT = 1


@functools.cache
def _gnu_openmp_pause():
    """``omp_pause_resource_all`` of the libgomp that numba's OpenMP threading layer
    runs on, or None: another threading layer or OpenMP runtime (LLVM's and
    Intel's pause every root thread's workers at once, not the caller's; Microsoft's
    has none), or a libgomp older than GCC 9. Looked up once; raises ValueError
    (not kept: asked again next time) while numba has not chosen its threading
    layer (no parallel kernel has run)."""
    if numba.threading_layer() != "omp":
        return None
    from numba.np.ufunc import omppool

    if getattr(omppool, "openmp_vendor", None) != "GNU":
        return None
    try:
        # (The handle of numba's module finds the symbol in the libgomp it is linked to.)
        pause = ctypes.CDLL(omppool.__file__).omp_pause_resource_all
    except (OSError, AttributeError):
        return None
    pause.argtypes = [ctypes.c_int]
    pause.restype = ctypes.c_int
    return pause


def release_openmp_workers():
    """End the calling thread's OpenMP workers, which spin after a parallel kernel
    (see the module's docstring), where numba runs on GNU OpenMP; elsewhere, and
    before any parallel kernel has run, nothing. libgomp pauses the caller's own
    workers only (other threads' parallel regions go on) and refuses inside a
    parallel region; the next parallel kernel starts them again."""
    try:
        pause = _gnu_openmp_pause()
    except ValueError:
        return  # no parallel kernel has run: no worker to release
    if pause is not None:
        pause(_OMP_PAUSE_SOFT)


def thread_pool(n_threads):
    """The process's ``ThreadPoolExecutor`` of ``n_threads`` threads (one per
    thread count asked for, so that work given to it never runs on more threads
    than the fit's ``n_jobs``), made the first time it is asked for, the calling
    thread's OpenMP workers released (:func:`release_openmp_workers`) for the
    work about to be handed to it. Not to be shut down by its users."""
    release_openmp_workers()
    with _lock:
        pool = _pools.get(n_threads)
        if pool is None:
            pool = ThreadPoolExecutor(n_threads, thread_name_prefix=f"treelearn-{n_threads}")
            _pools[n_threads] = pool
        return pool


def map_on_threads(function, items, n_threads):
    """``[function(item) for item in items]`` on ``n_threads`` threads: the calling
    thread and ``n_threads - 1`` of :func:`thread_pool`'s, each taking the next item
    when done with one (``items`` in their order: put the costliest first). The
    results are in the items' order.

    When a call raises, no further item is started; the calls under way are waited
    for, and the exception raised on the calling thread, or else one raised on a
    pool thread, is raised. A call from work on the pool (every pool thread maybe
    busy) runs its items on the calling thread where no pool thread comes free."""
    items = list(items)
    if n_threads <= 1 or len(items) < 2:
        return [function(item) for item in items]
    results = [None] * len(items)
    lock = threading.Lock()
    next_item = iter(range(len(items)))
    stopped = False

    def work():
        nonlocal stopped
        while True:
            with lock:
                k = None if stopped else next(next_item, None)
            if k is None:
                return
            try:
                results[k] = function(items[k])
            except BaseException:
                stopped = True
                raise

    helpers = min(n_threads, len(items)) - 1
    pool = thread_pool(n_threads - 1)
    futures = [pool.submit(work) for _ in range(helpers)]
    try:
        work()
    finally:
        # A helper not started yet is cancelled (the items are all taken, or the
        # work stopped), not waited for: where every pool thread is busy (a call
        # from work on the pool itself), it would never start.
        started = [future for future in futures if not future.cancel()]
        for future in started:
            future.exception()  # (waits for it)
    for future in started:
        future.result()
    return results


def _forget_pools():
    """In a forked child: the parent's pools have no threads here."""
    global _lock, _pools
    _lock = threading.Lock()
    _pools = {}


os.register_at_fork(after_in_child=_forget_pools)
