#!/usr/bin/env bash
# Validates the OpenAPI document the server serves at /openapi.json.
#
#   scripts/validate-openapi.sh [PATH]     # default: Sources/SectionalService/Resources/openapi.json
#
# 1. openapi-spec-validator: the document is valid OpenAPI 3.1 (structure, $refs, JSON Schema 2020-12).
# 2. Every `example`/`examples` value in a schema, parameter, header or media type conforms to its schema
#    (the validator does not check examples, and wrong examples mislead clients and schemathesis alike).
# 3. Every operation has an operationId, a summary, tags, and a `default` problem answer.
# Uses the virtualenv at .venv (scripts/ensure-venv.sh: pinned tools, created when missing). Exits non-zero on any failure.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
doc="${1:-$root/Sources/SectionalService/Resources/openapi.json}"
venv="$root/.venv"

"$root/scripts/ensure-venv.sh"

"$venv/bin/openapi-spec-validator" "$doc"

"$venv/bin/python" - "$doc" <<'PY'
import json
import sys

from jsonschema import Draft202012Validator, FormatChecker
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

path = sys.argv[1]
with open(path, encoding="utf-8") as f:
    text = f.read()
doc = json.loads(text)
if json.dumps(doc, indent=2, ensure_ascii=False) + "\n" != text:
    sys.exit(f"{path}: not pretty-printed with a 2-space indent (json.dumps(indent=2) + newline)")
if doc.get("openapi") != "3.1.0":
    sys.exit(f"{path}: openapi must be 3.1.0, not {doc.get('openapi')!r}")

BASE = "urn:sectional:openapi"
registry = Registry().with_resource(BASE, Resource(contents=doc, specification=DRAFT202012))
components = doc.get("components", {})


def deref(node):
    while isinstance(node, dict) and "$ref" in node:
        pointer = node["$ref"]
        assert pointer.startswith("#/"), pointer
        node = doc
        for part in pointer[2:].split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def check(schema, value, where, errors):
    """Validate one example against its (rebased) schema, with formats checked."""
    validator = Draft202012Validator(schema, registry=registry, format_checker=FormatChecker())
    for error in validator.iter_errors(value):
        location = "/".join(str(p) for p in error.absolute_path) or "(root)"
        errors.append(f"{where}: example at {location}: {error.message}")


def rebase(schema):
    """Make '#/components/…' refs absolute so they resolve against the registered document."""
    if isinstance(schema, dict):
        return {k: (BASE + v if k == "$ref" and isinstance(v, str) and v.startswith("#/") else rebase(v))
                for k, v in schema.items()}
    if isinstance(schema, list):
        return [rebase(v) for v in schema]
    return schema


errors = []
checked = 0


def check_holder(holder, where):
    """holder: a parameter, header or media type object with `schema` and example(s)."""
    global checked
    holder = deref(holder)
    schema = holder.get("schema")
    if schema is None:
        return
    schema = rebase(schema)
    if "example" in holder:
        check(schema, holder["example"], where, errors)
        checked += 1
    for name, example in (holder.get("examples") or {}).items():
        example = deref(example)
        if "value" in example:
            check(schema, example["value"], f"{where} examples/{name}", errors)
            checked += 1


for name, schema in components.get("schemas", {}).items():
    for key in ("example",):
        if key in schema:
            check(rebase(schema), schema[key], f"components/schemas/{name}", errors)
            checked += 1
    for i, example in enumerate(schema.get("examples", []) if isinstance(schema.get("examples"), list) else []):
        check(rebase(schema), example, f"components/schemas/{name} examples[{i}]", errors)
        checked += 1
for kind in ("parameters", "headers"):
    for name, holder in components.get(kind, {}).items():
        check_holder(holder, f"components/{kind}/{name}")

methods = {"get", "put", "post", "delete", "patch", "head", "options", "trace"}
operation_ids = set()
operations = 0
for route, item in doc["paths"].items():
    for p in item.get("parameters", []):
        check_holder(p, f"{route} parameter")
    for method, operation in item.items():
        if method not in methods:
            continue
        operations += 1
        label = f"{method.upper()} {route}"
        for field in ("operationId", "summary", "tags"):
            if not operation.get(field):
                errors.append(f"{label}: no {field}")
        if operation.get("operationId") in operation_ids:
            errors.append(f"{label}: duplicate operationId {operation['operationId']}")
        operation_ids.add(operation.get("operationId"))
        if "default" not in operation.get("responses", {}):
            errors.append(f"{label}: no default (problem) answer")
        for p in operation.get("parameters", []):
            check_holder(p, f"{label} parameter {deref(p).get('name')}")
        body = deref(operation.get("requestBody", {}))
        for media, holder in body.get("content", {}).items():
            check_holder(holder, f"{label} request {media}")
        for status, answer in operation.get("responses", {}).items():
            answer = deref(answer)
            for media, holder in answer.get("content", {}).items():
                check_holder(holder, f"{label} {status} {media}")
            for name, header in answer.get("headers", {}).items():
                check_holder(header, f"{label} {status} header {name}")

if errors:
    print("\n".join(errors), file=sys.stderr)
    sys.exit(f"{path}: {len(errors)} problem(s)")
print(f"{path}: {operations} operations, {checked} examples conform to their schemas")
PY
