"""Kernels bound at the call: one compile per call signature, cached in
memory and on disk, run through JAX (PyTorch tensors in and out by DLPack).
docs/runtime.md describes the whole."""

from __future__ import annotations

import difflib
import functools
import json
import os
import pathlib
import threading
import warnings

from . import _cache, _callables
from ._interop import is_torch_tensor, jax_to_torch, map_arrays, torch_to_jax
from ._native_loader import compiler, loaded_binaries, native
from ._pipeline import Pipeline, choose, device_platform
from ._signature import Signature, fact, is_array
from ._source import KernelSource, kernels_in, source_of_function
from .errors import CompileError, Diagnostic, InternalCompilerError


class Specialization:
    """A kernel compiled for one call signature.

    ``code`` is the generated module's text, ``path`` its file (in the disk
    cache), ``config`` what compiled it, ``report()`` the cost model's
    estimate for this signature.
    """

    def __init__(self, kernel: "Kernel", signature: Signature, pipeline: Pipeline,
                 path: pathlib.Path, meta: dict):
        self.kernel = kernel
        self.signature = signature
        self.pipeline = pipeline
        self.path = path
        self._meta = meta
        self._module = _cache.import_module(path)
        self._function = getattr(self._module, meta["function"])
        self._report = None

    @property
    def code(self) -> str:
        return self.path.read_text()

    @property
    def config(self) -> dict:
        """The pipeline, backend options and block sizes this compile used."""
        return {
            "pipeline": self.pipeline.config,
            "backend": self._meta["backend"],
            **self._meta["backend_options"],
            "block_sizes": self._meta["block_sizes"] or "the kernel's own",
            "blocks_chosen_by": _chosen_by(self._meta.get("block_choice")),
        }

    def report(self) -> dict:
        """The cost model's estimate of this specialization (modeled time,
        bytes, flops, stages, on-chip peak); empty when the backend has no
        model."""
        if self._report is None:
            result = self.kernel._compile_native(self.signature, self.pipeline,
                                                 emit_code=False, estimate=True,
                                                 choice=self._meta.get("block_choice"))
            estimates = result["estimates"]
            self._report = estimates[0] if estimates else {}
        return self._report

    def run(self, values: dict, interpret: bool):
        return self._function(**values, interpret=interpret)

    def __call__(self, *args, **kwargs):
        return self.kernel._call(args, kwargs, expect=self.signature)

    def __repr__(self) -> str:
        return (f"<tessera specialization {self.kernel.name}({self.signature.describe()}) "
                f"via {self.pipeline.name}>")


class Kernel:
    """A Helion-syntax kernel that compiles at its call.

    ``k(*args, **kwargs)`` runs it; ``k.bind(*args, **kwargs)`` returns the
    Specialization for those arguments (compiling it when new).
    """

    def __init__(self, source: KernelSource, pipeline: Pipeline, *, block_sizes=None,
                 static_shapes: bool | None = None, interpret: bool | None = None,
                 block_sizes_are_hints: bool = False):
        self.source = source
        self.name = source.name
        self.pipeline = pipeline
        self.block_sizes = list(block_sizes or [])
        # Blocks tuned for another target (a helion.Config written for
        # GPUs): used where the backend takes them, else the cost model's.
        self.block_sizes_are_hints = block_sizes_are_hints and bool(self.block_sizes)
        self._without_hints: "Kernel | None" = None
        self._derived: dict[tuple[str, ...], Kernel] = {}
        self.static_shapes = source.static_shapes if static_shapes is None else static_shapes
        self.interpret = interpret
        self._params = {p.name: p for p in source.params}
        self._order = [p.name for p in source.params]
        self._by_key: dict = {}
        self._by_signature: dict = {}
        self._lock = threading.Lock()
        self.__doc__ = f"Tessera kernel {source.name} ({source.where})"

    # -- binding -------------------------------------------------------------
    def _bind_arguments(self, args, kwargs) -> dict:
        if len(args) > len(self._order):
            raise TypeError(f"{self.name}() takes {len(self._order)} arguments, "
                            f"got {len(args)}")
        values = dict(zip(self._order, args))
        for name, value in kwargs.items():
            if name not in self._params:
                hint = difflib.get_close_matches(name, self._order, n=1)
                raise TypeError(f"{self.name}() got an unexpected keyword argument {name!r}"
                                + (f"; did you mean {hint[0]!r}?" if hint else ""))
            if name in values:
                raise TypeError(f"{self.name}() got multiple values for argument {name!r}")
            values[name] = value
        for name, value in values.items():
            if callable(value) and not is_array(value) and not isinstance(value, type):
                values[name] = _callables.resolve(value)
        missing = [p.name for p in self.source.params
                   if not p.has_default and p.name not in values]
        if missing:
            raise TypeError(f"{self.name}() missing required argument(s): "
                            f"{', '.join(map(repr, missing))}")
        return values

    def _fast_key(self, values: dict) -> tuple:
        key = []
        for name, value in values.items():
            if is_array(value):
                shape = tuple(value.shape) if self.static_shapes else len(value.shape)
                key.append((name, shape, str(value.dtype)))
            elif isinstance(value, (bool, int, float, str)) or value is None:
                param = self._params[name]
                if param.is_compile_time or name in self.source.specialized or value is None:
                    key.append((name, type(value), value))
                else:
                    key.append((name, type(value)))
            elif callable(value):
                key.append((name, "callable", _callables.key_of(value)))
            elif isinstance(value, (list, tuple)):
                key.append((name, type(value), tuple(map(repr, value))))
            else:
                # Anything else compiles (or raises) through the full
                # signature; its identity keeps distinct values apart.
                key.append((name, type(value), id(value)))
        return tuple(key)

    def _signature(self, values: dict) -> Signature:
        facts = tuple((name, fact(self.source, self._params[name], value, self.static_shapes))
                      for name, value in values.items())
        return Signature(self.name, facts)

    # -- compiling -------------------------------------------------------------
    def _compile_native(self, signature: Signature, pipeline: Pipeline, *, emit_code=True,
                        estimate=False, choice: dict | None = None,
                        blocks: list | None = None) -> dict:
        options = list(pipeline.options)
        blocks = self.block_sizes if blocks is None else blocks
        if choice is not None:
            blocks = choice["block_sizes"]
            options = [(k, v) for k, v in options if k != "launcher"]
            options.append(("launcher", choice["launcher"]))
        result = compiler().compile(
            self.source.path, self.source.text, pipeline.config, options,
            self.name, signature.args(), blocks, emit_code, estimate)
        if result["outcome"] == "user_error":
            raise CompileError(self.name, result["rendered"],
                               [Diagnostic.from_native(d) for d in result["diagnostics"]],
                               signature)
        if result["outcome"] != "ok":
            raise InternalCompilerError(
                f"internal error compiling kernel {self.name!r} ({self.source.where}) for "
                f"{signature.describe()}: {result['message']}\n{result['rendered']}")
        for diagnostic in result["diagnostics"]:
            if diagnostic["severity"] == "warning":
                warnings.warn(f"{diagnostic['file']}:{diagnostic['line']}:{diagnostic['col']}: "
                              f"{diagnostic['message']}", stacklevel=4)
        return result

    def _cache_key(self, signature: Signature, pipeline: Pipeline) -> str:
        # The block policy is part of what the module depends on: whether
        # the cost model chooses (and within which budget, over which
        # launchers), or the kernel's own blocks stand.
        policy = (_block_choice_enabled(), _block_search_budget(), pipeline.launcher_fixed,
                  self.static_shapes)
        return _cache.key_of(
            _toolchain_version(), self.source.text,
            self.source.path, self.name, repr(signature.facts), pipeline.key(),
            repr(self.block_sizes), repr(policy))

    def _blocks_are_given(self, pipeline: Pipeline) -> bool:
        return bool(self.block_sizes) or self.source.has_config or pipeline.gives_blocks(self.name)

    def _choose_blocks(self, signature: Signature, pipeline: Pipeline) -> dict | None:
        """Blocks (and a launcher, unless the caller fixed it) ranked by the
        backend's cost model for the call's shapes, when nothing the user
        wrote gives them; None when the backend has no model or the shapes
        are symbolic."""
        if (not self.static_shapes or self._blocks_are_given(pipeline)
                or not _block_choice_enabled()):
            return None
        choice = compiler().choose_blocks(
            self.source.path, self.source.text, pipeline.config, list(pipeline.options),
            self.name, signature.args(), not pipeline.launcher_fixed,
            _block_search_budget())
        _cache.STATS.block_searches += 1
        return dict(choice) if choice["found"] else None

    def _specialize(self, signature: Signature, pipeline: Pipeline) -> Specialization:
        key = self._cache_key(signature, pipeline)
        cached = _cache.lookup(self.name, key)
        if cached is not None:
            _cache.STATS.disk_hits += 1
            path, meta = cached
            return Specialization(self, signature, pipeline, path, meta)
        _cache.STATS.compiles += 1
        choice = self._choose_blocks(signature, pipeline)
        try:
            result = self._compile_native(signature, pipeline, choice=choice)
        except CompileError as error:
            if choice is None:
                choice, result = self._shrink_first_block(signature, pipeline, error)
            else:
                # The model's choice is checked by the compile: blocks the
                # backend rejects fall back to the kernel's own.
                choice = None
                result = self._compile_native(signature, pipeline)
        meta = {
            "kernel": self.name,
            "function": self.name,
            "signature": signature.describe(),
            "backend": result["backend"],
            "backend_options": {key: _option_value(value)
                                for key, value in result["backend_options"].items()},
            "block_sizes": choice["block_sizes"] if choice else self.block_sizes,
            "block_choice": choice,
            "source": self.source.path,
        }
        path = _cache.store(self.name, key, result["code"], meta)
        try:
            return Specialization(self, signature, pipeline, path, meta)
        except SyntaxError as error:
            # Generated Python that does not parse is Tessera's bug, never a
            # module to keep.
            _cache.discard(path)
            raise InternalCompilerError(
                f"internal error: the module generated for kernel {self.name!r} "
                f"({self.source.where}) for {signature.describe()} is not valid Python: "
                f"{error.msg} at line {error.lineno} of {path}") from error

    def _specialization(self, signature: Signature) -> Specialization:
        with self._lock:
            found = self._by_signature.get(signature)
            if found is not None:
                return found
            try:
                found = self._specialize_on_any_pipeline(signature)
            except CompileError as error:
                if not self.block_sizes_are_hints:
                    raise
                found = self._specialize_without_hints(signature, error)
            self._by_signature[signature] = found
            return found

    def _shrink_first_block(self, signature: Signature, pipeline: Pipeline,
                            error: CompileError) -> tuple[dict, dict]:
        """Default blocks the backend finds too large for the call's shapes
        ("choose smaller blocks": a whole-row tile that needs more warps
        than a GPU program has, with no performance model to choose by):
        the first hl.tile's block halved until the kernel compiles. Blocks
        the user gave are never changed; the first error stands when no
        smaller block compiles."""
        if self._blocks_are_given(pipeline) or "choose smaller blocks" not in str(error):
            raise error
        for block in (64, 32, 16, 8, 4, 2, 1):
            try:
                result = self._compile_native(signature, pipeline, blocks=[block])
            except CompileError:
                continue
            launcher = _option_value(result["backend_options"].get("launcher", '""'))
            choice = {"block_sizes": [block], "launcher": launcher, "by": "shrinking"}
            warnings.warn_explicit(
                f"the default blocks of kernel {self.name!r} are too large for "
                f"{signature.describe()} on {pipeline.name} ({_first_error(error)}); the "
                f"first hl.tile's block is {block}", UserWarning, self.source.path,
                self.source.line)
            return choice, result
        raise error

    def _specialize_on_any_pipeline(self, signature: Signature) -> Specialization:
        pipeline = self.pipeline
        try:
            return self._specialize(signature, pipeline)
        except CompileError as first:
            if pipeline.fallback is None:
                raise
            try:
                return self._specialize(signature, pipeline.fallback)
            except CompileError:
                raise first from None

    def _specialize_without_hints(self, signature: Signature,
                                  error: CompileError) -> Specialization:
        if self._without_hints is None:
            self._without_hints = Kernel(self.source, self.pipeline,
                                         static_shapes=self.static_shapes,
                                         interpret=self.interpret)
        try:
            found = self._without_hints._specialization(signature)
        except CompileError:
            raise error from None
        reason = error.diagnostics[0].message if error.diagnostics else str(error)
        warnings.warn_explicit(
            f"block_sizes={self.block_sizes} of kernel {self.name!r} do not compile for "
            f"{signature.describe()} on {self.pipeline.name} ({reason}); using the blocks "
            "Tessera chooses", UserWarning, self.source.path, self.source.line)
        return found

    # -- tensors captured by callables ---------------------------------------------
    def _lifted_tensors(self, values: dict) -> dict:
        """Tensors captured by the callables of a call, by the kernel
        parameter each becomes (as Helion lifts them to kernel arguments)."""
        lifted = {}
        for name, value in values.items():
            if callable(value) and not is_array(value):
                for captured, array in _callables.captured_arrays(value).items():
                    lifted[_callables.lifted_name(name, captured)] = array
        return lifted

    def _lifting(self, names: tuple[str, ...]) -> "Kernel":
        """This kernel with parameters `names` added, for the tensors its
        callables capture (one derived kernel per set of names)."""
        with self._lock:
            derived = self._derived.get(names)
            if derived is None:
                derived = Kernel(self.source.with_leading_params(names), self.pipeline,
                                 block_sizes=self.block_sizes,
                                 static_shapes=self.static_shapes, interpret=self.interpret,
                                 block_sizes_are_hints=self.block_sizes_are_hints)
                self._derived[names] = derived
            return derived

    # -- calling ---------------------------------------------------------------
    def _prepare(self, args, kwargs):
        values = self._bind_arguments(args, kwargs)
        lifted = self._lifted_tensors(values)
        if lifted and not set(lifted) <= set(self._params):
            return self._lifting(tuple(sorted(lifted)))._prepare((), {**values, **lifted})
        values.update(lifted)
        torch_inputs = False
        for name, value in values.items():
            if is_torch_tensor(value):
                torch_inputs = True
                values[name] = torch_to_jax(value)
        key = self._fast_key(values)
        specialization = self._by_key.get(key)
        if specialization is None:
            specialization = self._specialization(self._signature(values))
            self._by_key[key] = specialization
        else:
            _cache.STATS.memory_hits += 1
        # Callables are inlined into the kernel: not arguments of the module.
        host_values = {name: value for name, value in values.items()
                       if is_array(value) or not callable(value)}
        return specialization, host_values, torch_inputs

    def _interpret(self) -> bool:
        if self.interpret is not None:
            return self.interpret
        return device_platform() == "cpu"

    def _call(self, args, kwargs, expect: Signature | None = None):
        specialization, values, torch_inputs = self._prepare(args, kwargs)
        if expect is not None and specialization.signature != expect:
            raise ValueError(
                f"{self.source.where}: this specialization of {self.name!r} is for "
                f"{expect.describe()}; the call is {specialization.signature.describe()}")
        result = specialization.run(values, self._interpret())
        return map_arrays(result, jax_to_torch) if torch_inputs else result

    def __call__(self, *args, **kwargs):
        return self._call(args, kwargs)

    def bind(self, *args, **kwargs) -> Specialization:
        """The specialization for these arguments (arrays, or
        ``jax.ShapeDtypeStruct``s where only shapes and dtypes are known)."""
        return self._prepare(args, kwargs)[0]

    def specializations(self) -> list[Specialization]:
        return list(self._by_signature.values())

    def __repr__(self) -> str:
        return f"<tessera kernel {self.name} ({self.source.where}) via {self.pipeline.name}>"


class KernelLibrary:
    """Every kernel of a file, as attributes: ``lib.matmul(x, y)``."""

    def __init__(self, path: str, kernels: dict[str, Kernel]):
        self.path = path
        self.kernels = kernels
        for name, kernel in kernels.items():
            setattr(self, name, kernel)

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        hint = difflib.get_close_matches(name, list(self.kernels), n=1)
        raise AttributeError(
            f"{self.path} has no kernel {name!r}"
            + (f"; did you mean {hint[0]!r}?" if hint else "")
            + f" (kernels: {', '.join(self.kernels) or 'none'})")

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self.kernels))

    def __repr__(self) -> str:
        return f"<tessera library {self.path}: {', '.join(self.kernels)}>"


def _chosen_by(choice: dict | None) -> str:
    if not choice:
        return "the kernel or its config"
    if choice.get("by") == "shrinking":
        return "halving the first default block until the backend took it"
    return "the cost model"


def _first_error(error: CompileError) -> str:
    located = [d for d in error.diagnostics if d.severity == "error"]
    return located[0].message if located else str(error).splitlines()[0]


def _block_choice_enabled() -> bool:
    """TESSERA_BLOCK_CHOICE=0 keeps the kernels' own blocks."""
    return os.environ.get("TESSERA_BLOCK_CHOICE", "1") not in ("0", "off", "false")


def _block_search_budget() -> int:
    """How many candidates the cost model may estimate per new signature (a
    count, so that the blocks of a call do not depend on the machine's
    load; 10 take about 3 ms for matmul, 5-6 ms for attention, bench/runtime)."""
    return int(os.environ.get("TESSERA_BLOCK_SEARCH_ESTIMATES", "10"))


@functools.lru_cache(maxsize=None)
def _toolchain_version() -> str:
    """Tessera's version, every loaded plugin's, and the binaries' sizes and
    times, for cache keys: a rebuilt plugin of the same version (a checkout
    between commits) does not reuse the modules of the one before."""
    stamps = []
    for binary in loaded_binaries():
        try:
            stat = binary.stat()
        except OSError:
            continue
        stamps.append(f"{binary.name}:{stat.st_size}:{stat.st_mtime_ns}")
    return "\n".join([native().version, *compiler().plugin_versions(), *stamps])


def _option_value(text: str):
    # The compiler spells option values as TOML does ('"v6e"', 'true', '64').
    try:
        return json.loads(text)
    except ValueError:
        return text


def _block_sizes_of(config) -> list[int] | None:
    if config is None:
        return None
    if isinstance(config, dict):
        return config.get("block_sizes")
    return getattr(config, "block_sizes", None)


def load(path, *, config=None, backend=None, launcher=None, interpret=None,
         options=None) -> KernelLibrary:
    """Every ``@helion.kernel`` of the file at `path`, compiled at its call.

    `config` is a pipeline TOML; `backend` / `launcher` pick a built-in
    pipeline ("pallas-tpu" with "unroll" | "emit_pipeline" | "fori_loop",
    "pallas-gpu" with "triton" | "mosaic"); by default the pipeline follows
    the device JAX runs on. `interpret` overrides the automatic choice
    (interpret mode when JAX runs on the CPU). `options` sets backend options
    over the config's ({"tpu": "v5e"}).
    """
    path = str(pathlib.Path(path))
    text = pathlib.Path(path).read_text()
    pipeline = choose(config, backend, launcher, options or {})
    kernels = {name: Kernel(source, pipeline, interpret=interpret)
               for name, source in kernels_in(path, text).items()}
    return KernelLibrary(path, kernels)


def kernel(fn=None, *, config=None, configs=None, static_shapes=True, backend=None,
           launcher=None, pipeline_config=None, interpret=None, options=None, **unknown):
    """Decorator: a Helion-syntax function of the caller's own module as a
    Tessera kernel, compiled at its call. Takes ``helion.kernel``'s keyword
    arguments (`config` / `configs`: a Config whose ``block_sizes`` apply;
    of several `configs` the first), and the pipeline's (`backend`,
    `launcher`, `pipeline_config`: a TOML path, `options`)."""
    for name in unknown:
        warnings.warn(f"tessera.kernel: {name}= has no meaning for Tessera; ignored",
                      stacklevel=2)

    def wrap(function):
        source = source_of_function(function, "tessera.kernel")
        chosen = config if config is not None else (configs[0] if configs else None)
        pipeline = choose(pipeline_config, backend, launcher, options or {})
        wrapped = Kernel(source, pipeline, block_sizes=_block_sizes_of(chosen),
                         static_shapes=static_shapes, interpret=interpret)
        wrapped.__wrapped__ = function
        return wrapped

    return wrap(fn) if fn is not None else wrap
