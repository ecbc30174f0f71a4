"""EvoX's differential evolution and particle swarm, run through EvoX itself (PyTorch).

    B. Huang, R. Cheng, Z. Li, Y. Jin, K. C. Tan, "EvoX: A distributed GPU-accelerated framework
    for scalable evolutionary computation", IEEE Transactions on Evolutionary Computation (2024).

The peers de-gpu is measured against (issue 27).  Each method builds EvoX's algorithm
(``evox.algorithms.DE``, ``evox.algorithms.PSO``) and its standard workflow
(``evox.workflows.StdWorkflow``) around an EvoX ``Problem`` whose ``evaluate`` is the
function's array form in PyTorch (:func:`gpubench.forms.arrayform.array_form`), on the device of
``backend``; ``compile=True`` runs ``torch.compile`` on the workflow's step, as EvoX's own
benchmarks do.  EvoX keeps the population in the box by clamping (``evox.utils.clamp``).
The seed is ``torch.manual_seed(seed)`` before the algorithm draws its initial population.

``evox-de``: EvoX's DE/rand/1/bin (``base_vector="rand"``, one difference vector) with
``F`` and ``CR`` (EvoX's defaults 0.5 and 0.9; the comparison sets de-gpu's 0.3).
Evaluations: NP for the initial population, NP per generation.

``evox-pso``: EvoX's PSO (inertia ``w``, cognitive ``phi_p``, social ``phi_g``; EvoX's
defaults 0.6, 2.5, 0.8).  Its first step evaluates the initial swarm; NP per step.

Needs ``evox`` and ``torch`` (``pip install 'gpubench[peers]'``); without them the methods are
listed as unavailable.
"""
from dataclasses import dataclass

from gpubench.methods.base import setting

from ._peers import PopulationSettings, Plan, declare, device_name, evolve, torch_device, version

SOURCE = "EvoX (Huang et al., IEEE TEVC 2024), run through its own package"


@dataclass
class EvoxSettings(PopulationSettings):
    compile: bool = setting(False, "torch.compile the workflow's step (EvoX's compiled mode)")


@dataclass
class EvoxDeSettings(EvoxSettings):
    F: float = setting(0.5, "differential weight F (EvoX's default 0.5)", exclusive_minimum=0.0, maximum=2.0)
    CR: float = setting(0.9, "crossover probability CR (EvoX's default 0.9)", exclusive_minimum=0.0, maximum=1.0)
    base_vector: str = setting("rand", "base vector: rand (DE/rand/1/bin) or best", choices=("rand", "best"))


@dataclass
class EvoxPsoSettings(EvoxSettings):
    w: float = setting(0.6, "inertia weight (EvoX's default)", minimum=0.0)
    phi_p: float = setting(2.5, "cognitive weight (EvoX's default)", minimum=0.0)
    phi_g: float = setting(0.8, "social weight (EvoX's default)", minimum=0.0)


def _run(name, make, fn, dim, s):
    import torch
    from evox.core import Problem
    from evox.workflows import StdWorkflow

    from gpubench.forms.arrayform import array_form

    plan = Plan(fn, dim, s)
    dev = torch_device(s.backend)
    dtype = getattr(torch, s.dtype)
    values = array_form(fn, dim, "torch", device=dev, dtype=s.dtype)
    sign = plan.sign

    class _Objective(Problem):
        def evaluate(self, pop):
            return sign * values(pop)

    torch.manual_seed(s.seed)
    lb = torch.as_tensor(plan.lo, dtype=dtype, device=dev)
    ub = torch.as_tensor(plan.hi, dtype=dtype, device=dev)
    algo = make(s, lb, ub, dev)
    workflow = StdWorkflow(algo, _Objective(), device=dev)
    step = torch.compile(workflow.step) if s.compile else workflow.step
    algo = workflow.algorithm  # the workflow's copy, whose evaluate is the problem's
    pso = hasattr(algo, "global_best_fit")

    def sync():
        if dev.type == "cuda":
            torch.cuda.synchronize(dev)

    def start():
        workflow.init_step()
        sync()

    def steps(k):
        for _ in range(k):
            step()
        sync()

    def best():
        if pso:
            return algo.global_best_location.cpu().numpy(), float(algo.global_best_fit)
        j = int(torch.argmin(algo.fit))
        return algo.pop[j].cpu().numpy(), float(algo.fit[j])

    return evolve(plan, start, steps, best, name, device_name(dev),
                  {"library": f"evox {version('evox')}, torch {torch.__version__}",
                   "bounds": "EvoX clamps into the box"})


def _make_de(s, lb, ub, dev):
    from evox.algorithms import DE
    return DE(pop_size=s.np, lb=lb, ub=ub, base_vector=s.base_vector, differential_weight=float(s.F),
              cross_probability=float(s.CR), device=dev)


def _make_pso(s, lb, ub, dev):
    from evox.algorithms import PSO
    return PSO(pop_size=s.np, lb=lb, ub=ub, w=s.w, phi_p=s.phi_p, phi_g=s.phi_g, device=dev)


def _warmup(name):
    def warmup(fn, dim, s):
        """A run of two generations (CUDA context, kernels, torch.compile) before a timed run."""
        from dataclasses import replace
        w = replace(s, max_evaluations=3 * s.np, time_limit=None, target_error=None)
        _run(name, _make_de if name == "evox-de" else _make_pso, fn, dim, w)
    return warmup


def run_de(fn, dim, s):
    return _run("evox-de", _make_de, fn, dim, s)


def run_pso(fn, dim, s):
    return _run("evox-pso", _make_pso, fn, dim, s)


METHODS = [
    declare("evox-de", "EvoX's differential evolution DE/rand/1/bin (PyTorch; peer of de-gpu)",
            EvoxDeSettings, run_de, ("evox", "torch"), SOURCE, warmup=_warmup("evox-de")),
    declare("evox-pso", "EvoX's particle swarm optimisation (PyTorch)",
            EvoxPsoSettings, run_pso, ("evox", "torch"), SOURCE, warmup=_warmup("evox-pso")),
]
