"""The grower's settings: which features keep histograms, when a node builds one,
which loop grows a tree. Read through this module when a tree is grown (as
``settings.HIST_RATIO``, never imported by name), so that a test that sets one here
reaches every path that reads it: the Python loop, the numba loops' drivers, the
set-up of :class:`~treelearn.growing.grower.Grower`. (The threads' settings are in
:mod:`~treelearn.growing.threaded`.)
"""

import numpy as np

#: Features with at most this many codes keep a histogram per node, so that a
#: child's histogram is its parent's minus its siblings'.
STORE_MAX_BINS = 256
#: Nodes with fewer rows keep no histogram (building one anew is as cheap).
STORE_MIN_ROWS = 1024
#: A numeric feature without a kept histogram or presorted rows gets one built at
#: the node when it has at most this many codes per node row; otherwise a compact
#: histogram of the codes present (the node's codes sorted). Presorted rows are
#: always scanned straight in code order.
HIST_RATIO = 2.0
#: Trees grown on at least this many rows put their exact thresholds in on several
#: threads, a feature on each (:meth:`Grower._put_thresholds`); below it, on one:
#: handing the features to the pool costs more than reading their values back
#: saves (two threads, full-depth regression: 0.76 against 0.36 ms at 1,000 rows,
#: 4.0 against 3.4 at 20,000; 4.9 against 5.7 at 30,000, 14 against 20 at 100,000).
THRESHOLD_THREADS_MIN_ROWS = 25_000
#: A node whose impurity is at most this is pure (scikit-learn's EPSILON).
EPSILON = np.finfo(np.float64).eps
#: Grow with the numba loop where it applies (:meth:`Grower._fast_loop_applies`);
#: tests set it to False to grow the reference tree with the Python loop.
FAST_LOOP = True
#: Grow C4.5's trees with the numba loop where it applies (:meth:`Grower._c45_loop_applies`);
#: tests set it to False to grow the reference tree with the Python loop.
C45_LOOP = True
#: The numba loops grow tables of at least this many rows; smaller ones (the
#: textbooks' examples: play tennis 14 rows, watermelon 17) grow by the Python
#: loop, the same tree. Below it the Python loop's fit takes at most 1.3 ms more
#: (0.9-3.6 ms a fit either way), and a process that only fits such tables never
#: compiles or loads a numba loop: the first run of ``treelearn fit --dataset
#: watermelon2`` compiled for 124 s with the loop and 43 s without (C4.5's: 30 and
#: 18 s); once compiled, its job took 0.39 and 0.30 s in the process (numba loading
#: the loop's cached code).
NUMBA_LOOP_MIN_ROWS = 32
