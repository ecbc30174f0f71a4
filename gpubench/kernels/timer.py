"""The GPU's global nanosecond clock, read inside a kernel (``%globaltimer``), for phase traces.

numba-cuda has no intrinsic for it, so :func:`globaltimer` is one line of inline PTX.  The clock is
the same for every SM (``clock64`` counts one SM's cycles), so one thread of a cooperative grid can
stamp the end of each grid-wide phase and the differences are the phases' wall times; its
resolution is about a microsecond on recent GPUs (PTX ISA: updated every ~1 µs or better).  Under
numba's CUDA simulator, where kernels are Python, it is the host's ``perf_counter_ns``.

Used only where a module's compile-time ``TRACE`` is set (the device loop's phase trace,
``GPUBENCH_LOOP_TRACE``: :mod:`gpubench.methods.solver.devloop`); a kernel built without it never calls it.
"""
import time

from numba import config

if config.ENABLE_CUDASIM:
    def globaltimer():
        """Nanoseconds (the host's clock: the simulator runs kernels as Python)."""
        return time.perf_counter_ns()
else:
    from llvmlite import ir
    from numba import types
    from numba.cuda.extending import intrinsic

    @intrinsic
    def globaltimer(typingctx):
        """Nanoseconds on the GPU's global clock (PTX ``%globaltimer``), as uint64."""
        sig = types.uint64()

        def codegen(context, builder, signature, args):
            # volatile (side effect): two reads are never merged or moved across the phase they time
            asm = ir.InlineAsm(ir.FunctionType(ir.IntType(64), []), "mov.u64 $0, %globaltimer;", "=l",
                               side_effect=True)
            return builder.call(asm, [])

        return sig, codegen
