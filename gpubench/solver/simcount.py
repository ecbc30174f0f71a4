"""What a search asks of the CUDA driver, counted under numba's CUDA simulator (a counter, not a timer).

``with counting() as c: solve(...)`` counts, while numba's simulator stands in for the GPU
(``NUMBA_ENABLE_CUDASIM=1``), each kernel launch, each host-to-device and device-to-host copy
(``cuda.to_device``, ``copy_to_device``, ``copy_to_host``) and each event or stream call
(record, synchronize, elapsed time).  A device-to-host copy of a result is a host wait: the
host cannot go on before the queue has run.  The counts are what a real GPU would be asked
(the simulator takes the same API calls); how long each takes is measured on the GPU host
(docs/solver-scaling.md).
"""
import contextlib
from collections import Counter


@contextlib.contextmanager
def counting():
    """Patch the simulator's API for the block; yields a Counter of launches, h2d, d2h and events."""
    from numba import config
    if not config.ENABLE_CUDASIM:
        raise RuntimeError("counting() needs numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1)")
    from numba import cuda
    from numba.cuda.simulator import api, kernel
    from numba.cuda.simulator.cudadrv import devicearray
    counts = Counter()
    saved = []

    def patch(owner, name, key, top_level_only=False):
        real = getattr(owner, name)

        def counted(*args, **kw):
            if not (top_level_only and (args[0]._device or kernel._kernel_context)):
                counts[key] += 1
            return real(*args, **kw)
        saved.append((owner, name, real))
        setattr(owner, name, counted)

    patch(kernel.FakeCUDAKernel, "__call__", "launches", top_level_only=True)
    patch(devicearray.FakeCUDAArray, "copy_to_device", "h2d")
    patch(devicearray.FakeCUDAArray, "copy_to_host", "d2h")
    real_to_device = devicearray.to_device
    for owner in (devicearray, cuda):
        if getattr(owner, "to_device", None) is real_to_device:
            patch(owner, "to_device", "h2d")
    for name in ("record", "synchronize", "elapsed_time"):
        patch(api.Event, name, "events")
    patch(api.stream, "synchronize", "events")
    try:
        yield counts
    finally:
        for owner, name, real in reversed(saved):
            setattr(owner, name, real)
