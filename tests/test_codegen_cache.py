"""The on-disk index of generated sources (gpubench.forms.codegen.load): a second process finds the
forms' module without deriving them again, and a changed definition or generator never finds a
stale one (issue 11, item 2)."""
import dataclasses

import pytest

from gpubench.forms import codegen, cards as formcache
from gpubench import functions

EXT = ("CACHE_TEST = 1",)  # a module of its own, so other tests' modules are not touched


@pytest.fixture
def fresh(tmp_path, monkeypatch, request):
    """An empty cache, and a way to forget everything this process holds (as a new process would)."""
    monkeypatch.setenv("GPUBENCH_CACHE", str(tmp_path))
    calls = []
    real = codegen._generate

    def counting(defn, backend):
        calls.append(defn.name)
        return real(defn, backend)

    monkeypatch.setattr(codegen, "_generate", counting)

    def new_process():
        for memo in ("_GENERATED", "_INDEXED"):
            monkeypatch.setattr(codegen, memo, {})
        monkeypatch.setattr(formcache, "LOADED", {})  # the modules imported (gpubench.forms.cards)
        codegen.generator_key.cache_clear()

    new_process()
    request.addfinalizer(codegen.generator_key.cache_clear)
    return calls, new_process, tmp_path


def test_a_second_process_uses_the_same_text_without_deriving_it(fresh):
    calls, new_process, _ = fresh
    defn = functions.get("levy").definition
    a = codegen.load(defn, "cpu", EXT)
    assert calls == ["levy"]
    text = open(a.__file__).read()
    new_process()
    b = codegen.load(defn, "cpu", EXT)
    assert calls == ["levy"], "the index was not used"
    assert b is not a and b.__file__ == a.__file__ and open(b.__file__).read() == text
    # bit-identical with and without the cache: the text the generator writes now is the cached one
    assert codegen.source(defn, "cpu", EXT) == text
    # in this process the derivation is not repeated for another extension either
    codegen.load(defn, "cpu", EXT + ("MORE = 2",))
    assert calls == ["levy", "levy"]
    codegen.load(defn, "cpu", EXT + ("MORE = 3",))
    assert calls == ["levy", "levy"]


def test_a_changed_definition_is_derived_again(fresh):
    calls, new_process, _ = fresh
    defn = functions.get("levy").definition
    a = codegen.load(defn, "cpu", EXT)
    new_process()
    b = codegen.load(dataclasses.replace(defn, expr=defn.expr + 1), "cpu", EXT)
    assert calls == ["levy", "levy"] and b.__file__ != a.__file__


@pytest.mark.parametrize("change", ["name", "expr", "term", "param", "spike", "dim"])
def test_every_field_the_generator_reads_is_in_the_key(change):
    from gpubench.forms.definition import Spike, Sum, param, x
    defn = functions.get("levy_delta").definition
    agg = next(iter(defn.terms))
    other = {
        "name": lambda: dataclasses.replace(defn, name="levy_other"),
        "expr": lambda: dataclasses.replace(defn, expr=defn.expr * 2),
        "term": lambda: dataclasses.replace(defn, terms={agg: Sum(defn.terms[agg].term + x)}),
        "param": lambda: dataclasses.replace(defn, params={**defn.params, "q": lambda n: [0.0] * n},
                                             terms={agg: Sum(defn.terms[agg].term + param("q")[0])}),
        "spike": lambda: dataclasses.replace(defn, spike=Spike(defn.spike.center, defn.spike.halfwidth * 2,
                                                               defn.spike.value)),
        "dim": lambda: dataclasses.replace(defn, dim=3),
    }[change]()
    assert codegen.definition_key(other) != codegen.definition_key(defn)
    assert codegen.definition_key(dataclasses.replace(defn)) == codegen.definition_key(defn)


def test_a_changed_generator_is_derived_again(fresh, tmp_path, monkeypatch):
    calls, new_process, _ = fresh
    copy = tmp_path / "codegen_copy.py"
    copy.write_text(open(codegen.__file__).read())
    monkeypatch.setattr(codegen, "_GENERATOR_SOURCES", (str(copy),))
    defn = functions.get("levy").definition
    codegen.load(defn, "cpu", EXT)
    new_process()
    codegen.load(defn, "cpu", EXT)
    assert calls == ["levy"]
    copy.write_text(copy.read_text() + "\n# an edit\n")
    new_process()
    codegen.load(defn, "cpu", EXT)
    assert calls == ["levy", "levy"]


def test_an_altered_module_file_is_not_used(fresh):
    calls, new_process, _ = fresh
    defn = functions.get("levy").definition
    a = codegen.load(defn, "cpu", EXT)
    text = open(a.__file__).read()
    with open(a.__file__, "a") as f:
        f.write("\nALTERED = 1\n")
    new_process()
    b = codegen.load(defn, "cpu", EXT)
    assert calls == ["levy", "levy"]
    assert open(b.__file__).read() == text and not hasattr(b, "ALTERED")


def test_a_callable_extension_is_derived_only_when_the_module_is_not_in_the_index(fresh, monkeypatch):
    """de-gpu appends codegen.term_forms as a function: a second process that finds the module in the
    index does not derive it (no _Structure built), and loads the same text."""
    calls, new_process, _ = fresh
    from gpubench.forms import term_forms
    built = []
    real = term_forms._Structure

    class Counting(real):
        def __init__(self, defn):
            built.append(defn.name)
            super().__init__(defn)

    monkeypatch.setattr(term_forms, "_Structure", Counting)
    defn = functions.get("levy").definition
    a = codegen.load(defn, "cpu", (codegen.term_forms, "CACHE_TEST_CALLABLE = 1"))
    assert "COOP_SLOTS" in open(a.__file__).read() and built
    new_process()
    built.clear()
    b = codegen.load(defn, "cpu", (codegen.term_forms, "CACHE_TEST_CALLABLE = 1"))
    assert b.__name__ == a.__name__ and built == [] and calls == ["levy"]
    with pytest.raises(ValueError):
        codegen.load(defn, "cpu", (lambda d: "X = 1",))


def test_a_generated_module_keeps_its_bytecode_where_imports_write_none(tmp_path, monkeypatch):
    """With PYTHONDONTWRITEBYTECODE (sys.dont_write_bytecode) an import writes no bytecode, so every process
    compiled each generated module from its source again: import_text writes it, the next process's import
    reads it (its loader never compiles the source), and a new text gets new bytecode."""
    import importlib.machinery
    import importlib.util
    import sys
    from gpubench.forms import cache
    monkeypatch.setenv("GPUBENCH_CACHE", str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    name = "gpubench_bytecode_test_a1"
    monkeypatch.delitem(sys.modules, name, raising=False)
    assert cache.import_text(name, "VALUE = 1\n").VALUE == 1
    pyc = importlib.util.cache_from_source(str(cache.cache_dir() / f"{name}.py"))
    first = open(pyc, "rb").read()
    compiled = []
    real = importlib.machinery.SourceFileLoader.source_to_code
    monkeypatch.setattr(importlib.machinery.SourceFileLoader, "source_to_code",
                        lambda self, *a, **k: compiled.append(1) or real(self, *a, **k))
    del sys.modules[name]                                        # a new process
    assert cache.import_text(name, "VALUE = 1\n").VALUE == 1 and compiled == []
    del sys.modules[name]
    assert cache.import_text(name, "VALUE = 22\n").VALUE == 22   # a new text, its own bytecode
    assert open(pyc, "rb").read() != first
    sys.modules.pop(name, None)


def test_a_generated_forms_module_keeps_its_bytecode_too(tmp_path, monkeypatch):
    """The forms' modules (codegen.load writes them, cards.import_generated imports them: the path of every
    second process) get their bytecode as import_text's do, and a source rewritten under the same name gets
    new bytecode (the header no longer matches)."""
    import importlib.util
    import os
    import sys
    from gpubench.forms import cache, cards
    monkeypatch.setenv("GPUBENCH_CACHE", str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    monkeypatch.setattr(cards, "LOADED", {})
    name = "gpubench_generated_bytecode_test_b1"
    path = cards.generated_path(name)
    cache.cache_dir()
    path.write_text("VALUE = 3\n")
    monkeypatch.delitem(sys.modules, name, raising=False)
    assert cards.import_generated(name, "cpu").VALUE == 3
    pyc = importlib.util.cache_from_source(str(path))
    first = open(pyc, "rb").read()
    path.write_text("VALUE = 44\n")
    os.utime(path, (1, 1))                            # another time and size: the header must not match
    cache.ensure_bytecode(path)
    assert open(pyc, "rb").read() != first
    sys.modules.pop(name, None)
