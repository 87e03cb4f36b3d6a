#!/usr/bin/env python3
"""mutate.py — seeded mutation test of the whole `trnsim` binary on hostile and careless input.

Why: the libFuzzer harnesses (tests/fuzz/*.cpp) drive the loaders in process; this drives the
binary as a user does, over every file kind (workload, model, hw, stack, study, prices) and the
option strings that edit them (--set, --vs, --axes), so a crash, hang or lost output anywhere
between argv and the written file is caught. Each case is generated from a seed, so a failure
names a case that reproduces (`mutate.py TRNSIM --seed S --only K`).

A case passes when trnsim exits 0, 1 or 2 within the time-out, prints no sanitizer report, and,
when it failed, leaves no output file or temporary behind.
usage: mutate.py TRNSIM [--cases N] [--seed S] [--jobs J] [--timeout SECONDS] [--only K]
Run from the source root.
"""
import argparse
import concurrent.futures
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

SEEDS = {
    "workload": ["workloads/llama7b_tp8_dp512.json", "workloads/qwen3_30b_a3b_gb200_ep8.json",
                 "workloads/torchneuron_llama3.1_8b_trn2_tp4_fsdp16.json"],
    "model": ["models/llama2-7b.json", "models/deepseek-v3.json", "models/nemotron-3-nano.json"],
    "hw": ["hw/trn1.32xlarge.json", "hw/dgx-h100.json", "hw/gb200-nvl72.json"],
    "stack": ["stacks/torchtitan.json", "stacks/nemo.json"],
    "study": ["studies/r3-2023.json"],
    "prices": ["prices/aws-2023.json"],
    "table": ["data/validation/nccl_tests_p5_efa.csv"],  # a measured collective table (CSV)
}
SETS = ["parallel.tp", "parallel.pp", "parallel.dp", "parallel.cp", "parallel.ep", "parallel.virtual_stages",
        "batch.micro_batch", "batch.global_batch", "nodes", "precision", "stack", "attention", "model", "hw",
        "parallel.zero", "checkpointing", "lnc", "execution", "moe_load_imbalance", "parallel.sequence_parallel"]
HW_SETS = ["cluster.node_spread", "cluster.source", "collectives.inter_algorithm", "collectives.inter_bandwidth_fraction",
           "inter_node.nic_Gbps_per_node", "hbm.bandwidth_GBps_per_chip"]
ALGORITHMS = ["ring+hierarchical", "ring+pipelined", "ring+ring", "+", "hierarchical+", "ring", "pipelined"]
AXES = ["tp", "pp", "vs", "mb", "recompute", "zero", "sp", "ep", "etp", "cp", "precision", "attention", "bogus"]
ODD = [0, -1, 1, 2, 3, 7, 1 << 31, 1 << 63, 1e308, -1e308, 0.5, 1e-320, "", "x", "../x", "\u00e9", True, None, [], {},
       [1, 2], {"a": 1}, "fp8", "nvfp4", "flash", "full", "none"]


def odd_value(rng):
    return rng.choice(ODD)


def mutate_json(doc, rng):
    """One structural edit somewhere in the document."""
    paths = []

    def walk(x, path):
        paths.append(path)
        if isinstance(x, dict):
            for k, v in x.items():
                walk(v, path + [k])
        elif isinstance(x, list):
            for i, v in enumerate(x):
                walk(v, path + [i])
    walk(doc, [])
    path = rng.choice(paths[1:] or paths)
    parent = doc
    for p in path[:-1]:
        parent = parent[p]
    key = path[-1] if path else None
    op = rng.randrange(6)
    if key is None:
        return doc
    if op == 0 and isinstance(parent, dict):
        del parent[key]
    elif op == 1:
        parent[key] = odd_value(rng)
    elif op == 2 and isinstance(parent, dict):
        parent["unknown_" + str(rng.randrange(99))] = odd_value(rng)
    elif op == 3:
        v = parent[key]
        parent[key] = [v] if rng.random() < 0.5 else {"x": v}
    elif op == 4 and isinstance(parent[key], (int, float)) and not isinstance(parent[key], bool):
        parent[key] = parent[key] * rng.choice([0, -1, 2, 1000, 1e9]) + rng.choice([0, 1, -1])
    else:
        parent[key] = str(parent[key])
    return doc


def mutate_text(text, rng):
    """Byte-level damage: truncation, flips, invalid UTF-8, deep nesting, duplicate keys."""
    op = rng.randrange(6)
    b = bytearray(text.encode())
    if op == 0:
        return bytes(b[: rng.randrange(len(b))])
    if op == 1:
        for _ in range(rng.randrange(1, 8)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        return bytes(b)
    if op == 2:
        i = rng.randrange(len(b))
        return bytes(b[:i] + b"\xff\xfe" + b[i:])
    if op == 3:
        depth = rng.choice([100, 300, 5000])
        return b'{"a":' + b"[" * depth + b"]" * depth + b"}"
    if op == 4:
        return bytes(b[:1]) + b'"nodes": 1, "nodes": 2, ' + bytes(b[1:])
    return b"\x00" * rng.randrange(1, 64)


def mutate_csv(text, rng):
    """Row- and cell-level damage to a CSV table: cells replaced by odd values, rows dropped or doubled,
    a column renamed, or byte-level damage."""
    lines = text.splitlines()
    op = rng.randrange(5)
    if op == 0 and len(lines) > 2:
        i = rng.randrange(1, len(lines))
        cells = lines[i].split(",")
        j = rng.randrange(min(len(cells), 8))
        cells[j] = str(rng.choice(["", "0", "-1", "nan", "inf", "1e400", "x", "all_gather", "reduce_scatter", "3.5", "99999999"]))
        lines[i] = ",".join(cells)
    elif op == 1:
        lines = lines[: rng.randrange(1, len(lines) + 1)]
    elif op == 2:
        lines[0] = lines[0].replace(rng.choice(["nodes", "size_MB", "busbw_GBps", "collective"]), "renamed")
    elif op == 3:
        lines = lines + lines[1:rng.randrange(2, len(lines) + 1)]
    else:
        return mutate_text(text, rng)
    return ("\n".join(lines) + "\n").encode()


def case(k, seed):
    """The k-th case: (kind, files {name: bytes}, argv tail with FILE / OUT placeholders)."""
    rng = random.Random(seed * 1000003 + k)
    kind = rng.choice(list(SEEDS))
    src = rng.choice(SEEDS[kind])
    text = open(src, encoding="utf-8").read()
    if kind == "table":
        data = mutate_csv(text, rng)
        if rng.random() < 0.5:
            return kind, {"in.json": data}, ["collective", "--hw", "p5.48xlarge", "--compare", "FILE", "--format", "json"]
        return kind, {"in.json": data}, ["collective", "--hw", "p5.48xlarge", "--hw-set", "collectives.measured_table=FILE",
                                         "--nodes", "3,16", "--size", "1M,100M,16G", "--op", rng.choice(["all_reduce", "all_gather", "alltoall"])]
    if rng.random() < 0.7:
        doc = json.loads(text)
        for _ in range(rng.randrange(1, 4)):
            doc = mutate_json(doc, rng)
        data = json.dumps(doc).encode()
    else:
        data = mutate_text(text, rng)
    name = "in.json"
    if kind == "workload" and rng.random() < 0.5:  # an option string on a valid workload instead
        data = open(src, "rb").read()
        edits = ";".join(f"{rng.choice(SETS)}={json.dumps(odd_value(rng)) if rng.random() < 0.5 else odd_value(rng)}"
                         for _ in range(rng.randrange(1, 4)))
        opt = rng.choice(["--set", "--vs", "--hw-set"])
        if opt == "--hw-set":  # what-if hardware: the optional cluster section, the tuned collectives
            edits = ";".join(f"{k}={rng.choice(ALGORITHMS) if k.endswith('algorithm') and rng.random() < 0.7 else odd_value(rng)}"
                             for k in rng.sample(HW_SETS, rng.randrange(1, 4)))
        tail = ["run", "FILE", opt, edits, "--no-scaling", "--output", "OUT", "--trace", "OUT2"] if rng.random() < 0.25 or opt == "--hw-set" else \
            ["graph", "FILE", "--set", edits]
        return kind, {name: data}, tail
    if kind == "study":
        return kind, {name: data}, ["validate", "FILE"]  # every check `compare` makes before it searches
    if rng.random() < 0.05:  # search axes
        axes = ";".join(f"{rng.choice(AXES)}={','.join(str(odd_value(rng)) for _ in range(rng.randrange(1, 3)))}"
                        for _ in range(rng.randrange(1, 3)))
        return "axes", {}, ["search", "--model", "llama2-7b", "--hw", "trn1.32xlarge", "--nodes", "1", "--axes", axes,
                            "--out", "OUTDIR/s", "--quiet", "--threads", "1"]
    return kind, {name: data}, ["validate", "FILE"]


def run_case(trnsim, k, seed, timeout):
    kind, files, tail = case(k, seed)
    work = tempfile.mkdtemp(prefix="trnsim-mut-")
    try:
        for n, d in files.items():
            open(os.path.join(work, n), "wb").write(d)
        repl = {"FILE": os.path.join(work, "in.json"), "OUT": os.path.join(work, "out.txt"),
                "OUT2": os.path.join(work, "trace.json")}
        argv = [trnsim] + [repl.get(a, a.replace("OUTDIR", work).replace("=FILE", "=" + repl["FILE"])) for a in tail]
        env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0", UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1",
                   SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
        try:
            p = subprocess.run(argv, capture_output=True, timeout=timeout, env=env)
        except subprocess.TimeoutExpired:
            return f"case {k} ({kind}): hung past {timeout} s: {' '.join(tail)}"
        err = p.stderr.decode(errors="replace")
        if p.returncode not in (0, 1, 2):
            return f"case {k} ({kind}): exit {p.returncode}: {' '.join(tail)[:200]}: {err[-400:]}"
        if "Sanitizer" in err or "runtime error:" in err:
            return f"case {k} ({kind}): sanitizer report: {err[-600:]}"
        left = sorted(set(os.listdir(work)) - set(files))
        if p.returncode != 0 and left:
            return f"case {k} ({kind}): failed (exit {p.returncode}) but left {left}: {err.strip()[:200]}"
        if any(".tmp." in f for f in left):
            return f"case {k} ({kind}): temporary left: {left}"
        return None
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trnsim")
    ap.add_argument("--cases", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--only", type=int, default=None, help="run only case K (to reproduce a failure)")
    a = ap.parse_args()
    ks = [a.only] if a.only is not None else range(a.cases)
    failures = []
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        for i, r in enumerate(pool.map(lambda k: run_case(a.trnsim, k, a.seed, a.timeout), ks), 1):
            if r:
                failures.append(r)
                print(r, flush=True)
            if i % 250 == 0:
                print(f"mutate.py: {i} / {len(ks)} cases, {len(failures)} failed", file=sys.stderr, flush=True)
    print(f"mutate.py: {len(ks)} cases (seed {a.seed}), {len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
