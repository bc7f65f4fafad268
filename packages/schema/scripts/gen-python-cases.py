#!/usr/bin/env python3
"""Prints Python 3's own answers for the cases of @nanobot/schema's Python-compatibility module.

Run from the package folder:  python3 scripts/gen-python-cases.py > src/python/fixtures/python-cases.json
The tests compare the TypeScript module against the committed JSON, so they need no Python.

Values that JSON cannot carry are tagged: {"$float": "nan" | "inf" | "-inf"} for non-finite
floats, {"$error": "<ExceptionName>"} where Python raises.
"""
import json
import sys


def tag(value):
    """A Python value as fixture JSON (non-finite floats tagged)."""
    if isinstance(value, float) and value != value:
        return {"$float": "nan"}
    if isinstance(value, float) and value in (float("inf"), float("-inf")):
        return {"$float": "inf" if value > 0 else "-inf"}
    if isinstance(value, list):
        return [tag(v) for v in value]
    if isinstance(value, dict):
        return {k: tag(v) for k, v in value.items()}
    return value


def attempt(fn, arg):
    try:
        return tag(fn(arg))
    except Exception as error:  # noqa: BLE001 - we record which exception Python raises
        return {"$error": type(error).__name__}


NAN, INF = float("nan"), float("inf")

# Every code point whose str.isspace() is true (what strip()/lstrip()/rstrip() remove).
whitespace = [c for c in range(0x110000) if chr(c).isspace()]

# Look-alikes that JS `\s` or `trim()` treat differently: U+FEFF (BOM), U+200B, U+180E, U+0085, \x1c-\x1f.
strip_inputs = [
    "", " ", "abc", "  abc  ", "\t\n\v\f\r abc \r\n", "\x1c\x1d\x1e\x1fabc\x1f", "\x85abc\x85",
    "\xa0abc\u3000", "\u2000\u200aabc\u2028\u2029", "\u202f\u205fabc", "\ufeffabc\ufeff", "\u200babc\u200b",
    "\u180eabc\u180e", " \ufeff abc \ufeff ", "a b", "\U0001f600 \U0001f600", " \ud800 ", "\u1680x\u1680",
    " \n\x1c\ufeff", "\ufeff", "x\u0085",
]

truthy_inputs = [None, False, True, 0, 1, -1, 0.0, -0.0, 0.5, NAN, INF, -INF, "", " ", "0", "False",
                 [], [0], [None], {}, {"a": None}, {"": 0}]

int_inputs = [
    "1", " 1 ", "-0", "+5", "-12", "007", "1_000", "1__000", "_1", "1_", "١٢٣", "\U0001d7d9\U0001d7da",
    "٣", "1.0", "1e3", "0x10", "", " ", "+", "-", "\ufeff1", "1\ufeff", "\x1c1\x1f", "\x851\x85",
    "\u200b1", "\u30001\u3000", "\t\n42\r\n", "12345678901234567890", "1 2", "१२३", "٠_٠",
]

float_inputs = [
    "1", "1.5", " 1.5 ", "-0", "-0.0", "+.5", "5.", ".", "1e5", "1E-5", "1e", "e5", "nan", "NaN", "-nan",
    "+nan", "inf", "-inf", "Infinity", "-Infinity", "infinity", "iNf", "infinit", "1_000.000_1",
    "1__0.5", "1_.5", "1._5", "١.٥", "\ufeff1.0", "1.0\ufeff", "\x1c2.5\x1f", "\u00852.5", "\u200b2.5",
    "0x1p3", "", " ", "1e400", "-1e400", "1e-400", "2.5e-3", "12345678901234567890", "1,5",
]

dumps_inputs = [
    None, True, False, 0, -1, 1.5, -0.25, 1e16, 1.5e16, 1e-5, 1.234e-7, 0.1, 2.5e-3, 123456.789,
    1e22, 1.7976931348623157e308, 5e-324, NAN, INF, -INF, "", "a\"b\\c", "\n\t\r\x00\x1f\x7f",
    "é\u2028\u2029\U0001f600", "\ud800", "</script>", [], {}, [1, [2, [3]]], {"b": 1, "a": [None, True]},
    {"\U0001f600": 1, "\uffff": 2, "a": 3}, [NAN, {"x": -INF}],
]

repr_inputs = [
    None, True, False, 0, -7, 1.5, -0.25, 1e16, 1e-5, NAN, INF, -INF, "", "abc", "it's", 'say "hi"',
    "both ' and \"", "back\\slash", "\n\r\t", "\x00\x07\x1b\x7f", "\x85\xa0\xad", "é", "\u2028\u2029",
    "\u200b\ufeff", "\ud800", "\U0001f600", "\U000e0001", "\u3000", " ", [], {}, ["a", 1, None],
    {"k": "v", "n": [True, 1.5]}, [[["deep"]]],
]

loads_inputs = [
    "1", "[NaN, Infinity, -Infinity]", '{"a": NaN}', '"NaN"', '["Infinity", -Infinity]', '{"a": 1, "a": 2}',
    "nan", "-NaN", "+Infinity", "[1, 2,]", "{'a': 1}", '"\\ud800"', " [ 1 ] ", "Infinity", "-Infinity",
    '{"x": [NaN, {"y": "-Infinity"}]}', "[-Infinity1]", "NaNa", "1e400", "", '["a\\"NaN"]',
]


def repr_case(value):
    return {"repr": repr(value), "str": str(value)}


cases = {
    "python": sys.version.split()[0],
    "unicode": __import__("unicodedata").unidata_version,
    "whitespace": whitespace,
    "strip": [{"input": s, "strip": s.strip(), "lstrip": s.lstrip(), "rstrip": s.rstrip()} for s in strip_inputs],
    "truthy": [{"input": tag(v), "truthy": bool(v)} for v in truthy_inputs],
    "int": [{"input": s, "result": attempt(int, s)} for s in int_inputs],
    "float": [{"input": s, "result": attempt(float, s)} for s in float_inputs],
    "dumps": [{"input": tag(v), "dumps": json.dumps(v, ensure_ascii=False),
               "sorted": json.dumps(v, ensure_ascii=False, sort_keys=True)} for v in dumps_inputs],
    "repr": [dict(input=tag(v), **repr_case(v)) for v in repr_inputs],
    "loads": [{"input": s, "result": attempt(json.loads, s)} for s in loads_inputs],
}

json.dump(cases, sys.stdout, ensure_ascii=True, indent=1)
sys.stdout.write("\n")
