"""topoplan from Python: plan how a large model is sharded and placed on multi-GPU systems.

Each function runs the topoplan command of the same name in this process (the compiled
``_topoplan`` over the C++ library) and returns its ``--json`` document as a :class:`Result`:
the JSON keys are attributes (``p.plans[0].tpot_ms``) and ``to_dict()`` gives plain dicts and
lists. Keyword arguments are the command's flags with ``_`` for ``-`` (``tpot_max=50`` is
``--tpot-max 50``; ``disagg=True`` is ``--disagg``; a list repeats the flag), so every flag of
``topoplan <command> --help`` (or :func:`help`) works, with the same defaults and checks.

Bad input raises :class:`InputError` with the message the command line prints (the file and JSON
pointer, or the flag); a request that no plan satisfies is not an error: the result's ``status``
and ``message`` say why (the command line's exit code 3). The GIL is released while a command
runs; commands from several threads run one after another. docs/python.md has the details.
"""

import json as _json
import warnings as _warnings

from . import _topoplan

__version__ = _topoplan.__version__
__all__ = [
    "Error", "InputError", "InternalError", "Result", "plan", "plan_train", "collective",
    "compare", "roofline", "topology", "topologies", "gpus", "model", "models", "emit", "csv",
    "run", "help",
]


class Error(Exception):
    """A command failed. ``exit_code`` is the command line's exit status for it."""

    def __init__(self, message, exit_code=1, source="", location="", detail=""):
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code
        self.source = source  # the file or flag ("--batch"), for an InputError
        self.location = location  # a JSON pointer ("/links/3/type") or "line 12"
        self.detail = detail  # the message without its source and location


class InputError(Error, ValueError):
    """Something given was wrong: a keyword, a value, a file, a name (exit code 2)."""


class InternalError(Error):
    """A broken invariant inside topoplan (exit code 1): please report it."""


class Result:
    """A JSON document whose keys are attributes; ``to_dict()`` returns the plain document."""

    __slots__ = ("_data",)

    def __init__(self, data):
        object.__setattr__(self, "_data", data)

    def __getattr__(self, key):
        try:
            return _wrap(self._data[key])
        except KeyError:
            raise AttributeError(
                f"no key '{key}' here; keys: {', '.join(self._data)}") from None

    def __getitem__(self, key):
        return _wrap(self._data[key])

    def __contains__(self, key):
        return key in self._data

    def __iter__(self):
        return iter(self._data)

    def __len__(self):
        return len(self._data)

    def __dir__(self):
        return list(self._data)

    def __eq__(self, other):
        if isinstance(other, Result):
            return self._data == other._data
        return self._data == other  # a Result equals the plain document it wraps

    __hash__ = None  # mutable underneath: not hashable, as the dict it wraps

    def __setattr__(self, key, value):
        raise AttributeError("a Result is read-only; use to_dict() for a copy to edit")

    def keys(self):
        return self._data.keys()

    def get(self, key, default=None):
        return _wrap(self._data.get(key, default))

    def to_dict(self):
        """The document as plain dicts and lists (a deep copy)."""
        return _json.loads(_json.dumps(self._data))

    def __str__(self):
        return _json.dumps(self._data)

    def __format__(self, spec):
        return format(str(self), spec)

    def __repr__(self):
        text = _json.dumps(self._data)
        return f"Result({text[:200]}{'...' if len(text) > 200 else ''})"


def _wrap(value):
    if isinstance(value, dict):
        return Result(value)
    if isinstance(value, list):
        return [_wrap(v) for v in value]
    return value


class Completed:
    """What :func:`run` returns: the exit code and the command's standard output and error."""

    def __init__(self, exit_code, stdout, stderr):
        self.exit_code, self.stdout, self.stderr = exit_code, stdout, stderr

    def __repr__(self):
        return f"Completed(exit_code={self.exit_code}, stdout={len(self.stdout)} chars)"


_ERRORS = {"input": InputError, "error": Error, "internal": InternalError}
# Exit codes that carry an answer: 0, and 3 (no plan fits or meets the limits: `status` says why).
_ANSWERED = (0, 3)


def _call(command, positionals=(), options=None, raise_on=_ANSWERED):
    reply = _topoplan.run(list(command), [str(p) for p in positionals], dict(options or {}))
    error = reply["error"]
    if error is not None:
        raise _ERRORS[error["kind"]](error["message"], error["exit_code"], error["source"],
                                     error["location"], error["detail"])
    if reply["exit_code"] not in raise_on:
        raise Error(reply["stderr"].strip() or f"exit code {reply['exit_code']}",
                    reply["exit_code"])
    for line in reply["stderr"].splitlines():
        if "warning" in line:
            _warnings.warn(line.removeprefix("topoplan: "), stacklevel=3)
    return reply


def _document(command, positionals=(), options=None, switches=("json", "quiet")):
    options = dict(options or {})
    elsewhere = {"json": "the result is the JSON document", "csv": "use topoplan.csv()",
                 "emit": "use topoplan.emit()"}
    for key, instead in elsewhere.items():
        if key in options:
            raise InputError(f"{key}: not a keyword here ({instead})", 2, key)
    for switch in switches:
        options[switch] = True
    reply = _call(command, positionals, options)
    return Result(_json.loads(reply["stdout"]))


def _named(options, **named):
    merged = {k: v for k, v in named.items() if v is not None}
    merged.update(options)
    return merged


def plan(model=None, topology=None, **options):
    """``topoplan plan --json``: ranked serving strategies and placements.

    >>> p = plan(model="deepseek-r1", topology="hgx-h20-8", tpot_max=50)
    >>> p.plans[0].tpot_ms
    """
    return _document(["plan"], options=_named(options, model=model, topology=topology))


def plan_train(model=None, topology=None, **options):
    """``topoplan plan --mode train --json``: training strategies (TP, CP, PP, VP, DP, EP, ZeRO)."""
    if options.get("mode", "train") != "train":
        raise InputError("mode: plan_train plans training; use plan() for serving", 2, "mode")
    options["mode"] = "train"
    return _document(["plan"], options=_named(options, model=model, topology=topology))


def collective(op, topology=None, **options):
    """``topoplan collective OP --json``: a predicted nccl-tests table (size or sweep)."""
    return _document(["collective"], [op], _named(options, topology=topology),
                     switches=("json",))


def compare(model=None, topology=None, **options):
    """``topoplan compare --json``: the best plan per cluster design; ``topology`` is a list."""
    if isinstance(topology, str):
        topology = [topology]
    return _document(["compare"], options=_named(options, model=model, topology=topology),
                     switches=("json",))


def roofline(model, gpu=None, topology=None, **options):
    """``topoplan model roofline M --json``: one GPU's decode step, kernel by kernel."""
    return _document(["model", "roofline"], [model],
                     _named(options, gpu=gpu, topology=topology), switches=("json",))


def topology(name, **options):
    """``topoplan topo show T --json``: devices, bandwidth per GPU, bisection, fabric."""
    return _document(["topo", "show"], [name], options, switches=("json",))


def topologies():
    """``topoplan topo list --json``: the built-in topologies."""
    return _document(["topo", "list"], switches=("json",))


def gpus():
    """``topoplan topo gpus --json``: the GPU catalog."""
    return _document(["topo", "gpus"], switches=("json",))


def model(name, **options):
    """``topoplan model show M --json``: parameters, KV cache, FLOPs and kernels of a model."""
    return _document(["model", "show"], [name], options, switches=("json",))


def models():
    """``topoplan model list --json``: the built-in models."""
    return _document(["model", "list"], switches=("json",))


def emit(engine, model=None, topology=None, **options):
    """``topoplan plan --emit ENGINE``: the commands that launch the best plan, as text.

    Serving engines: sglang, vllm, trtllm, dynamo; with ``mode="train"``: megatron, torchtitan.
    """
    options = _named(options, model=model, topology=topology, emit=engine, quiet=True)
    return _call(["plan"], options=options, raise_on=(0,))["stdout"]


def csv(command, *positionals, **options):
    """A command's ``--csv`` table as text (``pandas.read_csv(io.StringIO(text))``).

    ``command`` is "plan", "compare" or "collective"; the keywords are its flags.
    """
    if command not in ("plan", "compare", "collective"):
        raise InputError(f"csv: tables come from plan, compare and collective, not '{command}'",
                         2, "csv")
    options["csv"] = "-"
    if command == "plan":
        options.setdefault("quiet", True)
    return _call([command], positionals, options)["stdout"]


def run(*args):
    """Any command line, as words after ``topoplan``: ``run("topo", "paths", "hgx-h100-8")``.

    Returns :class:`Completed` whatever the exit code, as a shell would: bad input gives
    exit code 2 with the message in ``stderr``; ``run("--version")`` works too.
    """
    words = [str(a) for a in args]
    command = []
    while words and not words[0].startswith("-") and _topoplan.help(command + [words[0]]):
        command.append(words.pop(0))
    reply = _topoplan.run(command, words, {})
    error = reply["error"]
    if error is not None:
        return Completed(error["exit_code"], reply["stdout"], error["message"])
    return Completed(reply["exit_code"], reply["stdout"], reply["stderr"])


def help(command="plan"):  # noqa: A001 (the command line's word)
    """The ``--help`` text of a command: ``help("plan")``, ``help("model roofline")``."""
    text = _topoplan.help(command.split())
    if not text:
        raise InputError(f"help: no such command: topoplan {command}", 2, "help")
    return text
