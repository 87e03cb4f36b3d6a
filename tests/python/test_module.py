#!/usr/bin/env python3
"""test_module.py — the `trnsim` Python module (issue 17) gives the CLI's answers and errors:
run (path and dict) returns the report with the CLI's step time; validate raises ValueError with
the CLI's one-line message; bad input raises (ValueError / OSError), never crashes the interpreter;
sweep returns the CLI sweep's rows (a pandas DataFrame takes them); campaign returns the CLI's
JSON; the GIL is released while simulating.
usage: test_module.py TRNSIM ROOT   (with the build directory on PYTHONPATH)
"""
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

import trnsim

cli, root = sys.argv[1], sys.argv[2]
R3 = os.path.join(root, "workloads", "llama7b_tp8_dp512.json")


def cli_json(*args):
    return json.loads(subprocess.run([cli, *args], check=True, capture_output=True, text=True).stdout)


# run: a path and the same workload as a dict give the CLI's report.
report = trnsim.run(R3)
assert set(report) == set(cli_json("run", R3, "--format", "json")), sorted(report)
assert report["step"]["step_time_s"] == cli_json("run", R3, "--format", "json")["step"]["step_time_s"]
assert trnsim.run(json.load(open(R3)))["step"]["step_time_s"] == report["step"]["step_time_s"]
assert trnsim.run("workloads/llama7b_tp8_dp512.json")["step"]["step_time_s"] == report["step"]["step_time_s"]  # data dir
# sensitivity=PCT: the CLI's --sensitivity-pct section, the same figures.
sensed = trnsim.run(R3, sensitivity=10)["sensitivity"]
assert sensed == cli_json("run", R3, "--format", "json", "--sensitivity", "--no-scaling")["sensitivity"], sensed
# vs=WORKLOAD: the CLI's --vs rows for the same variant (a dict here, edits there).
variant = json.load(open(R3))
variant["parallel"].update(tp=4, dp=1024)
rows = trnsim.run(R3, vs=variant)["versus"]["rows"]
assert rows == cli_json("run", R3, "--format", "json", "--vs", "parallel.tp=4;parallel.dp=1024")["versus"]["rows"], rows
assert rows[0]["quantity"] == "step time" and rows[0]["change_pct"] > 0, rows[0]
# A precision change alone: the corpus's measured pairs of that change, as the CLI quotes them.
in_fp32 = json.load(open(R3))
in_fp32["precision"] = "fp32"
pairs = trnsim.run(R3, vs=in_fp32)["versus"]["corpus_pairs"]
assert pairs == cli_json("run", R3, "--format", "json", "--vs", "precision=fp32")["versus"]["corpus_pairs"], pairs
assert pairs["factor"] == "precision" and pairs["reversed"], pairs

# validate: the CLI's one-line message, as ValueError; OSError for a missing file.
for bad in ("negative_tp.json", "unknown_field.json", "duplicate_key.json", "does_not_fit.json", "model_is_a_path.json"):
    path = os.path.join(root, "tests", "bad", bad)
    line = subprocess.run([cli, "validate", path], capture_output=True, text=True).stdout.strip()
    assert line.startswith("FAIL "), line
    try:
        trnsim.validate(path)
        raise AssertionError(f"{bad} validated")
    except ValueError as e:
        assert str(e) == line[len("FAIL "):], (str(e), line)
assert trnsim.validate(R3) is None

# Bad input raises, never crashes the interpreter.
w = json.load(open(R3))
w["parallel"]["tp"] = -8
for call, exc, fragment in [
    (lambda: trnsim.run(w), ValueError, "<workload dict>: /parallel/tp: value -8 out of range"),
    (lambda: trnsim.run(os.path.join(root, "no", "such.json")), OSError, "cannot open file"),
    (lambda: trnsim.run(R3, sensitivity=0), ValueError, "sensitivity=0 is out of range"),
    (lambda: trnsim.run(R3, sensitivity="ten"), ValueError, "sensitivity=ten is out of range"),
    (lambda: trnsim.run(R3, vs=w), ValueError, "<workload dict>: /parallel/tp: value -8 out of range"),
    (lambda: trnsim.run(12345), ValueError, "top level must be a JSON object"),
    (lambda: trnsim.run({"nodes": float("nan")}), ValueError, ""),
    (lambda: trnsim.validate({"name": "x"}), ValueError, "<dict>: /model: missing required field"),
    (lambda: trnsim.campaign(R3, tokens=-1), ValueError, "--tokens -1 is out of range"),
    (lambda: trnsim.campaign(R3, recovery="later"), ValueError, "--recovery \"later\" is not allowed"),
    (lambda: trnsim.sweep("llama2-7b", "trn1.32xlarge", 1, micro_batches=[0]), ValueError, "--micro-batches"),
    (lambda: trnsim.sweep("llama2-7b", "trn1.32xlarge", 1, bogus=1), ValueError, "unknown option --bogus"),
    (lambda: trnsim.run(R3, trace=os.path.join(root, "no", "such", "dir", "t.json")), OSError, "cannot write file"),
]:
    try:
        call()
        raise AssertionError(f"no exception (wanted {exc.__name__} '{fragment}')")
    except exc as e:
        assert fragment in str(e), (fragment, str(e))

# sweep: the same rows as the CLI's sweep of the same space.
space = dict(seq=128, global_batch=256, micro_batches=[32], workers=2)
rows = trnsim.sweep("bert-large", "dl1.24xlarge", 1, **space)
with tempfile.TemporaryDirectory() as tmp:
    subprocess.run([cli, "sweep", "--model", "bert-large", "--hw", "dl1.24xlarge", "--nodes", "1", "--seq", "128",
                    "--global-batch", "256", "--micro-batches", "32", "--workers", "2", "--out", f"{tmp}/s"],
                   check=True, capture_output=True)
    assert rows == json.load(open(f"{tmp}/s.json"))["rows"], "module sweep differs from the CLI's"
assert len(rows) >= 24 and rows[0]["tokens_per_s"] >= rows[-1]["tokens_per_s"]
full = trnsim.sweep_report("bert-large", "dl1.24xlarge", 1, **space)
assert full["rows"] == rows and full["failed"] == [] and "rejected" in full
try:
    import pandas
    frame = pandas.DataFrame(rows)
    assert len(frame) == len(rows) and frame["tokens_per_s"].max() == rows[0]["tokens_per_s"]
except ImportError:
    print("pandas not installed: DataFrame check skipped")

# search and validation (issue 27): the CLI's documents for the same options (timings aside).
search_opts = dict(seq=2048, global_batch=64, top_k=3, axes="zero=1;recompute=selective;attention=flash")
doc = trnsim.search("hlat-7b", "trn1.32xlarge", 1, **search_opts)
with tempfile.TemporaryDirectory() as tmp:
    subprocess.run([cli, "search", "--model", "hlat-7b", "--hw", "trn1.32xlarge", "--nodes", "1", "--seq", "2048",
                    "--global-batch", "64", "--top-k", "3", "--axes", "zero=1;recompute=selective;attention=flash",
                    "--out", f"{tmp}/s"], check=True, capture_output=True)
    cli_doc = json.load(open(f"{tmp}/s.json"))
for key in ("top_by_throughput", "top_by_cost", "pareto", "counts"):
    assert doc[key] == cli_doc[key], f"module search differs from the CLI's in {key}"
v = trnsim.validation(dataset="seed", no_leave_out=True, jobs=2)
with tempfile.TemporaryDirectory() as tmp:
    subprocess.run([cli, "validation", "--dataset", "seed", "--no-leave-out", "--quiet", "--out", tmp], check=True,
                   capture_output=True)
    assert v == json.load(open(f"{tmp}/validation.json")), "module validation differs from the CLI's"
# compare: the CLI's document for the same study and options (a small study written here).
with tempfile.TemporaryDirectory() as tmp:
    study = os.path.join(tmp, "study.json")
    json.dump({"name": "t", "description": "python test", "prices": "prices/aws-2026-11.json", "seq_len": 4096,
               "train_tokens_billions": [1000],
               "axes": "tp=8;pp=1;vs=1;mb=1;sp=on;zero=1;recompute=selective;tp_overlap=off;dp_overlap=on;fused=on;"
                       "attention=flash;precision=bf16",
               "hardware": [{"hw": "trn2.48xlarge"}],
               "models": [{"model": "llama2-7b", "chips": 16, "global_batch": 64}]}, open(study, "w"))
    cmp_doc = trnsim.compare(study, jobs=1, sensitivity=True)
    subprocess.run([cli, "compare", study, "--jobs", "1", "--sensitivity", "--quiet", "--out", f"{tmp}/c"], check=True,
                   capture_output=True)
    cli_cmp = json.load(open(f"{tmp}/c.json"))
    assert cmp_doc["rows"] == cli_cmp["rows"], "module compare differs from the CLI's"
    assert cmp_doc["rows"][0]["sensitivity"]["resources"][0]["elasticity"] > 0
    try:
        trnsim.compare(study, out="x")
        raise AssertionError("compare took out=")
    except ValueError as e:
        assert "no out= here" in str(e), str(e)

# hw_set= (as --hw-set): the search over a hypothetical chip, recorded in the document.
edited = trnsim.search("hlat-7b", "trn1.32xlarge", 1, hw_set="hbm.bandwidth_GBps_per_chip=1640", **search_opts)
assert edited["space"]["hw_set"] == "hbm.bandwidth_GBps_per_chip=1640", edited["space"]
assert edited["top_by_throughput"][0]["tokens_per_s"] >= doc["top_by_throughput"][0]["tokens_per_s"]
for call, fragment in [(lambda: trnsim.search("hlat-7b", "trn1.32xlarge", 1, bogus=1), "unknown option --bogus"),
                       (lambda: trnsim.validation(out="/tmp/x"), "no out= here"),
                       (lambda: trnsim.validation(jobs=0), "--jobs 0 is out of range")]:
    try:
        call()
        raise AssertionError(f"no exception (wanted ValueError '{fragment}')")
    except ValueError as e:
        assert fragment in str(e), (fragment, str(e))

# campaign: the CLI's JSON for the same options.
c = trnsim.campaign(R3, tokens=1.8e12, recovery="manual", trials=50, checkpoint_interval=35)
assert c == cli_json("campaign", R3, "--tokens", "1.8e12", "--recovery", "manual", "--trials", "50",
                     "--checkpoint-interval", "35", "--format", "json")

# collective: the CLI's JSON for the same options, and a measured table beside it.
k = trnsim.collective("p5.48xlarge", nodes=[2, 4], size="1G")
assert k == cli_json("collective", "--hw", "p5.48xlarge", "--nodes", "2,4", "--size", "1G", "--format", "json")
assert [r["ranks"] for r in k["rows"]] == [16, 32] and all(r["busbw_GBps"] > 0 for r in k["rows"])
table = os.path.join(root, "data", "validation", "nccl_tests_p5_efa.csv")
m = trnsim.collective("p5.48xlarge", compare=table, hw_set=f"collectives.measured_table={table}")
assert len(m["rows"]) == 80 and m["mean_abs_error"] < 0.01, m["mean_abs_error"]

# The GIL is released while simulating. With a 10 s switch interval the main thread never
# hands the GIL over by itself, and the other thread gives it back at every tick (sleep(0)
# releases it). So a tick stamped strictly between the call's start and end can only exist if
# the simulation released the GIL. A GPT-NeoX PP4 step simulates 12 micro-batches on 4 stages.
ticks, stop = [], threading.Event()
def spin():
    while not stop.is_set():
        ticks.append(time.perf_counter())
        time.sleep(0)
old_interval = sys.getswitchinterval()
sys.setswitchinterval(10)
t = threading.Thread(target=spin)
t.start()
while not ticks:  # the thread is running
    time.sleep(0)
start = time.perf_counter()
trnsim.run(os.path.join(root, "workloads", "r1_neox20b_tp8_pp4_4node.json"))
end = time.perf_counter()
stop.set()
t.join()
sys.setswitchinterval(old_interval)
during = sum(1 for x in ticks if start < x < end)
assert during > 0, "no other Python thread ran during the simulation: the GIL was held"
print(f"python module ok: step {report['step']['step_time_s']:.4f} s, {len(rows)} sweep rows, goodput {c['goodput']:.3f}, "
      f"{during} ticks of another thread during a simulation")
