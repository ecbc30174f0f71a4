"""evosax's differential evolution and CMA-ES, run through evosax itself (JAX).

    R. T. Lange, "evosax: JAX-based evolution strategies", GECCO 2023 Companion, 659-662.
    N. Hansen, "The CMA evolution strategy: a tutorial", arXiv:1604.00772 (2016).

Each method builds evosax's algorithm (``evosax.algorithms.DifferentialEvolution``,
``evosax.algorithms.CMA_ES``) and drives its ``ask``/``tell`` interface; one generation is
ask, projection onto the box, the function's array form in JAX
(:func:`gpubench.forms.arrayform.array_form`) and tell, and ``check_every`` generations run as one
``jax.lax.fori_loop`` inside one ``jax.jit``, on the device of ``backend``.  evosax has no
bounds: every candidate is projected onto the box (``jnp.clip``) before it is evaluated and
told as projected.  Random numbers: ``jax.random.key(seed)``, split per generation.

``evosax-de``: evosax's DE with ``elitism=False`` (base vector random: DE/rand/1/bin, the
variant of de-gpu and of EvoX's DE), ``F`` and ``CR`` (evosax's defaults 0.8 and 0.9); the
initial population is uniform in the box and evaluated (NP evaluations), then NP per
generation.

``evosax-cma-es``: evosax's CMA-ES (its default weights and learning rates) from a mean drawn
uniformly in the box with step size ``sigma0`` times the box's mean width; the mean's
evaluation is not counted (CMA-ES does not evaluate it), NP per generation, the first
generation standing for the initial population.

Needs ``evosax`` and ``jax`` (``pip install 'gpubench[peers]'``); without them the methods are
listed as unavailable.  float64 switches on JAX's x64 mode for the process.
"""
from dataclasses import dataclass

import numpy as np

from gpubench.methods.base import setting

from ._peers import COMPILED, PopulationSettings, Plan, declare, device_name, evolve, jax_device, version

SOURCE = "evosax (Lange, GECCO 2023 Companion), run through its own package"


@dataclass
class EvosaxDeSettings(PopulationSettings):
    F: float = setting(0.8, "differential weight F (evosax's default 0.8)", exclusive_minimum=0.0, maximum=2.0)
    CR: float = setting(0.9, "crossover probability CR (evosax's default 0.9)", minimum=0.0, maximum=1.0)


@dataclass
class EvosaxCmaSettings(PopulationSettings):
    np: int = setting(20, "population size lambda", minimum=4)
    sigma0: float = setting(0.3, "initial step size, times the box's mean width", exclusive_minimum=0.0)


def _programs(name, fn, dim, s, plan, dev):
    """(first, chunk), compiled once per function, dimension, device and algorithm settings (the
    seed, budget and limits are not part of them): ``first(key)`` gives the evaluated initial
    population's carry, ``chunk(carry, k)`` runs k generations."""
    import jax
    import jax.numpy as jnp
    from evosax.algorithms import CMA_ES, DifferentialEvolution

    from gpubench.forms.arrayform import array_form

    key_ = (name, id(fn), dim, str(dev), s.dtype, s.np,
            *[(k, v) for k, v in s.as_dict().items() if k in ("F", "CR", "sigma0")])
    if key_ in COMPILED:
        return COMPILED[key_]
    values = array_form(fn, dim, "jax", dtype=s.dtype)
    lo = jnp.asarray(plan.lo, dtype=s.dtype)
    hi = jnp.asarray(plan.hi, dtype=s.dtype)
    sign = plan.sign

    def f(pop):
        return sign * values(pop)

    solution = jnp.zeros(dim, dtype=s.dtype)
    if name == "evosax-de":
        es = DifferentialEvolution(population_size=s.np, solution=solution)
        params = es.default_params.replace(elitism=False, crossover_rate=s.CR, differential_weight=s.F,
                                           differential_weight_min=s.F, differential_weight_max=s.F)
    else:
        es = CMA_ES(population_size=s.np, solution=solution)
        width = float(np.mean(plan.hi - plan.lo))
        params = es.default_params.replace(std_init=jnp.asarray(s.sigma0 * width, dtype=s.dtype))

    def generation(carry):
        state, key, bx, bf = carry
        key, k_ask, k_tell = jax.random.split(key, 3)
        pop, state = es.ask(k_ask, state, params)
        pop = jnp.clip(pop, lo, hi)
        fit = f(pop)
        state, _ = es.tell(k_tell, pop, fit, state, params)
        j = jnp.argmin(fit)
        better = fit[j] < bf
        return (state, key, jnp.where(better, pop[j], bx), jnp.where(better, fit[j], bf))

    @jax.jit
    def first(key):
        key, k_init, k_state = jax.random.split(key, 3)
        if name == "evosax-de":
            pop0 = jax.random.uniform(k_init, (s.np, dim), dtype=s.dtype, minval=lo, maxval=hi)
            fit0 = f(pop0)
            state = es.init(k_state, pop0, fit0, params)
            j = jnp.argmin(fit0)
            return (state, key, pop0[j], fit0[j])
        mean0 = jax.random.uniform(k_init, (dim,), dtype=s.dtype, minval=lo, maxval=hi)
        state = es.init(k_state, mean0, params)
        return generation((state, key, mean0, jnp.asarray(jnp.inf, dtype=s.dtype)))

    # k generations in one compiled loop; k is traced, so one compilation serves every k
    chunk = jax.jit(lambda c, k: jax.lax.fori_loop(0, k, lambda _, cc: generation(cc), c))
    COMPILED[key_] = (first, chunk)
    return first, chunk


def _run(name, fn, dim, s):
    import jax

    plan = Plan(fn, dim, s)
    dev = jax_device(s.backend, s.dtype)
    with jax.default_device(dev):
        first, chunk = _programs(name, fn, dim, s, plan, dev)
        box = {}

        def start():
            box["c"] = jax.block_until_ready(first(jax.random.key(s.seed)))

        def steps(k):
            box["c"] = jax.block_until_ready(chunk(box["c"], k))

        def best():
            _, _, bx, bf = box["c"]
            return np.asarray(bx), float(bf)

        return evolve(plan, start, steps, best, name, device_name(dev),
                      {"library": f"evosax {version('evosax')}, jax {jax.__version__}",
                       "bounds": "candidates projected onto the box (jnp.clip) before evaluation"})


def _warmup(name):
    def warmup(fn, dim, s):
        """Compile the two programs (first generation, k generations) before a timed run."""
        import jax
        plan = Plan(fn, dim, s)
        dev = jax_device(s.backend, s.dtype)
        with jax.default_device(dev):
            first, chunk = _programs(name, fn, dim, s, plan, dev)
            jax.block_until_ready(chunk(first(jax.random.key(0)), 1))
    return warmup


def run_de(fn, dim, s):
    return _run("evosax-de", fn, dim, s)


def run_cma(fn, dim, s):
    return _run("evosax-cma-es", fn, dim, s)


METHODS = [
    declare("evosax-de", "evosax's differential evolution, DE/rand/1/bin (JAX)",
            EvosaxDeSettings, run_de, ("evosax", "jax"), SOURCE, warmup=_warmup("evosax-de")),
    declare("evosax-cma-es", "evosax's CMA-ES, candidates projected onto the box (JAX)",
            EvosaxCmaSettings, run_cma, ("evosax", "jax"), SOURCE, warmup=_warmup("evosax-cma-es")),
]
