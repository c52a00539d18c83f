"""The shared thread pools of the fits (treelearn._threads)."""

import os
import sys
import threading

import numpy as np
import pytest

from treelearn import CARTClassifier
from treelearn._threads import thread_pool


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


def test_threads_are_kept_between_fits():
    X = np.random.default_rng(0).normal(size=(70_000, 4)).astype(np.float32)
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    CARTClassifier(max_depth=6, n_jobs=2).fit(X, y)
    before = {t.ident for t in threading.enumerate() if t.name.startswith("treelearn-2")}
    first = CARTClassifier(max_depth=6, n_jobs=2).fit(X, y)
    after = {t.ident for t in threading.enumerate() if t.name.startswith("treelearn-2")}
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
