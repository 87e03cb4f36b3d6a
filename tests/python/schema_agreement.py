#!/usr/bin/env python3
"""schema_agreement.py — the JSON Schemas (schema/*.schema.json, draft 2020-12) and trnsim's
strict loader agree (issue 17; stack profiles since issue 25):
  * each schema is a valid 2020-12 schema, and every field has a description (and numbers a unit);
  * every shipped hw / model / workload / stack file validates against its schema, and the loader accepts it;
  * every field the loader knows in a section (its "known here" list for an unknown probe key put
    in each object of each shipped file) is listed in the schema for that section;
  * every file in tests/bad/ that the loader rejects for a structural reason (unknown field, wrong
    type, out of range, unknown value, missing field, a path instead of a name) is rejected by the
    schema too. Cross-field rules (tp x pp x dp = cores, divisibility, memory) are the loader's alone,
    as are JSON-syntax errors (malformed text, duplicate keys, numbers beyond double range).
usage: schema_agreement.py TRNSIM ROOT
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from jsonschema import Draft202012Validator

trnsim, root = sys.argv[1], sys.argv[2]
STRUCTURAL = ("unknown field", "expected ", "out of range", "unknown value", "missing required field", "is not a name")
SYNTAX = ("malformed JSON", "unreadable JSON value", "duplicate key")
schemas = {}
for kind in ("hw", "model", "workload", "stack"):
    s = json.load(open(os.path.join(root, "schema", kind + ".schema.json")))
    Draft202012Validator.check_schema(s)
    schemas[kind] = Draft202012Validator(s)

def walk(node, where):
    """Every property carries a description; every number and integer names its unit."""
    for name, p in node.get("properties", {}).items():
        if not isinstance(p, dict):
            continue
        assert p.get("description"), f"{where}/{name}: no description"
        if p.get("type") in ("number", "integer"):
            assert "x-unit" in p and "Unit:" in p["description"], f"{where}/{name}: no unit"
        walk(p, f"{where}/{name}")

for kind, v in schemas.items():
    walk(v.schema, kind)

def kind_of(path):
    base = os.path.basename(path)
    if path.startswith(os.path.join(root, "hw")) or base.startswith("hw_"):
        return "hw"
    if path.startswith(os.path.join(root, "models")) or base.startswith("model_"):
        return "model"
    if path.startswith(os.path.join(root, "stacks")) or base.startswith("stack_"):
        return "stack"
    return "workload"

failures = []
shipped = sorted(glob.glob(f"{root}/hw/*.json") + glob.glob(f"{root}/models/*.json") + glob.glob(f"{root}/workloads/*.json")
                 + glob.glob(f"{root}/stacks/*.json"))
for f in shipped:
    errors = [e.message for e in schemas[kind_of(f)].iter_errors(json.load(open(f)))]
    if errors:
        failures.append(f"{f}: shipped file rejected by the {kind_of(f)} schema: {errors[:2]}")
loader = subprocess.run([trnsim, "validate", *shipped], capture_output=True, text=True)
if loader.returncode != 0:
    failures.append("the loader rejects shipped files:\n" + loader.stdout)

# Every field the loader knows in a section is in the schema's properties for it: an unknown probe
# key in each object of each shipped file makes the loader list the section's known fields.
def objects(doc, path=()):
    yield path
    for k, v in doc.items():
        if isinstance(v, dict) and len(path) < 2:
            yield from objects(v, path + (k,))

probe_dir = tempfile.mkdtemp(prefix="trnsim-schema-")
probes = {}
for f in shipped:
    doc = json.load(open(f))
    for path in objects(doc):
        d = json.loads(json.dumps(doc))
        node = d
        for k in path:
            node = node[k]
        node["zz_probe"] = 1
        name = os.path.join(probe_dir, f"{len(probes)}.json")
        json.dump(d, open(name, "w"))
        probes[name] = (kind_of(f), path, f)
out = subprocess.run([trnsim, "validate", *probes], capture_output=True, text=True).stdout
known_checked = 0
for line in out.splitlines():
    m = re.match(r"FAIL (\S+): (\S*)/zz_probe: unknown field .*\(known here: (.*)\)$", line)
    if not m or m.group(1) not in probes:
        continue
    kind, path, f = probes[m.group(1)]
    node = schemas[kind].schema
    for k in path:
        node = node.get("properties", {}).get(k, {})
    props = set(node.get("properties", {}))
    for key in (k.strip() for k in m.group(3).split(",")):
        known_checked += 1
        if key not in props:
            failures.append(f"{kind} field /{'/'.join(path + (key,))}: the loader reads it (seen probing {os.path.relpath(f, root)}) "
                            f"but the {kind} schema does not list it")
shutil.rmtree(probe_dir)
failures = sorted(set(failures))

expected = {}
for line in open(os.path.join(root, "tests", "bad", "EXPECTED.tsv")):
    if line.strip() and not line.startswith("#"):
        name, fragment = line.rstrip("\n").split("\t", 1)
        expected[name] = fragment
structural = 0
for name, fragment in sorted(expected.items()):
    path = os.path.join(root, "tests", "bad", name)
    out = subprocess.run([trnsim, "validate", path], capture_output=True, text=True)
    if out.returncode == 0 or fragment not in out.stdout:
        failures.append(f"{name}: the loader did not reject it with '{fragment}': {out.stdout.strip()}")
    if not any(s in out.stdout for s in STRUCTURAL) or any(s in out.stdout for s in SYNTAX):  # the loader says why
        continue
    structural += 1
    if not list(schemas[kind_of(path)].iter_errors(json.load(open(path)))):
        failures.append(f"{name}: the loader rejects it ({out.stdout.strip()}) but the {kind_of(path)} schema accepts it")

print(f"{len(shipped)} shipped files valid under the schemas; {known_checked} loader fields found in the schemas; "
      f"{structural} structurally bad files rejected by both")
if failures:
    print("\n".join(failures))
    sys.exit(1)
assert structural >= 16, structural  # as many as tests/bad has today
