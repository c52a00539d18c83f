"""Array helpers shared by the data layer and the tree."""


def read_only(values):
    """A read-only view of ``values`` (the caller's array itself keeps its flags).

    numba compiles a kernel apart for a read-only array argument; the arrays that
    reach a kernel both ways (the user's, a loaded model's) are handed to it as
    read-only views, so every kernel is compiled once for them.
    """
    view = values.view()
    view.flags.writeable = False
    return view
