"""Inference Doctor: describe the command-line flags of the SGLang or vLLM installed in this interpreter.

Run by the extension as `python -c <this file's text> MODE [ENGINE]` (argv only, no shell;
ENGINE is sglang, the default, or vllm):

    version  -> where the engine's package is and which version, without importing it (cheap;
                cache key)
    dump     -> build the engine's own argparse parser and describe every action, so choices
                added at import time (SGLang's add_*_choices hooks, plugins, vLLM's Literal and
                enum choices) show up. SGLang: ServerArgs.add_cli_args. vLLM: the OpenAI
                server's make_arg_parser on vLLM's FlexibleArgumentParser, which imports its
                config modules (and torch) but starts no engine and touches no GPU.

Output: one line `@@INFERENCE_DOCTOR_JSON@@` followed by a JSON document on stdout. Anything
the engine prints while importing is sent to stderr so it cannot corrupt the JSON.
"""

import argparse
import contextlib
import importlib.util
import json
import math
import os
import re
import sys

MARKER = "@@INFERENCE_DOCTOR_JSON@@"

# argparse's private action classes -> the names users write in add_argument(action=...)
SHORT_ACTION_NAMES = {
    "_StoreAction": "store",
    "_StoreTrueAction": "store_true",
    "_StoreFalseAction": "store_false",
    "_StoreConstAction": "store_const",
    "_AppendAction": "append",
    "_AppendConstAction": "append_const",
    "_CountAction": "count",
    "_ExtendAction": "extend",
    "_HelpAction": "help",
    "_VersionAction": "version",
}


def emit(document):
    sys.stdout.write(MARKER + "\n")
    sys.stdout.write(json.dumps(document, allow_nan=False))
    sys.stdout.write("\n")
    sys.stdout.flush()


def to_json(value, depth=0):
    """A JSON-safe copy of value, or raise ValueError when there is none."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        raise ValueError("non-finite float")
    if depth > 4:
        raise ValueError("too deep")
    enum_value = getattr(value, "value", None)
    if type(value).__module__ != "builtins" and hasattr(type(value), "__members__") and enum_value is not None:
        return to_json(enum_value, depth + 1)
    if isinstance(value, (list, tuple)):
        return [to_json(v, depth + 1) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((to_json(v, depth + 1) for v in value), key=lambda v: (str(type(v)), str(v)))
    if isinstance(value, dict):
        return {str(k): to_json(v, depth + 1) for k, v in value.items()}
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    raise ValueError("not JSON: " + type(value).__name__)


def described(value):
    """(json value, repr) - repr only when the value has no JSON form."""
    try:
        return to_json(value), None
    except (ValueError, TypeError):
        try:
            return None, repr(value)[:500]
        except Exception:  # a hostile __repr__ must not stop the dump
            return None, "<unrepresentable>"


# engine -> (package, the file its flags are declared in, relative to the package)
ENGINES = {
    "sglang": ("sglang", ("srt", "server_args.py")),
    "vllm": ("vllm", ("engine", "arg_utils.py")),
}

# `__version__ = "0.5.2"`, `__version__: str = ...`, setuptools-scm's `__version__ = version = '0.11.0'`
VERSION_RE = re.compile(r"__version__\s*(?::\s*str\s*)?=\s*(?:version\s*(?::\s*str\s*)?=\s*)?['\"]([^'\"]+)['\"]")


def package_location(package):
    spec = importlib.util.find_spec(package)
    if spec is None:
        return None
    roots = list(spec.submodule_search_locations or [])
    return roots[0] if roots else os.path.dirname(spec.origin or "")


def read_version(package, root):
    """The package's version from its metadata, else its version files, without importing it."""
    try:
        from importlib import metadata

        return metadata.version(package)
    except Exception:
        pass
    for name in ("version.py", "_version.py", "__init__.py"):
        try:
            with open(os.path.join(root, name), encoding="utf-8") as handle:
                match = VERSION_RE.search(handle.read())
            if match:
                return match.group(1)
        except OSError:
            continue
    return None


def version_info(engine):
    package, args_file = ENGINES[engine]
    info = {"engine": engine, "python": sys.executable, "pythonVersion": "%d.%d.%d" % sys.version_info[:3]}
    root = package_location(package)
    if root is None:
        info["error"] = "%s is not importable by this interpreter" % package
        return info
    info["packageDir"] = root
    info["version"] = read_version(package, root)
    path = os.path.join(root, *args_file)
    try:
        st = os.stat(path)
        info["argsFile"] = {"path": path, "size": st.st_size, "mtimeMs": int(st.st_mtime * 1000)}
    except OSError:
        pass
    return info


def type_name(t):
    if t is None:
        return None
    return getattr(t, "__name__", None) or type(t).__name__


def help_text(parser, action):
    if action.help is None or action.help == argparse.SUPPRESS:
        return action.help
    try:
        return parser._get_formatter()._expand_help(action)
    except Exception:  # %-formatting errors in a help string: keep it raw
        return action.help


def describe(parser, action):
    default, default_repr = described(action.default)
    const, const_repr = described(action.const)
    choices = None
    choices_repr = None
    if action.choices is not None:
        try:
            choices = to_json(list(action.choices))
        except (ValueError, TypeError):
            choices_repr = repr(action.choices)[:2000]
    kind = type(action).__name__
    out = {
        "option_strings": list(action.option_strings),
        "dest": action.dest,
        "default": default,
        "choices": choices,
        "nargs": action.nargs,
        "help": help_text(parser, action),
        "type": type_name(action.type),
        "action": SHORT_ACTION_NAMES.get(kind, kind),
        "const": const,
        "required": bool(action.required),
        "metavar": action.metavar if isinstance(action.metavar, str) else None,
    }
    if default_repr is not None:
        out["default_repr"] = default_repr
    if const_repr is not None:
        out["const_repr"] = const_repr
    if choices_repr is not None:
        out["choices_repr"] = choices_repr
    group = getattr(action, "container", None)
    title = getattr(group, "title", None)
    if isinstance(title, str):
        out["group"] = title
    return out


def sglang_parser():
    from sglang.srt.server_args import ServerArgs

    parser = argparse.ArgumentParser(prog="sglang.launch_server", add_help=False)
    ServerArgs.add_cli_args(parser)
    return parser


def vllm_parser():
    from vllm.entrypoints.openai.cli_args import make_arg_parser

    try:
        from vllm.utils.argparse_utils import FlexibleArgumentParser
    except ImportError:  # before vLLM moved its argparse helpers out of vllm.utils
        from vllm.utils import FlexibleArgumentParser
    return make_arg_parser(FlexibleArgumentParser(prog="vllm serve", add_help=False))


def dump(engine):
    info = version_info(engine)
    if "error" in info:
        return info
    with contextlib.redirect_stdout(sys.stderr):
        parser = vllm_parser() if engine == "vllm" else sglang_parser()
    info["actions"] = [describe(parser, a) for a in parser._actions]
    return info


def main(argv):
    mode = argv[1] if len(argv) > 1 else "dump"
    engine = argv[2] if len(argv) > 2 else "sglang"
    if engine not in ENGINES:
        sys.stderr.write("unknown engine %r (use sglang or vllm)\n" % engine)
        return 2
    if mode == "version":
        emit(version_info(engine))
    elif mode == "dump":
        emit(dump(engine))
    else:
        sys.stderr.write("unknown mode %r (use version or dump)\n" % mode)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
