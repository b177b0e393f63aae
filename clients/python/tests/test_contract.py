"""Same contract, one source: the client against api/openapi.yaml, both ways.

Fails when an operation, parameter, schema property or enumeration value of
the OpenAPI document has no counterpart in the client (deskrun._contract and
the classes it names), or when the client names one the document lacks.
Needs no server.
"""

from __future__ import annotations

import importlib
import inspect
import pathlib
from typing import Any, Dict, Iterator, List, Set, Tuple

import pytest
import yaml

import deskrun
from deskrun import _contract
from deskrun._types import SCHEMAS

DOC_PATH = pathlib.Path(__file__).resolve().parents[3] / "api" / "openapi.yaml"
METHODS = ("get", "post", "put", "patch", "delete", "head", "options")


@pytest.fixture(scope="module")
def doc() -> Dict[str, Any]:
    with open(DOC_PATH) as f:
        return yaml.safe_load(f)  # type: ignore[no-any-return]


def operations(doc: Dict[str, Any]) -> Iterator[Tuple[str, str, str, Dict[str, Any], List[Any]]]:
    for path, item in doc["paths"].items():
        for m in METHODS:
            if m in item:
                yield item[m]["operationId"], m.upper(), path, item[m], item.get("parameters", []) + item[m].get("parameters", [])


def resolve(doc: Dict[str, Any], v: Any) -> Any:
    while isinstance(v, dict) and "$ref" in v:
        node: Any = doc
        for part in v["$ref"].lstrip("#/").split("/"):
            node = node[part]
        v = node
    return v


def method(qual: str, sync: bool) -> Any:
    cls, _, name = qual.partition(".")
    c = getattr(deskrun, cls if sync else "Async" + cls)
    assert hasattr(c, name), f"{c.__name__} has no method {name}"
    return getattr(c, name)


def keywords(qual: str) -> Set[str]:
    """The parameter names of a method, the same on both clients."""
    out = []
    for sync in (True, False):
        out.append({p for p in inspect.signature(method(qual, sync)).parameters if p != "self"})
    assert out[0] == out[1], f"{qual}: the clients' parameters differ: {out[0] ^ out[1]}"
    return out[0]


def test_every_operation_is_implemented_or_left_out_with_a_reason(doc: Dict[str, Any]) -> None:
    seen = set()
    for op, m, path, _, _ in operations(doc):
        seen.add(op)
        if op in _contract.LEFT_OUT:
            continue
        assert op in _contract.OPERATIONS, f"{m} {path} ({op}) has no counterpart in deskrun._contract.OPERATIONS"
        assert _contract.OPERATIONS[op][:2] == (m, path), f"{op}: the table says {_contract.OPERATIONS[op][:2]}, the document {m} {path}"
    for op in list(_contract.OPERATIONS) + list(_contract.LEFT_OUT):
        assert op in seen, f"deskrun._contract names {op}, which api/openapi.yaml does not have"


@pytest.mark.parametrize("op", sorted(_contract.OPERATIONS))
def test_the_named_method_exists_on_both_clients(op: str) -> None:
    qual = _contract.OPERATIONS[op][2]
    for sync in (True, False):
        m = method(qual, sync)
        assert m.__doc__, f"{qual} has no docstring"
    keywords(qual)


def test_parameters(doc: Dict[str, Any]) -> None:
    for op, m, path, _, params in operations(doc):
        if op in _contract.LEFT_OUT:
            continue
        names = {resolve(doc, p)["name"] for p in params}
        table = _contract.PARAMS.get(op, {})
        for n in names:
            if op not in _contract.PARAMS:
                assert n in ("id", "ticket"), f"{op}: parameter {n} has no counterpart in deskrun._contract.PARAMS"
                continue
            assert n in table, f"{op}: parameter {n} has no counterpart in deskrun._contract.PARAMS"
        for n, kw in table.items():
            assert n in names, f"deskrun._contract.PARAMS names {op}'s parameter {n}, which the document does not have"
            if kw:
                assert kw in keywords(_contract.OPERATIONS[op][2]), f"{op}: {_contract.OPERATIONS[op][2]} takes no {kw} (parameter {n})"


def properties(doc: Dict[str, Any], schema: Dict[str, Any]) -> Set[str]:
    s = resolve(doc, schema)
    return set((s.get("properties") or {}).keys())


def test_every_schema_has_a_counterpart(doc: Dict[str, Any]) -> None:
    schemas = doc["components"]["schemas"]
    covered = set(SCHEMAS) | set(_contract.REQUESTS) | set(_contract.LEFT_OUT_SCHEMAS)
    for name in schemas:
        assert name in covered, f"schema {name} has no counterpart in the client (deskrun._types.SCHEMAS, deskrun._contract.REQUESTS or LEFT_OUT_SCHEMAS)"
    for name in covered:
        assert name in schemas, f"the client names schema {name}, which api/openapi.yaml does not have"


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_wire_class_fields_are_the_schema_properties(doc: Dict[str, Any], name: str) -> None:
    props = properties(doc, doc["components"]["schemas"][name])
    fields = set(SCHEMAS[name].json_names().values())
    assert props - fields == set(), f"{SCHEMAS[name].__name__} lacks {name}'s properties {sorted(props - fields)}"
    assert fields - props == set(), f"{SCHEMAS[name].__name__} has fields {sorted(fields - props)} that {name} lacks"


@pytest.mark.parametrize("name", sorted(_contract.REQUESTS))
def test_request_keywords_are_the_schema_properties(doc: Dict[str, Any], name: str) -> None:
    qual, renames = _contract.REQUESTS[name]
    props = properties(doc, doc["components"]["schemas"][name])
    want = {renames.get(p, p) for p in props}
    # What is not the body's: the call's own timeout, check, and the path's window id.
    kws = keywords(qual) - {"timeout", "check", "wid"} | ({"timeout"} if "timeout" in want else set())
    assert want - kws == set(), f"{qual} takes no keywords for {name}'s {sorted(want - kws)}"
    assert kws - want == set(), f"{qual} takes {sorted(kws - want)}, which {name} lacks"


def test_actions(doc: Dict[str, Any]) -> None:
    variants = {v["title"]: v for v in doc["components"]["schemas"]["Action"]["oneOf"]}
    assert set(variants) == set(_contract.ACTIONS), f"actions: document {sorted(variants)}, client {sorted(_contract.ACTIONS)}"
    renames = {"keys": "keys", "key": "key"}
    for title, qual in _contract.ACTIONS.items():
        props = set(variants[title]["properties"]) - {"type"}
        kws = keywords(qual)
        for p in props:
            assert renames.get(p, p) in kws, f"action {title}: {qual} takes no {p}"


def test_enums(doc: Dict[str, Any]) -> None:
    schemas = doc["components"]["schemas"]
    for where, holder in _contract.ENUMS.items():
        sname, _, prop = where.partition(".")
        s = schemas[sname]
        values = (s["properties"][prop] if prop else s)["enum"]
        mod, _, attr = holder.rpartition(".")
        have = getattr(importlib.import_module(mod), attr)
        missing = [v for v in values if v not in have and not (where == "ErrorDetail.code" and v in deskrun.ERRORS)]
        assert not missing, f"{where}: {missing} have no counterpart in {holder}"


def test_everything_public_has_a_docstring() -> None:
    missing = []
    for name in deskrun.__all__:
        obj = getattr(deskrun, name)
        if not inspect.getdoc(obj):
            missing.append(name)
        if inspect.isclass(obj):
            for n, f in vars(obj).items():
                if n.startswith("_"):
                    continue
                doc = f.fget.__doc__ if isinstance(f, property) else getattr(f, "__doc__", "x") if callable(f) else "x"
                if not doc:
                    missing.append(f"{name}.{n}")
    assert not missing, f"no docstring: {missing}"
