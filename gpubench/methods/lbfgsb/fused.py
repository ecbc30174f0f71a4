"""One large L-BFGS-B problem with the vector work of an iteration fused into few kernels.

The algorithm, every rule and constant is that of :func:`gpubench.methods.lbfgsb.core.minimize` with
``cauchy="approximate"`` (Fei, Rong, Wang & Wang 2014, section 4.1; Byrd, Lu, Nocedal & Zhu 1995;
Morales & Nocedal 2011); the kernels are in :mod:`gpubench.kernels.lbfgsb_fused`.  What changes
is where the numbers live: every scalar of an iteration (the memory's products, t_c, the 2m x 2m
systems, the descent test, the largest and the first step) is computed on the device, and the
host reads the device once per function evaluation, fetching the value and slope of the trial
point together with the previous iteration's stopping test and the new direction's g.d, d.d
and steps (:data:`shared.SYNC` counts the reads).  The first trial of an iteration is launched
before the host knows whether the previous iteration met the stopping test: when it did, that
evaluation is discarded (not counted in ``nfev``; a ``fun_and_grad`` that counts its own calls
sees one more) and x, g are those of the last accepted step.  ``callback(x, f, pg)`` is called
after each iteration, as by core, once the host has read that iteration's pg.

**Batches** (``sync_every`` > 1, the default when there is no callback): the host launches whole
iterations, ``sync_every`` at most (1, 2, 4, ... after a hand-over), with no read between them.
After each first trial's evaluation the kernel ``lf_gate_push`` (:mod:`gpubench.kernels.lbfgsb_fused_gate`)
takes on the device the decisions the host would take after its read: the previous step's stopping
test, the limits, the descent test and the strong Wolfe test of the first trial.  An accepted trial
completes the iteration on the device; otherwise every later pass of the batch is a no-op and the
host, reading ``st`` once at the batch's end, stops or finishes that iteration itself (a line
search of several trials, a memory reset), from the same state.  So the iterates, values, counts and
stop are those of ``sync_every=1`` (the per-evaluation driver); the evaluations launched after the
gate stopped (at most ``sync_every - 1``, at the first trial point already evaluated) are not
counted.  ``fun_and_grad`` must give the same f and g at the same x (a deterministic function): the
host's line search takes the batch's last evaluation as its first trial's.

**Launches** (issue 43, second round; counted in :data:`shared.LAUNCHES`): a batch's iteration is seven
numba kernels, each bound once a run (:class:`_Kernels`: typed and marshalled once, not per launch),
or with :data:`COOPERATIVE` one cooperative launch (:mod:`gpubench.kernels.lbfgsb_fused_coop`); the
host's own steps (start, hand-overs, resets) go through numba's dispatcher.

**A CUDA graph** (:data:`GRAPH`, on by default): where ``fun_and_grad.capturable`` is true, a batch's
iteration (the seven launches, the objective and the driver's array operations) is captured once, after the
first batch, by :func:`gpubench.device.gpu.capture_graph`, and each later iteration of a batch is one graph
launch.  A replay runs the objective's device work but none of its Python, so an objective says it may be
captured only where its work is all on CuPy's current stream, it reads nothing back and it changes no host
state after its first call (torsion's ``fg_stencil`` says so).  The result counts the evaluations itself
(``evaluations``, replays included) and says ``graph``: "replayed", or why not; a capture that fails leaves
the run to its launches.

``fun_and_grad(x)`` takes and returns arrays of the module of ``x0`` (CuPy; numpy under numba's
CUDA simulator, where the tests run it); it may return f as a device scalar.
"""
import math
import time

import numpy as np

from ...errors import InputError
from . import shared

USES = "approximate Cauchy point, history 1 <= m <= %d"
BATCH = 16              # iterations launched between two host reads (sync_every's default)
BIND = True             # bound launches (_Kernels.bind); scripts/gpu_lbfgsb_batched.py turns it off to compare
# a batch's iteration as one cooperative launch (gpubench.kernels.lbfgsb_fused_coop) instead of seven;
# off by default until an H200 run has timed it (scripts/gpu_lbfgsb_batched.py turns it on to compare)
COOPERATIVE = False
# a batch's iteration captured once as a CUDA graph and replayed (one launch an iteration) where
# ``fun_and_grad.capturable`` is true; scripts/gpu_lbfgsb_batched.py turns it off to compare
GRAPH = True
# lf_reduced's threads a block on the GPU where ``threads`` is not set (None: the vector passes' TPB).
# 128 (four blocks an SM where 256 fit two) measured faster at every size: 4e6, late in a run, 271 against
# 299 us a launch; whole runs 0.974-0.982 against 0.991-1.009 ms an iteration (results/gpu/solve-a48c42e/).
# scripts/gpu_lbfgsb_batched.py --reduced-threads compares
REDUCED_THREADS = 128
# a list to which every host read appends (seconds, iterations, evaluations, what): what a run's time
# went to; scripts/gpu_lbfgsb_batched.py --trace sets it
TRACE = None


def kernels():
    from ...kernels import lbfgsb_fused
    return lbfgsb_fused


def gate_kernels():
    from ...kernels import lbfgsb_fused_gate
    return lbfgsb_fused_gate


def coop_kernels():
    from ...kernels import lbfgsb_fused_coop
    return lbfgsb_fused_coop


def supported(cauchy, m, record_cauchy=False):
    """Whether the fused path runs this case (else :func:`core.minimize`'s array path does)."""
    K = kernels()
    return cauchy == "approximate" and not record_cauchy and 1 <= int(m) <= K.MMAX


class _Launcher:
    """Device views of the module's arrays and the launch shapes of the vector and scalar passes."""

    def __init__(self, xp, n, threads=None):
        from numba import cuda
        K = kernels()
        self.sim = xp is np
        self.tpb = threads or (8 if self.sim else K.TPB)
        blocks = (n + self.tpb - 1) // self.tpb
        # grid-stride passes: a few blocks per SM (one block under the simulator, whose barriers are slow)
        blocks = 1 if self.sim else min(blocks, 4 * cuda.get_current_device().MULTIPROCESSOR_COUNT)
        self.vec = (max(1, blocks), self.tpb)
        # lf_reduced's own blocks (REDUCED_THREADS): smaller ones, more of them an SM, so that one block's
        # loads go on while another waits at its tile's barriers
        tr = self.tpb if (self.sim or threads or not REDUCED_THREADS) else min(REDUCED_THREADS, self.tpb)
        self.reduced = (max(1, min((n + tr - 1) // tr, blocks * self.tpb // tr)), tr)
        self.one = (1, 1)
        self.push = (1, K.PUSH_THREADS)

    def view(self, a):
        if self.sim:
            return a
        from numba import cuda
        return cuda.as_cuda_array(a, sync=False)   # same stream (the legacy default): no sync needed


class _Kernels:
    """The fused kernels, each configured once for its launch shape, every launch counted in
    :data:`shared.LAUNCHES`.  ``k(name, *args)`` is numba's ordinary launch: the dispatcher types and
    marshals every argument on each call (tens of microseconds of host time, during which a small
    problem's GPU idles).  ``k.bind(name, *args)`` returns a function of no argument for a launch whose
    arguments never change in a run: typed, compiled and marshalled once
    (:func:`gpubench.device.gpu.bound_launch`), each call the driver's launch alone (under the
    simulator it is the ordinary launch: the same kernel on the same arguments)."""

    VECTOR = ("lf_pair", "lf_move", "lf_reduced", "lf_step", "lf_direction", "lf_trial", "lf_iterate", "lf_take")
    PUSH = ("lf_push", "lf_gate_push")         # one block of PUSH_THREADS: the memory update's columns

    def __init__(self, L, **kernels):
        self.sim = L.sim
        self.kernels = kernels
        self.shape = {name: (L.reduced if name == "lf_reduced" else L.vec if name in self.VECTOR
                             else L.push if name in self.PUSH else L.one) for name in kernels}
        self.conf = {name: k[self.shape[name]] for name, k in kernels.items()}

    def __call__(self, name, *args):
        shared.launched("kernel:" + name)
        shared.launched("path:dispatcher")
        self.conf[name](*args)

    def cooperative(self, name, *args):
        """Cap the grid of a cooperative kernel at what can be resident at once (the occupancy query
        of its overload for ``args``' types): a cooperative launch needs every block resident."""
        k = self.kernels[name]
        blocks, tpb = self.shape[name]
        if not self.sim:
            overload = k.compile(tuple(k.typeof_pyval(a) for a in args))
            blocks = max(1, min(blocks, overload.max_cooperative_grid_blocks(tpb)))
        self.shape[name] = (blocks, tpb)
        self.conf[name] = k[self.shape[name]]

    def bind(self, name, *args, stream=0):
        from ...device.gpu import bound_launch
        go = bound_launch(self.kernels[name], *self.shape[name], args, stream=stream, bind=BIND)
        if stream:          # a launch a graph captures: the host launches the graph, not it
            return go
        kind, path = "kernel:" + name, "path:" + go.path

        def launch():
            shared.launched(kind)
            shared.launched(path)
            go()
        launch.path = go.path
        return launch


def _graph_refusal(fun_and_grad, batch, coop, sim):
    """Why a batch's iteration is not captured as a CUDA graph ("" where it will be).  A replay runs
    the objective's device work only, not its Python: so only an objective that says so
    (``fun_and_grad.capturable``: its work all on CuPy's current stream, no read back, no host state
    changed) is captured; the batched driver's iteration is what is captured."""
    if not GRAPH:
        return "off (fused.GRAPH)"
    if sim:
        return "off (numba's CUDA simulator)"
    if batch == 1:
        return "off (one iteration a read: sync_every=1 or a callback)"
    if coop:
        return "off (the cooperative launch)"
    if not getattr(fun_and_grad, "capturable", False):
        return "off (fun_and_grad is not marked capturable)"
    return ""


def _capture(binds, evaluate_trial):
    """(replay, "") for a batch's iteration captured as one CUDA graph; (None, why) where the capture
    failed (the run goes on launching each pass itself)."""
    from ...device.gpu import capture_graph

    def body(stream):
        passes, update = binds(stream)
        for go in passes:
            go()
        ga = evaluate_trial(stream)
        for go in update:
            go()
        return ga
    try:
        return capture_graph(body), ""
    except Exception as exc:    # noqa: BLE001 - the launches it would replace still work; the result says why
        return None, f"off (the capture failed: {type(exc).__name__}: {exc})"[:200]


def minimize(fun_and_grad, x0, lo, hi, *, m=5, pgtol=1e-5, factr=1e7, maxiter=15000, maxfun=15000,
             step="project", backend=None, callback=None, threads=None, ftol_abs=None, sync_every=None,
             until=None):
    """:func:`core.minimize` with ``cauchy="approximate"``, fused; the same arguments and result.

    ``backend`` is the array module (CuPy; numpy runs the kernels under numba's CUDA simulator).
    """
    K = kernels()
    xp = backend if backend is not None else shared.array_module("cupy")
    if not (1 <= m <= K.MMAX):
        raise InputError(f"lbfgsb: the fused path takes 1 <= m <= {K.MMAX}, got {m}")
    if step not in ("project", "truncate"):
        raise InputError(f"lbfgsb: step must be project or truncate, got {step!r}")
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int)
                                or not K.MIN_THREADS <= threads <= K.TPB or threads & (threads - 1)):
        # the passes' shared arrays hold TPB threads' values; the tile passes' lanes fold in powers of two,
        # in at least MIN_THREADS groups (gpubench.kernels.lbfgsb_fused_tile)
        raise InputError(f"lbfgsb: threads must be a power of two from {K.MIN_THREADS} to {K.TPB}, got {threads!r}")
    x = xp.asarray(x0, dtype=xp.float64).ravel().copy()
    n = int(x.shape[0])
    lo = xp.full(n, -xp.inf) if lo is None else xp.ascontiguousarray(xp.asarray(lo, dtype=xp.float64).ravel())
    hi = xp.full(n, xp.inf) if hi is None else xp.ascontiguousarray(xp.asarray(hi, dtype=xp.float64).ravel())
    if lo.shape != (n,) or hi.shape != (n,):
        raise InputError(f"lbfgsb: lo and hi must have {n} coordinates")
    if bool(xp.any(lo > hi)) or bool(xp.any(xp.isnan(lo) | xp.isnan(hi))):
        raise InputError("lbfgsb: the box is empty or has NaN bounds (lo > hi somewhere)")
    constrained = int(bool(xp.any(xp.isfinite(lo) | xp.isfinite(hi))))
    boxed = int(bool(xp.all(xp.isfinite(lo) & xp.isfinite(hi))))
    x = xp.clip(x, lo, hi)
    L = _Launcher(xp, n, threads)
    VEC = xp.zeros((K.NVEC, n))
    VEC[K.X], VEC[K.LO], VEC[K.HI] = x, lo, hi
    x, g, D, GN = VEC[K.X], VEC[K.G], VEC[K.D], VEC[K.GN]
    XA = xp.zeros(n)      # the first trial point: an array of its own (a trial the search keeps is one)
    YS = xp.zeros((2 * m, n))
    st = xp.zeros(K.NST)
    SMB = xp.zeros((5, 2 * K.MMAX, 2 * K.MMAX))
    d = {name: L.view(a) for name, a in dict(VEC=VEC, YS=YS, st=st, SMB=SMB, XA=XA).items()}
    # each kernel configured once: a launch is then one call
    batch = (1 if callback is not None else BATCH) if sync_every is None else int(sync_every)
    if batch < 1:
        raise InputError(f"lbfgsb: sync_every must be a positive integer, got {sync_every!r}")
    G = gate_kernels()
    coop = batch > 1 and COOPERATIVE
    GATE_STOPS = {K.GATE_PGTOL: shared.CONVERGED_PGTOL, K.GATE_FDEC: shared.CONVERGED_FDEC,
                  K.GATE_FACTR: shared.CONVERGED_FACTR}
    kz = _Kernels(L, lf_gate_push=G.lf_gate_push, lf_enter=G.lf_enter, lf_take=G.lf_take,
                  **({"lf_iterate": coop_kernels().lf_iterate} if coop else {}), **{name: getattr(K, name) for name in (
        "lf_init", "lf_reset", "lf_pair", "lf_push", "lf_move", "lf_reduced", "lf_step", "lf_direction",
        "lf_trial")})

    f, g0 = fun_and_grad(x)
    calls = 1               # evaluations of fun_and_grad made (a graph's replays included)
    g[...] = g0
    kz("lf_init", d["st"])
    kz("lf_move", d["VEC"], d["XA"], d["YS"], m, 0, d["st"])
    f, pg = shared.fetch(xp, f, st[K.C_PG])
    nfev, nit = 1, 0
    if pg <= pgtol:
        return shared.LbfgsbResult(x, f, g, 0, nfev, 0, shared.CONVERGED_PGTOL, pg, evaluations=calls)
    status, message = 1, "STOP: TOTAL NO. OF ITERATIONS REACHED LIMIT"
    retried = False
    pending = None          # (f before, f after) of an iteration whose stopping test is still to read
    project = int(step == "project")
    ftol_gate = -math.inf if ftol_abs is None else float(ftol_abs)
    run = 1                 # iterations of the next batch (doubled up to ``batch`` while none hands over)

    def stop_test(pg_new):
        """The stopping rules after an iteration (the callback first, as core does)."""
        fold, fnew = pending
        if callback is not None:
            callback(x.copy(), fnew, pg_new)     # x itself is the live iterate: a callback may keep it
        if pg_new <= pgtol:
            return 0, shared.CONVERGED_PGTOL
        if shared.decrease_stop(fold, fnew, ftol_abs):
            return 0, shared.CONVERGED_FDEC
        if (fold - fnew) / max(abs(fold), abs(fnew), 1.0) <= factr * shared.EPS:
            return 0, shared.CONVERGED_FACTR
        return None

    def binds(stream=0):
        """The launches whose arguments are the same all run long, bound once (_Kernels.bind): the
        passes to the first trial and (a batch's iteration) the update after its evaluation."""
        passes = (kz.bind("lf_reduced", d["VEC"], d["YS"], m, d["st"], d["SMB"], stream=stream),
                  kz.bind("lf_step", d["VEC"], d["YS"], m, project, d["st"], d["SMB"], stream=stream),
                  kz.bind("lf_direction", d["VEC"], project, constrained, d["st"], stream=stream))
        if batch == 1:
            return passes, ()
        # a batch's iteration: every launch bound (lf_trial reads the iteration count on the device)
        passes += (kz.bind("lf_trial", d["VEC"], d["XA"], 0.0, 1, constrained, boxed, -1, d["st"], stream=stream),)
        return passes, (kz.bind("lf_pair", d["VEC"], d["XA"], d["YS"], m, d["st"], stream=stream),
                        kz.bind("lf_gate_push", d["st"], float(pgtol), float(factr * shared.EPS), ftol_gate,
                                float(maxiter), float(maxfun), m, d["SMB"], stream=stream),
                        kz.bind("lf_move", d["VEC"], d["XA"], d["YS"], m, 1, d["st"], stream=stream))
    passes, update = binds()

    def evaluate_trial(stream=0):
        """f and g at the first trial XA, into st and GN for the update: the batch's evaluation (``stream``:
        the one a CUDA graph captures it on)."""
        fa, ga = fun_and_grad(XA)
        st[K.FA] = fa
        if stream:
            kz.bind("lf_take", d["VEC"], ga, d["st"], stream=stream)()
        else:
            kz("lf_take", d["VEC"], ga, d["st"])      # GN = ga, st[SLOPE] = ga @ D
        return ga
    # (CUDA graph) a batch's iteration as one launch: captured after the first batch, which ran
    # every launch itself (kernels compiled and loaded, the objective's too), replayed from then on
    graph, graph_note = None, _graph_refusal(fun_and_grad, batch, coop, L.sim)
    prepared = False        # (cooperative) the next iteration's first trial is in XA already
    if coop:
        # the same passes in one launch, grid syncs where the launches ended: ``update`` 0 the first
        # trial at a batch's start, 1 a first trial's update and the next iteration's first trial
        cargs = (d["VEC"], d["XA"], d["YS"], m, d["st"], d["SMB"], project, constrained, boxed, float(pgtol),
                 float(factr * shared.EPS), ftol_gate, float(maxiter), float(maxfun))
        kz.cooperative("lf_iterate", *cargs, 0)
        coop_first, coop_next = kz.bind("lf_iterate", *cargs, 0), kz.bind("lf_iterate", *cargs, 1)

    def first_trial(it):
        """Cauchy point, subspace step, direction and the first trial x + a d into XA: no host read."""
        for go in passes:
            go()
        if batch == 1:
            kz("lf_trial", d["VEC"], d["XA"], 0.0, 1, constrained, boxed, it, d["st"])

    while True:
        capped = nit < maxiter and nfev < maxfun and until is not None and until()
        if nit >= maxiter or nfev >= maxfun or capped:
            if pending is not None:
                pg, = shared.fetch(xp, st[K.C_PG])
                done = stop_test(pg)
                if done:
                    status, message = done
                    break
            status, message = 1, (shared.STOPPED_UNTIL if capped else
                                  "STOP: TOTAL NO. OF ITERATIONS REACHED LIMIT" if nit >= maxiter
                                  else "STOP: TOTAL NO. OF F,G EVALUATIONS EXCEEDS LIMIT")
            break
        if batch > 1:
            # ---- up to ``run`` whole iterations launched with no host read: the gate (on the device)
            # accepts each first trial or stops the passes after it; one read at the end
            kz("lf_enter", d["st"], f, pending[0] if pending else 0.0, 1.0 if pending else 0.0,
                           float(nit), float(nfev))
            if coop and not prepared:
                coop_first()
            if graph is None and not graph_note and nit > 0:
                graph, graph_note = _capture(binds, evaluate_trial)
            for i in range(min(run, maxiter - nit, maxfun - nfev)):
                calls += 1
                if graph is not None:
                    graph()
                    shared.launched("graph:iteration")
                    ga = graph.keep[-1]
                    continue
                if not coop:
                    first_trial(nit + i)
                ga = evaluate_trial()
                shared.launched("array:set FA")
                # the update's sums, the gate with the update's one-block part, the move
                if coop:
                    coop_next()
                else:
                    for go in update:
                        go()
            s_, = shared.fetch(xp, st)
            code = int(s_[K.CODE])
            if TRACE is not None:
                TRACE.append((time.perf_counter(), int(s_[K.NIT]), calls, f"batch {run} {code}"))
            prepared = coop and code == K.GATE_GOING
            if int(s_[K.NIT]) > nit:
                retried = False
            nit, nfev, f = int(s_[K.NIT]), int(s_[K.NFEV]), float(s_[K.F_CUR])
            pending = (float(s_[K.F_OLD]), f) if s_[K.PEND] != 0.0 else None
            if code == K.GATE_GOING:
                run = min(2 * run, batch)
                continue
            pg = float(s_[K.C_PG])
            if code in GATE_STOPS:
                status, message = 0, GATE_STOPS[code]
                break
            if code == K.GATE_MAXITER or code == K.GATE_MAXFUN:
                status, message = 1, ("STOP: TOTAL NO. OF ITERATIONS REACHED LIMIT" if code == K.GATE_MAXITER
                                      else "STOP: TOTAL NO. OF F,G EVALUATIONS EXCEEDS LIMIT")
                break
            # GATE_HOST: this iteration goes on on the host from its descent test (its stopping test
            # passed on the device); the last evaluation of the batch was at its first trial XA
            run = 1     # (halving it instead cut host reads by a third and no time: results/gpu/solve-7a98771/)
            kz("lf_enter", d["st"], f, 0.0, 0.0, float(nit), float(nfev))
            fa, slope = float(s_[K.FA]), float(s_[K.SLOPE])
        else:
            first_trial(nit)
            fa, ga = fun_and_grad(XA)
            calls += 1
            kz("lf_take", d["VEC"], ga, d["st"])          # the batched driver's g.d, on the same doubles
            s_, fa = shared.fetch(xp, st, fa)
            slope = float(s_[K.SLOPE])
            if pending is not None:
                pg = float(s_[K.C_PG])
                done = stop_test(pg)
                pending = None
                if done:
                    status, message = done
                    break
        pg = float(s_[K.C_PG])
        gd, dd = float(s_[K.V3_GD]), float(s_[K.V3_DD])
        stpmax, stp, kmem = float(s_[K.STPMAX]), float(s_[K.STP]), int(s_[K.K])
        dnorm = math.sqrt(dd)
        if not (gd < 0) or dnorm == 0.0:
            if kmem and not retried:
                kz("lf_reset", d["st"])
                kz("lf_move", d["VEC"], d["XA"], d["YS"], m, 0, d["st"])
                retried = True
                continue
            if dnorm == 0.0 or gd == 0.0:
                status, message = 0, shared.CONVERGED_PGTOL if pg <= pgtol else "CONVERGENCE: NO DESCENT DIRECTION"
            else:
                status, message = 2, "ABNORMAL: ASCENT DIRECTION"
            break
        nfev += 1
        first = [(stp, (fa, slope, (d["XA"], ga)))]

        def phi(a):
            nonlocal nfev, calls
            if first and a == first[0][0]:
                return first.pop()[1]          # the trial launched before the read
            first.clear()
            # a later trial gets a buffer of its own: the search may keep an earlier one
            xa = xp.empty(n)
            dxa = L.view(xa)
            kz("lf_trial", d["VEC"], dxa, float(a), 0, constrained, boxed, nit, d["st"])
            fa_, ga_ = fun_and_grad(xa)
            calls += 1
            nfev += 1
            shared.launched("array:g.d")
            fa_, sl_ = shared.fetch(xp, fa_, ga_ @ D)
            if TRACE is not None:
                TRACE.append((time.perf_counter(), nit, calls, "trial"))
            return fa_, sl_, (dxa, ga_)

        a, fnew, _, payload, ok = shared._line_search(phi, f, gd, stp, stpmax)
        if not ok or payload is None:
            if kmem and not retried:
                kz("lf_reset", d["st"])
                kz("lf_move", d["VEC"], d["XA"], d["YS"], m, 0, d["st"])
                retried = True
                continue
            status, message = ((0, shared.CONVERGED_FDEC_LNSRCH) if ftol_abs is not None
                               else (2, "ABNORMAL_TERMINATION_IN_LNSRCH"))
            break
        retried = False
        dxa, gnew = payload
        GN[...] = gnew
        shared.launched("array:copy GN")
        # ---- the memory update and the next Cauchy point's products: no host read
        kz("lf_pair", d["VEC"], dxa, d["YS"], m, d["st"])
        kz("lf_push", d["st"], m, shared.EPS * (-gd * a), d["SMB"])
        kz("lf_move", d["VEC"], dxa, d["YS"], m, 1, d["st"])
        pending = (f, fnew)
        f = fnew
        nit += 1
    return shared.LbfgsbResult(x.copy(), f, g.copy(), nit, nfev, status, message, pg, evaluations=calls,
                               graph="replayed" if graph is not None else graph_note)
