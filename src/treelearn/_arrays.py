"""Array helpers shared by the data layer and the tree."""


def read_only(values):
    """A read-only view of ``values`` (the caller's array itself keeps its flags).

    numba compiles a kernel apart for a read-only array argument; input that may come
    either way (the user's columns and prediction matrices) is handed to the kernels as
    read-only views, so each kernel is compiled once for it.
    """
    view = values.view()
    view.flags.writeable = False
    return view
