"""SV-COMP task definitions and verdict rules for bench/svcomp/run (standard library only).

A task is a .yml file (format 1.0-2.0) naming one C source and the properties to check with their
expected verdicts. weft's JSON result of one run becomes a verdict by the rules of issue 4:
`false` only with a witness (a violation of the property, with its replay file), `true` only when
the exploration was complete within the bounds, otherwise `unknown`.
"""

import json
import os
import re


class TaskError(Exception):
    """A task file weft cannot use; the message says what is wrong."""


def _scalar(text):
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    if text.lower() == "true":
        return True
    if text.lower() == "false":
        return False
    return text


def parse_task(path):
    """Reads a task .yml: {'name', 'dir', 'source', 'properties': [(name, expected)], 'data_model'}.

    Only the subset of YAML the task files use is understood: top-level `key: value`, the
    `properties:` list of `- property_file: ... / expected_verdict: ...` mappings, and `options:`.
    """
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    fields = {}
    properties = []
    section = None
    current = None
    for raw in lines:
        line = raw.split(" #", 1)[0].rstrip() if not raw.lstrip().startswith("#") else ""
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        body = line.strip()
        if indent == 0:
            key, _, value = body.partition(":")
            section = key.strip()
            if value.strip():
                fields[section] = _scalar(value)
            continue
        if section == "properties":
            if body.startswith("- "):
                current = {}
                properties.append(current)
                body = body[2:]
            key, _, value = body.partition(":")
            if current is None:
                raise TaskError(f"{path}: a property entry must start with '- '")
            current[key.strip()] = _scalar(value)
        elif section == "options":
            key, _, value = body.partition(":")
            fields["options." + key.strip()] = _scalar(value)
        elif section == "input_files" and body.startswith("- "):
            fields.setdefault("input_files", _scalar(body[2:]))
    source = fields.get("input_files")
    if not isinstance(source, str) or not source:
        raise TaskError(f"{path}: no input_files")
    props = []
    for p in properties:
        if "property_file" not in p:
            raise TaskError(f"{path}: a property without property_file")
        name = os.path.basename(str(p["property_file"]))
        name = name[:-4] if name.endswith(".prp") else name
        expected = p.get("expected_verdict")
        if isinstance(expected, bool):
            expected = "true" if expected else "false"
        props.append((name, expected))
    return {
        "name": os.path.splitext(os.path.basename(path))[0],
        "dir": os.path.basename(os.path.dirname(os.path.abspath(path))),
        "source": os.path.join(os.path.dirname(os.path.abspath(path)), source),
        "properties": props,
        "data_model": fields.get("options.data_model", "ILP32"),
    }


def find_tasks(root):
    """Every task under `root` (one directory level of task folders), sorted."""
    tasks = []
    for directory in sorted(os.listdir(root)):
        full = os.path.join(root, directory)
        if not os.path.isdir(full) or directory == "properties":
            continue
        for name in sorted(os.listdir(full)):
            if name.endswith(".yml"):
                tasks.append(parse_task(os.path.join(full, name)))
    return tasks


# The property's violation, as weft reports it.
_VIOLATION = {
    "unreach-call": lambda bug: "reach_error() was called" in bug.get("message", ""),
    "no-data-race": lambda bug: bug.get("kind") == "data race",
}

SUPPORTED_PROPERTIES = tuple(_VIOLATION)


def verdict_of(prop, result):
    """(verdict, reason) from weft's JSON result for property `prop`."""
    if prop not in _VIOLATION:
        return "unknown", f"property {prop} is not checked"
    if not isinstance(result, dict) or "statistics" not in result:
        return "unknown", "weft gave no result"
    violations = [b for b in result.get("bugs", []) if _VIOLATION[prop](b)]
    if violations:
        if not violations[0].get("schedule"):
            return "unknown", "a violation without a witness schedule"
        return "false", violations[0].get("message", "")
    others = [b.get("kind", "?") for b in result.get("bugs", [])]
    note = f" (other findings: {', '.join(sorted(set(others)))})" if others else ""
    if result.get("complete"):
        return "true", "explored completely" + note
    if result.get("complete_within_bounds"):
        # A thread or step bound cut executions short (endless thread creation, spinning): the
        # honest outcome is "bound reached", not `true`, however many interleavings were covered.
        return "unknown", "bound reached: " + result.get("incomplete_because", "") + note
    return "unknown", result.get("incomplete_because", "exploration incomplete")


# weft's reason codes (JSON "incomplete_code") for runs in which every interleaving was explored
# (within bounds, or for the input paths weft could follow): a random search finds nothing new.
EXPLORED_CODES = ("within-bounds", "fixed-inputs", "input-gaps", "unrestored-state")


def every_interleaving_explored(result):
    """Whether weft explored every interleaving, though its verdict is incomplete."""
    return (result or {}).get("incomplete_code", "") in EXPLORED_CODES


def bound_hit(result):
    """Which bound cut executions of an incomplete run short: "threads", "steps" or None."""
    result = result or {}
    if result.get("incomplete_code", "") not in ("cut-short", "within-bounds"):
        return None
    # Which bound it was, weft says only in the message of the first execution it cut.
    why = result.get("incomplete_because", "")
    if "--max-threads" in why:
        return "threads"
    if "visible operations" in why:
        return "steps"
    return None


# Bounds tried, smallest first, for a program that creates threads endlessly (threads, main
# included) or whose threads spin (visible operations per thread).
THREAD_BOUNDS = [2, 3, 4, 5, 6, 8, 10, 12, 16, 24, 32, 48, 64]
STEP_BOUNDS = [20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000]


def classify(expected, verdict):
    """'correct-true', 'correct-false', 'wrong-true', 'wrong-false' or 'unknown'."""
    if verdict == "unknown" or expected not in ("true", "false"):
        return "unknown"
    return ("correct-" if verdict == expected else "wrong-") + verdict


def parse_weft_output(text):
    """weft's --json output (stdout) as a dict, or None."""
    try:
        value = json.loads(text)
    except (ValueError, TypeError):
        return None
    return value if isinstance(value, dict) else None


def weft_options(prop):
    """How weft explores for a property: unreach-call needs every interleaving of racy plain
    accesses (every access a scheduling point); no-data-race checks races by happens-before."""
    if prop == "unreach-call":
        return ["--points=all", "--stop-on", "reach_error() was called"]
    return ["--points=sync", "--stop-on", "data race"]


def compile_flags(task):
    """Flags for weft-cc (the data model is compiled_data_model's).
    -fgnu89-inline: 15 tasks use non-static inline functions (SUMMARY.md, Build check)."""
    return ["-O0", "-fgnu89-inline", "-w"]


def compiled_data_model(task):
    """The data model a task is compiled for. weft's runtime (its fibers' context switch, the
    fork server) is x86-64 only, so every task is LP64, whatever its yml asks for."""
    return "LP64"


def data_model_note(tasks):
    """One line saying which tasks were not compiled as their yml asks, or None."""
    moved = [t for t in tasks if t["data_model"] != compiled_data_model(t)]
    if not moved:
        return None
    asked = ", ".join(sorted({t["data_model"] for t in moved}))
    return (f"note: {len(moved)} task(s) ask for {asked}; weft's runtime is x86-64 only, so "
            f"they were compiled {compiled_data_model(moved[0])}")


_SAFE = re.compile(r"[^A-Za-z0-9_.-]")


def work_name(task):
    return _SAFE.sub("_", task["dir"] + "__" + task["name"])
