"""Reading what ddlsim and ddlrun write, once for every tool of analysis/: the file as strict JSON (UTF-8, no NaN,
no field twice in an object, no deeper than any results file nests), and a results document checked against its
JSON Schema in docs/schemas/ (results.schema.json: scaling points and collections; collective-sweep.schema.json),
so that what a results file may hold is written down once, there, and not again here.

A reader needs less than a writer writes: files from before a field existed lack it. So the schemas' "required"
lists give way to READER_REQUIRES, what a reader cannot do without; every other rule of the schemas holds (types,
ranges, enumerations, and no field a schema does not name: a misspelt one is an error, with the nearest name).
Integers are what JSON writes without a decimal point: 4.0 where an integer belongs is refused, as the C++
readers refuse it. Every error is BadInput("FILE: $.json.path: what is wrong").
"""
import copy
import difflib
import functools
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMAS = os.path.join(HERE, "..", "docs", "schemas")
MAX_FILE_BYTES = 1 << 30
# No results document nests deeper than this; Python's parser would recurse out of its stack far deeper.
MAX_DEPTH = 64
# Allowed on every object, with any value, by every reader of the project.
ALWAYS_ALLOWED = {"description", "source", "sources", "confidence", "note"}
# What a reader needs, by the schema's definition ("$" is the schema's top): the rest may be missing.
READER_REQUIRES = {
    "results.schema.json": {"scaling_points": ["points"], "point": ["gpus", "algorithm", "iteration_s"],
                            "collective": [], "collection": ["results"], "run": ["tool", "version", "commit", "transport"]},
    "collective-sweep.schema.json": {"$": ["collective", "algorithm", "ranks", "rows"], "row": ["bytes", "time_s"],
                                     "out_of_place": [], "baseline": [], "run": ["tool", "version", "commit", "transport"]},
}


# The element types results files name, by size: algorithms/schedule/element_type.hpp's table, in Python.
ELEMENT_BYTES = {"float32": 4, "float64": 8, "bfloat16": 2, "float16": 2}


class BadInput(Exception):
    pass


def require_outputs_apart(outputs, inputs):
    """Raises BadInput naming the flag where one of `outputs` ({flag: path}; an empty path or None is not asked
    for) is one of `inputs` (paths the command reads: writing there would destroy it, as `merge_results a.json
    b.json --out a.json` once did) or the file an earlier output writes. Call it before reading or writing."""
    def same(a, b):
        try:
            return os.path.samefile(a, b)
        except OSError:  # one of them does not exist (yet): compare the paths they name
            return os.path.realpath(a) == os.path.realpath(b)
    written = []
    for flag, path in outputs.items():
        if not path:
            continue
        for source in inputs:
            if source and os.path.exists(source) and same(path, source):
                raise BadInput(f"{flag}: '{path}' is {'' if path == source else repr(source) + ', '}an input of this command: "
                               "writing there would destroy it; name a file of its own")
        for earlier_flag, earlier in written:
            if same(path, earlier):
                raise BadInput(f"{flag}: '{path}' is the file {earlier_flag} writes: give each output a file of its own")
        written.append((flag, path))


def element_bytes(name):
    """The bytes of an element of a results file's "type" ("float32", or "2-byte" where ddlsim knows only the
    size); None for a name that is neither."""
    if name in ELEMENT_BYTES:
        return ELEMENT_BYTES[name]
    if name.endswith("-byte") and name[:-len("-byte")].isdigit():
        return int(name[:-len("-byte")])
    return None


def _check_structure(text, path):
    """Refuses, naming the JSON path, nesting deeper than MAX_DEPTH and a field given twice in one object. A scan of
    the text rather than a walk of the parsed document: Python's parser recurses, and keeps only the last of two
    equal keys."""
    frames = []  # [is_object, keys seen, current key, commas seen (an array's index)]
    i, n = 0, len(text)

    def where():
        return "$" + "".join(f".{frame[2]}" if frame[0] else f"[{frame[3]}]" for frame in frames[:-1])

    while i < n:
        character = text[i]
        if character == '"':
            end = i + 1
            while end < n and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            if frames and frames[-1][0] and frames[-1][2] is None:
                try:
                    key = json.loads(text[i:end + 1])
                except ValueError:
                    return  # the parser will say what is wrong
                frame = frames[-1]
                if key in frame[1]:
                    frame[2] = key
                    raise BadInput(f"{path}: {where()}.{key}: the field is given twice in one object")
                frame[1].add(key)
                frame[2] = key
            i = end + 1
            continue
        if character in "[{":
            if len(frames) >= MAX_DEPTH:
                raise BadInput(f"{path}: {where()}: nested more than {MAX_DEPTH} levels deep; results never are")
            frames.append([character == "{", set(), None, 0])
        elif character in "]}":
            if frames:
                frames.pop()
        elif character == "," and frames:
            if frames[-1][0]:
                frames[-1][2] = None  # the next string is a key
            else:
                frames[-1][3] += 1
        i += 1


def read_json(path):
    """The JSON document in the file at `path`: a regular file of at most 1 GiB, UTF-8, strict JSON (no NaN or
    Infinity), no field twice in one object, at most MAX_DEPTH deep."""
    if not os.path.exists(path):
        raise BadInput(f"{path}: no such file")
    if os.path.isdir(path):
        raise BadInput(f"{path}: is a directory, not a JSON file")
    if not os.path.isfile(path):
        raise BadInput(f"{path}: not a regular file")
    try:
        if os.path.getsize(path) > MAX_FILE_BYTES:
            raise BadInput(f"{path}: larger than {MAX_FILE_BYTES >> 20} MiB")
        with open(path, "rb") as file:
            raw = file.read()
    except OSError as error:
        raise BadInput(f"{path}: cannot read the file ({error.strerror})")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise BadInput(f"{path}: not UTF-8 text (byte {error.start} is {raw[error.start]:#04x})")
    _check_structure(text, path)

    def not_a_number(constant):
        raise BadInput(f"{path}: not valid JSON: {constant} is not a JSON number")

    try:
        return json.loads(text, parse_constant=not_a_number)
    except json.JSONDecodeError as error:
        raise BadInput(f"{path}: not valid JSON: {error}")
    except ValueError as error:  # an integer of more digits than Python converts (sys.get_int_max_str_digits)
        raise BadInput(f"{path}: not a results file: {error}")
    except RecursionError:
        raise BadInput(f"{path}: nested too deep to read")


@functools.lru_cache(maxsize=None)
def schema(name):
    """docs/schemas/NAME as written."""
    with open(os.path.join(SCHEMAS, name), encoding="utf-8") as handle:
        return json.load(handle)


def reading_schema(name):
    """The schema as a reader holds files to it: its "required" lists READER_REQUIRES's."""
    adapted = copy.deepcopy(schema(name))
    requires = READER_REQUIRES[name]
    if "required" in adapted:
        adapted["required"] = requires.get("$", [])
    for definition, node in adapted.get("$defs", {}).items():
        if "required" in node:
            node["required"] = requires.get(definition, [])
    return adapted


def known_fields(name, definition="$"):
    """The fields an object of `definition` ("$": the top) of schema `name` may hold, ALWAYS_ALLOWED among them."""
    node = schema(name) if definition == "$" else schema(name)["$defs"][definition]
    return set(node.get("properties", {})) | ALWAYS_ALLOWED


@functools.lru_cache(maxsize=None)
def _validator(name):
    import jsonschema
    store = {}
    for other in READER_REQUIRES:
        uri = "file://" + os.path.abspath(os.path.join(SCHEMAS, other))
        store[uri] = reading_schema(other)
    base = "file://" + os.path.abspath(os.path.join(SCHEMAS, name))
    # JSON counts 4.0 an integer; the project's readers, like its writers, do not.
    checker = jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda _, value: isinstance(value, int) and not isinstance(value, bool))
    kind = jsonschema.validators.extend(jsonschema.Draft202012Validator, type_checker=checker)
    return kind(store[base], resolver=jsonschema.RefResolver(base, store[base], store=store))


def _json_path(parts):
    return "$" + "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in parts)


TYPE_NAMES = {"integer": "an integer", "number": "a number", "string": "a string", "object": "an object",
              "array": "an array", "boolean": "true or false"}


def _phrase(error):
    """One schema error in the readers' words: where, and what is wrong."""
    where = _json_path(error.absolute_path)
    if error.validator == "required":
        missing = error.message.split("'")[1] if "'" in error.message else "a field"
        return f"{where}.{missing}: missing"
    if error.validator == "additionalProperties":
        known = sorted(set(error.schema.get("properties", {})) | ALWAYS_ALLOWED)
        unknown = [key for key in error.instance if key not in known]
        key = unknown[0] if unknown else "?"
        nearest = difflib.get_close_matches(key, known, n=1)
        hint = f" (did you mean '{nearest[0]}'?)" if nearest else ""
        return f"{where}.{key}: unknown field{hint}; the known ones are {', '.join(known)}"
    if error.validator == "type":
        wanted = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
        return f"{where}: expected " + " or ".join(TYPE_NAMES.get(kind, kind) for kind in wanted)
    if error.validator in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        value = error.instance
        shown = f"{value:g}" if isinstance(value, float) else (str(value)[:20] + ("..." if len(str(value)) > 20 else ""))
        return f"{where}: {shown} is outside the range ({error.validator} {error.validator_value:g})"
    if error.validator == "enum":
        return f"{where}: {json.dumps(error.instance)[:40]} is none of {', '.join(json.dumps(v) for v in error.validator_value)}"
    return f"{where}: {error.message[:200]}"


def _leaves(error):
    """The errors under `error` that have none under them: within an if/then/else or an anyOf, what broke."""
    if not error.context:
        return [error]
    return [leaf for child in error.context for leaf in _leaves(child)]


def _worst(errors):
    """Of a document's errors, the one to report: the deepest, the first of those in the document's order; of an
    object's, an unknown field before a missing one, which is often the same field misspelt."""
    leaves = [leaf for error in errors for leaf in _leaves(error)]
    return max(leaves, key=lambda error: (len(error.absolute_path), error.validator == "additionalProperties"))


def check_results(document, path):
    """BadInput naming `path` and the JSON path where `document` breaks its schema: scaling points and collections
    are held to results.schema.json, a collective sweep ("rows") to collective-sweep.schema.json."""
    if not isinstance(document, dict):
        raise BadInput(f"{path}: $: expected an object")
    if "points" in document or "results" in document:
        name = "results.schema.json"
    elif "rows" in document:
        name = "collective-sweep.schema.json"
    else:
        raise BadInput(f"{path}: $: expected \"points\", \"rows\" or \"results\"")
    errors = list(_validator(name).iter_errors(document))
    if errors:
        raise BadInput(f"{path}: {_phrase(_worst(errors))}")


def read_results(path):
    """The results document at `path`, read strictly and checked against its schema."""
    document = read_json(path)
    check_results(document, path)
    return document
