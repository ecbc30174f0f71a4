"""What a method declares: its name, whether it is rigorous, its backends, and its settings.

A method is one module in ``gpubench/methods/`` (or in a folder named by
``$GPUBENCH_METHOD_PATH``) that defines ``METHOD = Method(...)`` (or ``METHODS``,
a list, for a family such as SciPy's seven).  Its settings are a dataclass
derived from :class:`MethodSettings`, whose fields state every setting once:
name, type, default, help text and limits.  The loader of experiment files,
``gpubench minimize --set KEY=VALUE`` and :func:`gpubench.methods.minimize`
all validate through it, so a setting is checked the same way everywhere and
an unknown key or a bad value is one line naming the method and the key.

Example (a complete method module)::

    from dataclasses import dataclass
    from gpubench.methods.base import Method, MethodSettings, setting
    from gpubench.result import OptimizeResult

    @dataclass
    class RandomSearchSettings(MethodSettings):
        samples: int = setting(1000, "points drawn uniformly in the box", minimum=1)
        seed: int = setting(0, "seed of the point stream", minimum=0)

    def run(fn, dim, s):
        ...
        return OptimizeResult(function=fn.name, dim=dim, method="random-search", ...)

    METHOD = Method(name="random-search", summary="Uniform random sampling",
                    settings=RandomSearchSettings, run=run)
"""
import dataclasses
import math
import types
import typing
from dataclasses import MISSING, dataclass, field

from ..errors import InputError

# Run-time keywords that are not settings: they change how a run is watched or stored,
# never its outcome, so they are neither recorded in a case's identity nor hashed.
CONTROLS = ("progress", "checkpoint", "resume", "checkpoint_every")


def setting(default, help, *, choices=None, minimum=None, maximum=None, exclusive_minimum=None,
            fixed=False):
    """A settings field with its help text and limits (checked by :meth:`MethodSettings.check`).

    ``fixed=True`` marks a value that names the method itself (shown, recorded,
    never changed).  A list default is given as a tuple.
    """
    meta = {"help": help, "choices": tuple(choices) if choices else None, "minimum": minimum,
            "maximum": maximum, "exclusive_minimum": exclusive_minimum, "fixed": fixed}
    if isinstance(default, (list, dict, set)):
        raise TypeError("use a tuple for a list default")
    return field(default=default, metadata=meta)


TIME_LIMIT_HELP = ("seconds of wall time (none: no limit); checked where the run can stop (between "
                   "launches, rounds, runs, iterations or nodes), past it the run ends with its best so far "
                   "and stop=time_limit")


def time_limit_setting(default=None):
    """The one ``time_limit`` setting of every method (declare it as
    ``time_limit: Optional[float] = time_limit_setting()``; ``default`` is the paper's, where it
    states one).  The run enforces it through :class:`gpubench.methods.monitor.Deadline`."""
    return setting(default, TIME_LIMIT_HELP, exclusive_minimum=0.0)


def _base_type(tp):
    """(base type, optional) of an annotation such as ``int``, ``Optional[float]``, ``tuple``."""
    origin = typing.get_origin(tp)
    if origin is typing.Union or origin is types.UnionType:
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        base, _ = _base_type(args[0]) if len(args) == 1 else (object, False)
        return base, True
    if origin in (tuple, list):
        return tuple, False
    return tp, False


@dataclass
class MethodSettings:
    """Base of every method's settings dataclass."""

    # ---------------------------------------------------------- declared fields
    @classmethod
    def fields(cls):
        """``[(name, base type, optional, default, metadata)]`` in declaration order."""
        hints = typing.get_type_hints(cls)
        out = []
        for f in dataclasses.fields(cls):
            base, optional = _base_type(hints[f.name])
            default = f.default if f.default is not MISSING else None
            out.append((f.name, base, optional, default, dict(f.metadata)))
        return out

    @classmethod
    def names(cls):
        return [f.name for f in dataclasses.fields(cls)]

    # ---------------------------------------------------------- building
    @classmethod
    def build(cls, method, values, from_text=False):
        """A checked instance from a mapping; ``from_text`` parses strings (``--set``)."""
        known = cls.names()
        unknown = sorted(set(values) - set(known))
        if unknown:
            raise InputError(f"method {method!r} has no setting {unknown[0]!r}; "
                             f"its settings: {', '.join(known) or 'none'}")
        spec = {name: (base, optional, meta) for name, base, optional, _, meta in cls.fields()}
        kwargs = {}
        for k, v in values.items():
            base, optional, meta = spec[k]
            if from_text:
                v = _parse_text(method, k, v, base, optional)
            kwargs[k] = _coerce(method, k, v, base, optional)
        obj = cls(**kwargs)
        obj.check(method)
        return obj

    def check(self, method):
        """Type and limit checks of every field, then the method's own :meth:`validate`."""
        for name, base, optional, default, meta in self.fields():
            v = getattr(self, name)
            if v is None:
                if not optional:
                    raise InputError(f"{method}: {name} must be given (no default)")
                continue
            v = _coerce(method, name, v, base, optional)
            object.__setattr__(self, name, v)
            if meta.get("fixed") and v != default:
                raise InputError(f"{method}: {name} is fixed to {default!r} (it names the method)")
            if meta.get("choices") and v not in meta["choices"]:
                raise InputError(f"{method}: {name} must be one of {', '.join(map(str, meta['choices']))}, "
                                 f"got {v!r}")
            if base in (int, float):
                if meta.get("minimum") is not None and v < meta["minimum"]:
                    raise InputError(f"{method}: {name} must be at least {meta['minimum']}, got {v!r}")
                if meta.get("exclusive_minimum") is not None and not v > meta["exclusive_minimum"]:
                    raise InputError(f"{method}: {name} must be greater than {meta['exclusive_minimum']}, "
                                     f"got {v!r}")
                if meta.get("maximum") is not None and v > meta["maximum"]:
                    raise InputError(f"{method}: {name} must be at most {meta['maximum']}, got {v!r}")
        self.validate()

    def validate(self):
        """Checks across fields; raise :class:`InputError` with one line.  Override as needed."""

    def as_dict(self):
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in dataclasses.asdict(self).items()}


def _coerce(method, name, v, base, optional):
    if v is None and optional:
        return None
    if base is bool:
        if not isinstance(v, bool):
            raise InputError(f"{method}: {name} must be true or false, got {v!r}")
        return v
    if base is int:
        if isinstance(v, bool) or not isinstance(v, int) and not (hasattr(v, "dtype") and v.dtype.kind in "iu"):
            raise InputError(f"{method}: {name} must be an integer, got {v!r}")
        return int(v)
    if base is float:
        if isinstance(v, bool) or not isinstance(v, (int, float)) and not (hasattr(v, "dtype") and v.dtype.kind in "iuf"):
            raise InputError(f"{method}: {name} must be a number, got {v!r}")
        v = float(v)
        if math.isnan(v):
            raise InputError(f"{method}: {name} must be a number, got NaN")
        return v
    if base is str:
        if not isinstance(v, str):
            raise InputError(f"{method}: {name} must be a string, got {v!r}")
        return v
    if base is tuple:
        if not isinstance(v, (list, tuple)):
            raise InputError(f"{method}: {name} must be a list, got {v!r}")
        return tuple(v)
    return v


def _parse_text(method, name, text, base, optional):
    if not isinstance(text, str):
        return text
    t = text.strip()
    if optional and t.lower() in ("none", "null", ""):
        return None
    try:
        if base is bool:
            low = t.lower()
            if low in ("true", "yes", "1", "on"):
                return True
            if low in ("false", "no", "0", "off"):
                return False
            raise ValueError
        if base is int:
            try:
                return int(t)
            except ValueError:
                f = float(t)  # 1e6 is an integer too
                if not (math.isfinite(f) and f.is_integer()):
                    raise
                return int(f)
        if base is float:
            return float(t)
        if base is tuple:
            return tuple(float(p) for p in t.replace(",", " ").split())
    except ValueError:
        kind = {bool: "true or false", int: "an integer", float: "a number",
                tuple: "a comma-separated list of numbers"}[base]
        raise InputError(f"{method}: {name} must be {kind}, got {text!r}") from None
    return t


# A run typed in (gpubench minimize / solve) with no time_limit given stops after this many
# seconds, its result saying so; library calls and experiments keep each method's own default.
INTERACTIVE_TIME_LIMIT = 20.0


class Chosen(typing.NamedTuple):
    """A default of a typed-in run with why it was chosen (printed with the run's result: a value
    that differs from ``gpubench methods NAME``'s must say so)."""
    value: object
    why: str


def interactive_choices(method, dim, given):
    """``{setting: Chosen}``: the defaults of a run typed in, the method's ``interactive`` hook
    (sized to the backend) and ``INTERACTIVE_TIME_LIMIT`` for a method with a ``time_limit``
    setting, each with its reason; ``given`` (the typed values) always wins."""
    out = dict(method.interactive(dim, given)) if method.interactive else {}
    if "time_limit" in method.settings.names() and "time_limit" not in given:
        out.setdefault("time_limit", Chosen(INTERACTIVE_TIME_LIMIT, "a typed-in run's limit; --time-limit or "
                                                                    "--set time_limit=S to change it"))
    return {k: v if isinstance(v, Chosen) else Chosen(v, "a typed-in run's default")
            for k, v in out.items() if k not in given}


def interactive_values(method, dim, given):
    """The values of :func:`interactive_choices`."""
    return {k: c.value for k, c in interactive_choices(method, dim, given).items()}


@dataclass(frozen=True)
class Method:
    """A registered method: what it is, what it runs on, and how it is set.

    ``run(fn, dim, settings, **controls)`` takes a :class:`~gpubench.forms.function.TestFunction`,
    the dimension, a checked settings instance and any of the ``controls`` it
    declares (from :data:`CONTROLS`), and returns an
    :class:`~gpubench.result.OptimizeResult`.  ``warmup(fn, dim, settings)``,
    when given, compiles whatever the method compiles so that a timed run that
    follows measures the method, not the compiler; ``preload(fn, dim, settings)``, when given,
    is what a typed-in run does in place of a warm-up it skips (its kernels are cached): it
    loads what the run would load on its first calls, so that the run's clock holds the
    method, not numba's loads from disk nor a package's import.  ``interactive(dim, given)``,
    when given, returns defaults for a run typed by a user (sized to the
    backend that will run it); experiments never use it, so they keep the
    settings they state.
    """
    name: str
    summary: str
    settings: type
    run: typing.Callable
    rigorous: bool = False
    backends: tuple = ("cpu",)
    source: str = ""
    controls: tuple = ()
    warmup: typing.Optional[typing.Callable] = None
    preload: typing.Optional[typing.Callable] = None
    interactive: typing.Optional[typing.Callable] = None
    module: str = ""
    # whether run() takes a constrained problem (gpubench.forms.function.ConstrainedProblem);
    # a method that does not is guarded: such a problem gets a one-line error, not a traceback
    constraints: bool = False
    # an optional method (a peer run through its own package): the import names it needs and the
    # line that installs them.  A method whose packages are missing stays registered and listed
    # (``gpubench methods`` says so, with ``install``); running it is that one line, never a traceback.
    requires: tuple = ()
    install: str = ""
    # ``refuses(fn, dim)``: why the method cannot take ``fn`` at ``dim`` (the one line its run would
    # raise: an operation its modelling language lacks), or None.  A sweep leaves such cases out,
    # saying so, rather than stopping at the first (a peer that expresses most of a library).
    refuses: typing.Optional[typing.Callable] = None
    # a case of ``gpubench reproduce`` resumable within itself (gpubench.workflow.resume): run() then
    # takes ``checkpoint=`` a gpubench.methods.checkpoints.Checkpoint (the runner's, beside the case's
    # record), saves its state there as it goes and at Ctrl-C or SIGTERM, and goes on from a saved one
    resumable: bool = False
    # every run on cuda launches kernels: a typed-in run then makes the CUDA context in a thread beside
    # its imports (gpubench.commands.minimize.early_context); a method that may answer without a
    # launch (the interval solver whose root stays whole) leaves it False and makes no context for nothing
    launches: bool = False

    def __post_init__(self):
        inner, name, constraints = self.run, self.name, self.constraints
        if constraints and not self.requires:
            return

        def guard(fn):
            self.check_available()
            if not constraints:
                from ..forms.function import refuse_constrained
                refuse_constrained(fn, f"method {name!r}")

        def run(fn, dim, settings, **controls):
            guard(fn)
            return inner(fn, dim, settings, **controls)

        run.__doc__, run.__wrapped__ = inner.__doc__, inner
        object.__setattr__(self, "run", run)
        if self.warmup is not None:
            warm = self.warmup

            def warmup(fn, dim, settings):   # the same refusals as run (a typed-in run warms up first)
                guard(fn)
                return warm(fn, dim, settings)
            object.__setattr__(self, "warmup", warmup)

    def missing(self):
        """The import names in ``requires`` that this Python cannot find (nothing is imported)."""
        import importlib.util
        out = []
        for mod in self.requires:
            try:
                found = importlib.util.find_spec(mod) is not None
            except (ImportError, ValueError):
                found = False
            if not found:
                out.append(mod)
        return out

    @property
    def available(self):
        return not self.missing()

    def check_available(self):
        """One-line :class:`InputError` naming the missing package(s) and the install line."""
        gone = self.missing()
        if gone:
            raise InputError(f"method {self.name!r} needs {', '.join(gone)}, which "
                             f"{'is' if len(gone) == 1 else 'are'} not installed: {self.install or 'pip install ' + ' '.join(gone)}")

    def make_settings(self, values=None, from_text=False):
        return self.settings.build(self.name, dict(values or {}), from_text=from_text)

    def split(self, options):
        """(settings values, controls) from one keyword mapping; unknown keys are one-line errors."""
        names = set(self.settings.names())
        settings, controls = {}, {}
        for k, v in options.items():
            if k in names:
                settings[k] = v
            elif k in self.controls:
                controls[k] = v
            else:
                allowed = sorted(names | set(self.controls))
                raise InputError(f"method {self.name!r} has no setting {k!r}; "
                                 f"its settings: {', '.join(allowed) or 'none'}")
        return settings, controls

    def __call__(self, fn, dim, **options):
        values, controls = self.split(options)
        return self.run(fn, dim, self.make_settings(values), **controls)

    def describe(self):
        """A JSON-ready description: what ``gpubench methods --json`` prints."""
        rows = []
        for name, base, optional, default, meta in self.settings.fields():
            rows.append({"name": name, "type": getattr(base, "__name__", str(base)) + ("?" if optional else ""),
                         "default": list(default) if isinstance(default, tuple) else default,
                         "help": meta.get("help", ""), "choices": list(meta["choices"]) if meta.get("choices") else None,
                         "fixed": bool(meta.get("fixed"))})
        out = {"name": self.name, "summary": self.summary, "rigorous": self.rigorous,
               "backends": list(self.backends), "source": self.source, "settings": rows}
        if self.requires:
            gone = self.missing()
            out.update(requires=list(self.requires), available=not gone, missing=gone, install=self.install)
        return out
