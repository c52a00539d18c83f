"""The shared thread pools of the fits (treelearn._threads)."""

import os
import sys
import threading
import time

import numba
import numpy as np
import pytest

from treelearn import CARTClassifier
from treelearn._threads import (
    _gnu_openmp_pause,
    map_on_threads,
    release_openmp_workers,
    thread_pool,
)
from treelearn.data._kernels import gather_matrix_rows_parallel
from treelearn.growing import threaded as threaded_module


def test_one_pool_per_thread_count_made_once():
    two = thread_pool(2)
    assert thread_pool(2) is two
    three = thread_pool(3)
    assert three is not two
    assert thread_pool(3) is three
    # Work given to a pool never runs on more threads than it was asked for.
    barrier = threading.Barrier(2, timeout=10)

    def work(i):
        if i < 2:
            barrier.wait()  # (the first two items run at once, on two threads)
        return threading.get_ident()

    used = set(two.map(work, range(40)))
    assert len(used) == 2
    assert threading.get_ident() not in used


def test_threads_are_kept_between_fits(monkeypatch):
    monkeypatch.setattr(threaded_module, "THREADS_MIN_WORK", 0)  # (small trees grow on one thread)
    X = np.random.default_rng(0).normal(size=(70_000, 4)).astype(np.float32)
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    CARTClassifier(max_depth=6, n_jobs=2).fit(X, y)
    before = {t.ident for t in threading.enumerate() if t.name.startswith("treelearn-")}
    first = CARTClassifier(max_depth=6, n_jobs=2).fit(X, y)
    after = {t.ident for t in threading.enumerate() if t.name.startswith("treelearn-")}
    assert before and after == before
    serial = CARTClassifier(max_depth=6, n_jobs=1).fit(X, y)
    np.testing.assert_array_equal(first.tree_.feature, serial.tree_.feature)
    np.testing.assert_array_equal(first.tree_.threshold, serial.tree_.threshold)


@pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "darwin", reason="needs fork")
def test_a_forked_child_gets_pools_of_its_own():
    parent_pool = thread_pool(2)
    assert parent_pool.submit(int, "7").result() == 7
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: the parent's threads are not here
        try:
            pool = thread_pool(2)
            ok = pool is not parent_pool and pool.submit(int, "5").result(timeout=30) == 5
            os.write(write, b"1" if ok else b"0")
        finally:
            os._exit(0)
    os.close(write)
    answer = os.read(read, 1)
    os.close(read)
    os.waitpid(pid, 0)
    assert answer == b"1"


@pytest.mark.parametrize("n_threads", [2, 3])
def test_map_on_threads_runs_each_item_once_on_the_caller_and_the_pool(n_threads):
    barrier = threading.Barrier(n_threads, timeout=10)
    lock = threading.Lock()
    running = most = 0

    def work(i):
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        if i < n_threads:
            barrier.wait()  # (the first items run at once, one on each thread)
        with lock:
            running -= 1
        return i * i, threading.get_ident()

    out = map_on_threads(work, range(40), n_threads)
    assert [square for square, _ in out] == [i * i for i in range(40)]  # in the items' order
    used = {ident for _, ident in out}
    assert len(used) == n_threads and threading.get_ident() in used
    assert most == n_threads


def test_map_on_threads_called_from_work_on_the_pool_finishes():
    # The inner calls' pool thread is the one running the outer items (or busy with
    # them): their helpers never start, and the callers do the items themselves.
    def outer(i):
        return sum(map_on_threads(lambda j: i * j, range(6), 2))

    done = []

    def run():
        done.append(map_on_threads(outer, range(8), 2))

    runner = threading.Thread(target=run)
    runner.start()
    runner.join(timeout=30)
    assert not runner.is_alive(), "map_on_threads deadlocked"
    assert done == [[15 * i for i in range(8)]]


def test_map_on_threads_on_one_thread_runs_on_the_caller():
    out = map_on_threads(lambda i: (i, threading.get_ident()), range(5), 1)
    assert out == [(i, threading.get_ident()) for i in range(5)]
    assert map_on_threads(str, [], 2) == []


@pytest.mark.parametrize("raising_thread", ["caller", "pool"])
def test_map_on_threads_stops_at_an_exception_and_raises_it(raising_thread):
    caller = threading.get_ident()
    started = []
    started_at_raise = []
    raised = threading.Event()

    def work(i):
        on_caller = threading.get_ident() == caller
        started.append(i)
        if not raised.is_set() and on_caller == (raising_thread == "caller"):
            raised.set()
            started_at_raise.append(len(started))
            raise ValueError(f"item {i} on the {raising_thread}")
        time.sleep(0.005)
        return i

    with pytest.raises(ValueError, match=f"on the {raising_thread}"):
        map_on_threads(work, range(200), 2)
    # After the raise, at most the item the other thread was taking as it came:
    # the call waited for the other thread, which stopped.
    count = len(started)
    assert count <= started_at_raise[0] + 1 < 200
    time.sleep(0.05)
    assert len(started) == count


def _task_ids():
    """The process's threads (their ids): compared as sets, so that a thread of an
    earlier test that ends meanwhile does not count."""
    return set(os.listdir("/proc/self/task"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs Linux's /proc")
@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs two of numba's threads")
def test_released_openmp_workers_end_and_come_back():
    matrix = np.arange(60_000 * 4, dtype=np.float32).reshape(60_000, 4)
    positions = np.arange(0, 60_000, 3, dtype=np.int64)
    columns = np.array([3, 1], dtype=np.int64)
    out = np.empty((2, positions.shape[0]), dtype=np.float32)
    threads_before = numba.get_num_threads()
    numba.set_num_threads(2)
    try:
        gather_matrix_rows_parallel(matrix, positions, columns, out)
        if _gnu_openmp_pause() is None:
            pytest.skip("numba does not run on GNU OpenMP here")
        release_openmp_workers()  # (whatever workers earlier kernels left)
        without_workers = _task_ids()
        gather_matrix_rows_parallel(matrix, positions, columns, out)
        worker = _task_ids() - without_workers
        assert len(worker) == 1  # (the one worker of two threads)
        release_openmp_workers()
        assert not worker & _task_ids()  # (it ended)
        out[:] = 0
        gather_matrix_rows_parallel(matrix, positions, columns, out)
        np.testing.assert_array_equal(out, matrix[positions][:, columns].T)
        assert len(_task_ids() - without_workers) == 1  # (started again)
    finally:
        numba.set_num_threads(threads_before)
