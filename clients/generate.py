"""Generate the typed clients from Mnemos's OpenAPI document.

    .venv/bin/python clients/generate.py            # from clients/openapi.json
    .venv/bin/python clients/generate.py --refresh  # first write clients/openapi.json from the code

Writes ``clients/python/mnemos_client/models.py`` (a TypedDict per schema component), ``_generated.py``
(one method per operation on the sync and async clients, the operations table) and
``clients/typescript/src/operations.ts`` (the table the TypeScript client retries and keys writes by),
then, where npm is installed, runs ``npm run generate`` in clients/typescript (openapi-typescript's
``src/schema.ts``).
``tests/clients/`` fails when any of them disagrees with the document the running code serves.
"""

from __future__ import annotations

import argparse
import json
import keyword
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CLIENTS = Path(__file__).resolve().parent
ROOT = CLIENTS.parent
DOCUMENT = CLIENTS / "openapi.json"
PYTHON_OUT = CLIENTS / "python" / "mnemos_client" / "_generated.py"
MODELS_OUT = CLIENTS / "python" / "mnemos_client" / "models.py"
TYPESCRIPT_OUT = CLIENTS / "typescript" / "src" / "operations.ts"
REF_PREFIX = "#/components/schemas/"
HTTP_METHODS = ("get", "put", "post", "patch", "delete")
IDEMPOTENCY_HEADER = "X-Idempotency-Key"
# Names an integrator reads better than drf-spectacular's; every other method is its operation id
# without the "tool_" prefix.
METHOD_NAMES = {
    "whoami_retrieve": "whoami",
    "audit_events_retrieve": "audit_events_get",
    "guard_check_create": "guard_check",
    "guard_reports_create": "guard_report",
    "guard_settings_retrieve": "guard_settings_get",
    "guard_settings_update": "guard_settings_update",
    "imports_retrieve": "imports_list",
    "imports_retrieve_2": "imports_get",
    "imports_create": "imports_request",
    "tasks_runs_create": "task_run_start",
    "tasks_runs_finish_create": "task_run_finish",
    "tool_save_memories_post_route": "memories_batch",
    "tool_memory_ask_get_route": "task_memory_ask",
    "tool_memory_train_post_route": "task_memory_train",
}
SCALARS = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}
RESERVED = {"Any", "IO", "Literal", "Required", "TypeAlias", "TypedDict", "Unpack", "Operation", "Upload"}


@dataclass(frozen=True)
class Parameter:
    name: str
    python_name: str
    annotation: str
    required: bool


@dataclass(frozen=True)
class Operation:
    operation_id: str
    method_name: str
    http_method: str
    path: str
    summary: str
    path_parameters: tuple[Parameter, ...]
    query_parameters: tuple[Parameter, ...]
    body_schema: str | None  # the request body's component (application/json)
    form_fields: tuple[Parameter, ...]  # multipart/form-data
    returns: str
    idempotency_key: bool
    retry_safe: bool  # a repeat cannot do the work twice: a read, a PUT, or a write keyed for idempotency


def python_type(schema: dict[str, Any]) -> str:
    if "$ref" in schema:
        return str(schema["$ref"]).removeprefix(REF_PREFIX)
    for combinator in ("anyOf", "oneOf", "allOf"):
        if combinator in schema:
            if combinator == "allOf" and len(schema["allOf"]) != 1:
                return "Any"
            return _union(python_type(branch) for branch in schema[combinator])
    if "const" in schema:
        return f"Literal[{schema['const']!r}]"
    if "enum" in schema:
        values = [v for v in schema["enum"] if v is not None]
        literal = f"Literal[{', '.join(repr(v) for v in values)}]" if values else "None"
        return _union([literal, "None"]) if None in schema["enum"] else literal
    kind = schema.get("type")
    if isinstance(kind, list):
        return _union(python_type({**schema, "type": k}) for k in kind)
    if kind in SCALARS:
        return SCALARS[kind]
    if kind == "array":
        return f"list[{python_type(schema['items'])}]" if "items" in schema else "list[Any]"
    if kind == "object" and isinstance(schema.get("additionalProperties"), dict):
        return f"dict[str, {python_type(schema['additionalProperties'])}]"
    if kind == "object":
        return "dict[str, Any]"
    return "Any"


def _union(parts: Any) -> str:
    unique: list[str] = []
    for part in parts:
        for piece in _top_level_pieces(part):
            if piece not in unique:
                unique.append(piece)
    if "Any" in unique:
        return "Any"
    # None last, as a reader writes it.
    unique.sort(key=lambda p: p == "None")
    return " | ".join(unique)


def _top_level_pieces(annotation: str) -> list[str]:
    """``list[A | B] | None`` -> ``["list[A | B]", "None"]``."""
    pieces, depth, start = [], 0, 0
    for i, char in enumerate(annotation):
        depth += {"[": 1, "]": -1}.get(char, 0)
        if depth == 0 and annotation.startswith(" | ", i):
            pieces.append(annotation[start:i])
            start = i + 3
    pieces.append(annotation[start:])
    return pieces


def _identifier(name: str) -> str:
    if not name.isidentifier() or keyword.iskeyword(name):
        raise ValueError(f"{name!r} is not a Python identifier: give it a name in clients/generate.py")
    return name


def _docstring(text: str) -> str:
    line = " ".join(text.split()).replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    return line if not line.endswith('"') else line + " "


def operations(document: dict[str, Any]) -> list[Operation]:
    found: list[Operation] = []
    for path, item in document["paths"].items():
        for http_method in HTTP_METHODS:
            if http_method not in item:
                continue
            op = item[http_method]
            operation_id = op["operationId"]
            parameters = [p for p in op.get("parameters", [])]
            path_parameters = tuple(
                Parameter(p["name"], _identifier(p["name"]), "str", True)
                for p in parameters
                if p["in"] == "path"
            )
            query_parameters = tuple(
                Parameter(
                    p["name"], _identifier(p["name"]), python_type(p["schema"]), bool(p.get("required"))
                )
                for p in parameters
                if p["in"] == "query"
            )
            idempotency_key = any(p["in"] == "header" and p["name"] == IDEMPOTENCY_HEADER for p in parameters)
            content = op.get("requestBody", {}).get("content", {})
            body_schema: str | None = None
            form_fields: tuple[Parameter, ...] = ()
            if "application/json" in content:
                body_schema = python_type(content["application/json"]["schema"])
            elif "multipart/form-data" in content:
                form = document["components"]["schemas"][
                    python_type(content["multipart/form-data"]["schema"])
                ]
                required = set(form.get("required", []))
                form_fields = tuple(
                    Parameter(
                        name,
                        _identifier(name),
                        "Upload" if name == "file" else python_type(field),
                        name in required,
                    )
                    for name, field in form["properties"].items()
                )
            success = [code for code in op["responses"] if code.startswith("2")]
            returns = "None"
            if success:
                schema = (
                    op["responses"][success[0]].get("content", {}).get("application/json", {}).get("schema")
                )
                returns = python_type(schema) if schema else "None"
            read_only = http_method == "get" or bool(op.get("x-read-only"))
            found.append(
                Operation(
                    operation_id=operation_id,
                    method_name=METHOD_NAMES.get(operation_id, operation_id.removeprefix("tool_")).replace(
                        ".", "_"
                    ),
                    http_method=http_method.upper(),
                    path=path,
                    summary=op.get("summary", ""),
                    path_parameters=path_parameters,
                    query_parameters=query_parameters,
                    body_schema=body_schema,
                    form_fields=form_fields,
                    returns=returns,
                    idempotency_key=idempotency_key,
                    retry_safe=read_only or http_method == "put" or idempotency_key,
                )
            )
    names = [o.method_name for o in found]
    duplicates = {n for n in names if names.count(n) > 1}
    if duplicates:
        raise ValueError(f"two operations would share the method name(s) {sorted(duplicates)}: name them")
    return sorted(found, key=lambda o: o.method_name)


def _models(document: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    for name, schema in sorted(document["components"]["schemas"].items()):
        if name in RESERVED:
            raise ValueError(f"schema component {name!r} clashes with a name the module imports")
        if schema.get("type") == "object" and "properties" in schema:
            required = set(schema.get("required", []))
            lines += ["", "", f"class {_identifier(name)}(TypedDict, total=False):"]
            if schema.get("description"):
                lines.append(f'    """{_docstring(schema["description"])}"""')
                lines.append("")
            for field_name, field in schema["properties"].items():
                # Quoted (forward references), with Required outside the quotes: TypedDict reads
                # Required at run time (__required_keys__) only when it is not inside a string.
                annotation = f'"{python_type(field)}"'
                if field_name in required:
                    annotation = f"Required[{annotation}]"
                lines.append(f"    {_identifier(field_name)}: {annotation}")
        else:
            lines += ["", "", f'{_identifier(name)}: TypeAlias = "{python_type(schema)}"']
    return lines


def _signature(op: Operation, *, is_async: bool) -> list[str]:
    arguments = ["self"]
    arguments += [f"{p.python_name}: str" for p in op.path_parameters]
    keyword_only: list[str] = []
    for p in (*op.query_parameters, *op.form_fields):
        keyword_only.append(
            f"{p.python_name}: {p.annotation}"
            if p.required
            else f"{p.python_name}: {p.annotation} | None = None"
        )
    if op.idempotency_key:
        keyword_only.append("idempotency_key: str | None = None")
    if keyword_only:
        arguments.append("*")
    arguments += keyword_only
    if op.body_schema:
        arguments.append(f"**body: Unpack[{op.body_schema}]")
    prefix = "async def" if is_async else "def"
    return [f"    {prefix} {op.method_name}({', '.join(arguments)}) -> {op.returns}:"]


def _method(op: Operation, *, is_async: bool) -> list[str]:
    lines = ["", *_signature(op, is_async=is_async)]
    lines.append(f'        """{_docstring(op.summary or op.operation_id)} ({op.http_method} {op.path})"""')
    call = [f"OPERATIONS[{op.method_name!r}]"]
    if op.path_parameters:
        call.append("path={" + ", ".join(f"{p.name!r}: {p.python_name}" for p in op.path_parameters) + "}")
    if op.query_parameters:
        call.append("query={" + ", ".join(f"{p.name!r}: {p.python_name}" for p in op.query_parameters) + "}")
    if op.form_fields:
        call.append("form={" + ", ".join(f"{p.name!r}: {p.python_name}" for p in op.form_fields) + "}")
    if op.body_schema:
        call.append("json=dict(body)")
    if op.idempotency_key:
        call.append("idempotency_key=idempotency_key")
    awaited = "await " if is_async else ""
    result = f"{awaited}self._call({', '.join(call)})"
    lines.append(
        f"        return cast({op.returns!r}, {result})" if op.returns != "None" else f"        {result}"
    )
    return lines


def models_module(document: dict[str, Any]) -> str:
    """A TypedDict per object schema, an alias per other schema. No ``from __future__ import annotations``
    here: TypedDict must see ``Required`` at run time."""
    lines = [
        '"""Generated by clients/generate.py from clients/openapi.json. Do not edit by hand.',
        "",
        "The API's schemas: a TypedDict for each object (what a method takes and returns), an alias for the rest.",
        '"""',
        "",
        "from typing import Any, Literal, Required, TypeAlias, TypedDict",
        "",
        f"API_VERSION = {document['info']['version']!r}",
    ]
    lines += _models(document)
    return _ruff_format("\n".join(lines) + "\n", MODELS_OUT)


def python_module(document: dict[str, Any]) -> str:
    ops = operations(document)
    annotations = [
        annotation
        for op in ops
        for annotation in (
            op.body_schema or "",
            op.returns,
            *(p.annotation for p in (*op.query_parameters, *op.form_fields)),
        )
    ]
    names = {name for annotation in annotations for name in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", annotation)}
    used = sorted(names & set(document["components"]["schemas"]))
    typing = sorted({"Unpack", "cast"} | (names & {"Any", "Literal"}))
    lines = [
        '"""Generated by clients/generate.py from clients/openapi.json. Do not edit by hand."""',
        "",
        "from __future__ import annotations",
        "",
        f"from typing import {', '.join(typing)}",
        "",
        "from mnemos_client._transport import AsyncTransport, Operation, SyncTransport, Upload",
        f"from mnemos_client.models import {', '.join(used)}",
    ]
    lines += ["", "OPERATIONS: dict[str, Operation] = {"]
    for op in ops:
        fields = ", ".join(
            [
                f"operation_id={op.operation_id!r}",
                f"method={op.http_method!r}",
                f"path={op.path!r}",
                f"query={tuple(p.name for p in op.query_parameters)!r}",
                f"body={op.body_schema!r}",
                f"form={tuple(p.name for p in op.form_fields)!r}",
                f"idempotency_key={op.idempotency_key!r}",
                f"retry_safe={op.retry_safe!r}",
            ]
        )
        lines.append(f"    {op.method_name!r}: Operation({fields}),")
    lines.append("}")
    for class_name, base, is_async in (
        ("SyncOperations", "SyncTransport", False),
        ("AsyncOperations", "AsyncTransport", True),
    ):
        lines += ["", "", f"class {class_name}({base}):"]
        lines.append(
            f'    """One method per operation of the Mnemos API ({"async" if is_async else "sync"})."""'
        )
        for op in ops:
            lines += _method(op, is_async=is_async)
    return _ruff_format("\n".join(lines) + "\n", PYTHON_OUT)


def _ruff_format(source: str, path: Path) -> str:
    """The committed module is what ruff format (the project's pinned version) makes of it."""
    ruff = Path(sys.executable).parent / "ruff"
    command = [str(ruff) if ruff.exists() else (shutil.which("ruff") or "ruff")]
    done = subprocess.run(
        [*command, "format", "--stdin-filename", str(path), "-"],
        input=source,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    if done.returncode:
        raise RuntimeError(f"ruff format refused the generated {path.name}:\n{done.stderr}")
    return done.stdout


def typescript_module(document: dict[str, Any]) -> str:
    table = {
        f"{op.http_method} {op.path}": {
            "operationId": op.operation_id,
            "idempotencyKey": op.idempotency_key,
            "retrySafe": op.retry_safe,
        }
        for op in sorted(operations(document), key=lambda o: (o.path, o.http_method))
    }
    body = json.dumps(table, indent=2)
    return (
        "// Generated by clients/generate.py from clients/openapi.json. Do not edit by hand.\n"
        "\n"
        "export interface OperationInfo {\n"
        "  operationId: string;\n"
        "  /** The operation takes X-Idempotency-Key: the client sends one with every call. */\n"
        "  idempotencyKey: boolean;\n"
        "  /** A repeat cannot do the work twice: retried on any 5xx, not only 429 and 503. */\n"
        "  retrySafe: boolean;\n"
        "}\n"
        "\n"
        f"export const API_VERSION = {json.dumps(document['info']['version'])};\n"
        "\n"
        "/** Every operation of the API by `METHOD path` (the path as the document writes it). */\n"
        f"export const OPERATIONS: Record<string, OperationInfo> = {body};\n"
    )


def refresh_document() -> None:
    """clients/openapi.json from the code, as /v1/schema/?format=json serves it."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": os.environ.get("DJANGO_SETTINGS_MODULE", "config.settings"),
    }
    subprocess.run(
        [sys.executable, "manage.py", "spectacular", "--format", "openapi-json", "--file", str(DOCUMENT)],
        cwd=ROOT,
        env=env,
        check=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--refresh", action="store_true", help="write clients/openapi.json from the code first"
    )
    options = parser.parse_args()
    if options.refresh:
        refresh_document()
    document = json.loads(DOCUMENT.read_text())
    MODELS_OUT.write_text(models_module(document))
    PYTHON_OUT.write_text(python_module(document))
    TYPESCRIPT_OUT.write_text(typescript_module(document))
    npm = shutil.which("npm")
    if npm is None:
        print("npm is not installed: run `npm run generate` in clients/typescript to refresh src/schema.d.ts")
        return
    subprocess.run([npm, "run", "--silent", "generate"], cwd=CLIENTS / "typescript", check=True)


if __name__ == "__main__":
    main()
