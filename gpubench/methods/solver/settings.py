"""The rigorous solver's settings, stated once (imported by the command line without the solver)."""
import copy
import math
from dataclasses import dataclass
from typing import Optional

from ...device.gpu import BACKENDS
from ...errors import InputError
from ..base import MethodSettings, setting, time_limit_setting

SPACINGS = ("inside", "lower", "upper")
EVALUATIONS = ("split", "full")
LOOPS = ("auto", "host", "device")


def sample_fractions(spacing, samples):
    """(shift, denominator): sample m = 1..samples sits at t = (m + shift)/denominator."""
    return {"inside": (0, samples + 1), "lower": (-1, samples), "upper": (0, samples)}[spacing]


VARIANTS = ("paper", "strong")
# what variant = "strong" turns on (each an opt-in setting of its own; issue 41): an early
# near-optimal GUB (descents from Halton points, a descent from every sample that lowers GUB, a
# derivative-free polish, all valued by the outward-rounded form), level-set contraction of the
# selected region (HC4-revise through the expression, then the mean value form), and lower
# bounds from the natural form intersected with the mean value form
STRONG = {"local_starts": 8, "local_search": True, "polish": True, "contract": True, "inclusion": "best"}

# Above this n variant strong on CUDA (loop auto) keeps only its early GUB, the descents from the local
# starts with their best polished, and then runs the paper's split sweep in the device loop
# (:func:`at_scale`); a typed-in solve above it keeps the paper's variant.  On the H200 (results/gpu/
# solve-214304f, rigorous_peers) the strong variant's host loop took 8.7 s on Levy n = 1,000 against 2.77 s
# for the paper's device loop, 114 s on Ackley n = 1,000 against 5.7 s, 28 s on Styblinski-Tang against
# 8 s: at n <= 100 it proves what the paper's does not (docs/strong-search.md), above it its per-iteration
# host work (contraction, full evaluation for best inclusion) costs more than it saves.
STRONG_MAX_DIM = 100
# what variant strong turns off at scale, as the result names them: contraction needs the host loop;
# the device loop serves the rest (issue 42), but unmeasured above n = 100: inclusion best from 1 + s p
# gradients of O(n) an iteration, one thread each; a descent after each lowered GUB about 0.75 s at n = 1,000
HOST_EXTRAS = {"contract": False, "inclusion": "natural", "local_search": False, "polish": False}
# what variant strong turns off on CUDA at n <= STRONG_MAX_DIM to take the device loop (issue 42): the
# contraction of every selected box but the root's (contracted on the host before the first launch,
# core.Search._contract_root); inclusion best, the descent and the polish the device loop serves
DEVICE_EXTRAS = {"contract": False}

# On the CPU the paper's 4^10 = 1,048,576 subregions per iteration take seconds each; about
# 4,096 (s = 6 cut coordinates) keep a typed-in solve interactive.  The GPU keeps the paper's s = 10.
CPU_SPLIT_DIMS = 6
# variant strong on CUDA for a gated chain (:func:`at_scale`, ``chained``): the host loop cutting at most
# this many coordinates an iteration, the CPU twin's shape (p^s children an iteration, each given the
# chain's bound on the host: 4^10 would be ~1e9 steps of the children's pass an iteration).  On the twin
# Rana n = 5 certifies in 8.9 s so; with the chain at the root only, as the device loop has it, its gap
# was 72.9 after 60 s (docs/scipy_go.md, hard41)
CHAINED_SPLIT_DIMS = 6



# How many float64 spacings (ulp) of the minimum's magnitude a closed gap may span where that exceeds
# the asked width (issue 41; the certification's judge, gpubench.workflow.certify.gap_closed, counts by
# the same rule).  An enclosure of f* computed in outward-rounded float64 can't be narrower than f at
# one point, where each operation of the form rounds outward by up to an ulp of its result: at the
# minimiser the interval form's own width is 17 ulp for SciPy's Meyer (f = 3.7e9, 16 exponential
# terms), 66 for Shubert01 at n = 5 and 150 at n = 10 (a product of ten sums of five cosines,
# f = -3.7e11, where 1e-6 is a sixtieth of one ulp); GLB, from boxes around the minimiser, is a few
# such widths below.  1024 ulp is 2^-42 ~ 2.3e-13 of the value; below |f| = 2^23 ~ 8.4e6 it is under
# 1e-6 and changes nothing there.  docs/scipy_go.md, "The judge's gap".
FLOAT_SPACINGS = 1024


def gap_width(glb, gub, tol):
    """The widest GUB - GLB that counts as closed for an asked width ``tol``: max(tol, FLOAT_SPACINGS
    ulp of max(|GLB|, |GUB|)); ``tol`` itself where either bound is not finite."""
    glb, gub = float(glb), float(gub)
    if not (math.isfinite(glb) and math.isfinite(gub)):
        return tol
    return max(tol, FLOAT_SPACINGS * math.ulp(max(abs(glb), abs(gub))))

@dataclass
class Settings(MethodSettings):
    """The solver's settings, stated once: defaults are the paper's (Section 3.1, SI Appendix B)."""
    backend: str = setting("auto", "where the sweeps run", choices=BACKENDS)
    variant: str = setting("paper", "paper: paper 000's algorithm as published, every opt-in below as set; "
                           "strong: also local_starts >= 8, local_search, polish, contract and inclusion best "
                           "(gpubench's strongest rigorous search; on CUDA with loop auto its local starts and the "
                           "root's contraction on the host, then the device loop with inclusion best, above n = 100 "
                           "the paper's sweep; a typed-in solve's default at n <= 100)",
                           choices=VARIANTS)
    split_dims: int = setting(10, "coordinates cut per iteration, s", minimum=1)
    parts: int = setting(4, "parts per cut coordinate, p", minimum=2)
    tol: float = setting(1e-4, "a region is open while some coordinate is at least tol wide",
                         exclusive_minimum=0.0)
    samples: int = setting(10, "diagonal samples per subregion (for GUB)", minimum=1)
    spacing: str = setting("inside", "where the samples sit on the diagonal: t = m/(samples+1) (inside), "
                           "m/samples from 0 (lower) or up to 1 (upper)", choices=SPACINGS)
    evaluation: str = setting("split", "per-subregion work: O(s) over the cut coordinates with the rest "
                              "per iteration (split), or every coordinate in every subregion (full; "
                              "the reference the split is tested against)", choices=EVALUATIONS)
    inclusion: str = setting("natural", "lower bounds from the natural interval form (the paper's) or "
                             "from its intersection with the mean value form (best; paper 001 Sec. 2.2; "
                             "runs the full evaluation)", choices=("natural", "best"))
    local_search: bool = setting(False, "after a sample lowers GUB, descend from it (L-BFGS-B in the domain) "
                                 "and take the end point's rigorous upper bound as GUB when lower "
                                 "(gpubench.methods.solver.local; not in paper 000)")
    local_starts: int = setting(0, "before the first iteration, descend (L-BFGS-B in the domain) from this many "
                                "points of a Halton sequence over the domain, each end point's rigorous upper "
                                "bound lowering GUB (gpubench.methods.solver.local; not in paper 000)", minimum=0)
    polish: bool = setting(False, "after GUB is lowered, polish the point that holds it without derivatives (snap "
                           "to coarser binary grids, then a compass search), each candidate valued by the "
                           "upper end of its outward-rounded enclosure (gpubench.methods.solver.local; not in paper 000)")
    contract: bool = setting(False, "before cutting the selected region, narrow it to where f <= GUB can hold "
                             "(the mean value form of the level set, outward rounded; a region where it "
                             "cannot is dropped: gpubench.methods.solver.contract; not in paper 000)")
    gap_tol: Optional[float] = setting(None, "stop once GUB - GLB <= gap_tol: the global minimum's value is then "
                                       "proved to that width (what a B&B solver such as MAiNGO proves), while the "
                                       "output regions, which still hold every global minimiser, need not all be "
                                       "narrower than tol (none: stop only when they are; not in paper 000)",
                                       minimum=0.0)
    loop: str = setting("auto", "where an iteration's selection, tables, pruning and list live: the GPU, k iterations "
                        "a launch with no host in between (device: cuda backend, split evaluation, no contract; "
                        "inclusion best as its own split mean value form; local_starts run on the host before "
                        "the first launch, local_search and polish between launches), the host between sweeps "
                        "(host), or the device loop wherever it can serve the settings and the host loop "
                        "elsewhere, the result saying why (auto)", choices=LOOPS)
    max_iterations: Optional[int] = setting(None, "stop after this many iterations", minimum=0)
    time_limit: Optional[float] = time_limit_setting()

    def validate(self):
        if self.variant == "strong":
            if self.loop == "device":
                raise InputError("variant strong takes the device loop on CUDA with loop = auto, leaving out "
                                 "host work (contraction after the root), and the host loop with loop = host: "
                                 "not with loop = device")
            for k, v in STRONG.items():   # on top of what was set: a larger local_starts stays
                cur = getattr(self, k)
                object.__setattr__(self, k, max(cur, v) if k == "local_starts" else v)
        if self.gap_tol is not None and not math.isfinite(self.gap_tol):
            raise InputError(f"gap_tol must be a number >= 0, got {self.gap_tol!r}")
        if not math.isfinite(self.tol):
            raise InputError(f"tol must be a positive number, got {self.tol!r}")
        if self.loop == "device":
            unsupported = host_loop_reasons(self)
            if unsupported:
                raise InputError(f"loop = device runs the split sweep on the GPU only: not with {unsupported[0]}")
        if self.parts ** self.split_dims > 2**31:
            raise InputError(f"parts**split_dims = {self.parts ** self.split_dims} subregions per "
                             f"iteration is too many (at most 2**31)")


def at_scale(settings, dim, on_cuda, split=True, chained=False):
    """``(settings that run, note)``: variant strong with ``loop = "auto"`` on CUDA (and a definition
    with the split sweep) runs in the device loop after its local starts, their best polished
    (:meth:`.core.Search._multistart`).  Above :data:`STRONG_MAX_DIM` it runs the paper's sweep
    (:data:`HOST_EXTRAS` off); at or below it the root is contracted on the host first
    (:meth:`.core.Search._contract_root`) and the device loop keeps inclusion best, the descent and the
    polish (:data:`DEVICE_EXTRAS` off).  The note says what was left out and how to have it.  Any other ``settings`` come back as
    they are, with None.

    ``chained``: the definition is a chain the two-coordinate pieces are on for (forms/chain.py:
    ``gated``: EggHolder, Rana, SineEnvelope, StretchedV); at n <= STRONG_MAX_DIM it takes the host
    loop instead (:data:`CHAINED_SPLIT_DIMS`), where each child gets the chain's bound and every selected
    box is contracted: the device loop takes the chain at the root only (docs/scipy_go.md, hard41).

    ``settings`` must be checked already (``Settings.check`` sets the strong variant's fields)."""
    s = settings
    if not _strong_on_cuda(s, on_cuda, split):
        return s, None
    run = copy.copy(s)
    if chained and dim <= STRONG_MAX_DIM:
        k = min(s.split_dims, CHAINED_SPLIT_DIMS, dim)
        object.__setattr__(run, "loop", "host")
        object.__setattr__(run, "split_dims", k)
        return run, (f"variant strong on CUDA, a chain of two-coordinate oscillating terms: the host loop, "
                     f"{k} coordinates cut an iteration, every child bounded by the chain's cells and every "
                     f"selected box contracted, its sweeps on the GPU (--loop device for the device loop)")
    if dim > STRONG_MAX_DIM:
        for k, v in HOST_EXTRAS.items():
            object.__setattr__(run, k, v)
        return run, (f"variant strong at n = {dim} > {STRONG_MAX_DIM} on CUDA: local starts (the best polished), "
                     f"then the paper's sweep in the device loop; contraction, inclusion best, local search and "
                     f"the polish after each lowered GUB are left out (--loop host for them all)")
    for k, v in DEVICE_EXTRAS.items():
        object.__setattr__(run, k, v)
    return run, ("variant strong on CUDA: local starts (the best polished) and the root's contraction on the "
                 "host, then the device loop with inclusion best (its split mean value form), a descent and "
                 "a polish after each lowered GUB; the contraction of the boxes selected after the root is "
                 "left out (--loop host for it)")


def contracts_root(settings, dim, on_cuda, split=True):
    """Whether variant strong (as asked, checked) contracts the root on the host before the device loop
    (:meth:`.core.Search._contract_root`): with ``loop = "auto"`` on CUDA at n <= STRONG_MAX_DIM."""
    return _strong_on_cuda(settings, on_cuda, split) and dim <= STRONG_MAX_DIM and settings.contract


def _strong_on_cuda(s, on_cuda, split):
    """Variant strong left to choose its loop (auto) on CUDA, with the split sweep: what
    :func:`at_scale` reshapes and :func:`contracts_root` contracts the root for."""
    return s.variant == "strong" and s.loop == "auto" and on_cuda and split


def device_loop_serves(settings, on_cuda, split=True):
    """Whether ``settings`` (as :func:`at_scale` makes them) run the device loop: on CUDA, not asked
    for the host loop, a definition with the split sweep and nothing in :func:`host_loop_reasons`."""
    return on_cuda and split and settings.loop != "host" and not host_loop_reasons(settings)


def host_loop_reasons(settings):
    """Why ``settings`` need the host loop (empty when the device loop can serve them)."""
    s = settings
    return [why for bad, why in ((s.backend == "cpu", "backend cpu (the CPU keeps the host loop)"),
                                 (s.evaluation != "split", "evaluation full"),
                                 (s.contract, "contract"))
            if bad]
