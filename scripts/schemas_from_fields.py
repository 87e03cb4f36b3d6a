#!/usr/bin/env python3
"""schemas_from_fields.py — the workload parts of the JSON Schemas come from the field table.

schema/workload.schema.json's "properties", "required" and "allOf", and schema/stack.schema.json's
"defaults" properties, are what `trnsim fields --format schema` prints (models/lib/workload_fields.cpp);
the files' other keys (title, $id, the stack profile's own fields) are kept as they are.

usage: schemas_from_fields.py TRNSIM ROOT [--check]
  --check: change nothing; exit 1 naming each part of a schema file that differs from the table
           (a ctest: the schemas cannot drift from the reader, as parallel.cp once did).
"""
import json
import os
import subprocess
import sys


def differences(have, want, where):
    """The JSON paths under `where` at which two values differ (a missing key counts)."""
    if isinstance(have, dict) and isinstance(want, dict):
        out = []
        for key in list(want) + [k for k in have if k not in want]:
            out += differences(have.get(key), want.get(key), f"{where}/{key}")
        return out
    return [] if have == want else [where]


def main():
    args = [a for a in sys.argv[1:] if a != "--check"]
    check = "--check" in sys.argv[1:]
    if len(args) != 2:
        sys.exit(__doc__)
    trnsim, root = args
    made = json.loads(subprocess.run([trnsim, "fields", "--format", "schema"], check=True, capture_output=True,
                                     text=True).stdout)
    problems = []

    def settle(path, doc, parts):
        for where, want in parts:
            node = doc
            for key in where[:-1]:
                node = node[key]
            if node.get(where[-1]) != want:
                if check:
                    paths = differences(node.get(where[-1]), want, "/" + "/".join(where))
                    problems.append(f"{os.path.relpath(path, root)}: {', '.join(paths[:5])} differ from `trnsim fields "
                                    f"--format schema`; run scripts/schemas_from_fields.py {trnsim} {root} (the table in "
                                    "models/lib/workload_fields.cpp is the declaration)")
                node[where[-1]] = want
        if not check:
            with open(path + ".tmp", "w") as out:
                json.dump(doc, out, indent=2, ensure_ascii=False)
                out.write("\n")
            os.replace(path + ".tmp", path)

    workload = os.path.join(root, "schema", "workload.schema.json")
    doc = json.load(open(workload))
    settle(workload, doc, [(["properties"], made["properties"]), (["required"], made["required"]),
                           (["allOf"], made["allOf"])])
    stack = os.path.join(root, "schema", "stack.schema.json")
    doc = json.load(open(stack))
    settle(stack, doc, [(["properties", "defaults", "properties"], made["stack_defaults"])])
    for p in problems:
        print(p, file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
