#!/usr/bin/env python3
"""readme_cost_table.py — rewrite README.md's "$ per million tokens" table from results/cost-2026.json.

Why: the README quotes the cost study; it must be regenerated whenever `trnsim compare
studies/cost-2026.json --out results/cost-2026` changes (every time the validation residuals behind
the intervals move). Per model x hardware: the cheapest on-demand $/M tokens over the study's rows,
its 90 % interval (the row's step-time interval scales the price), and the low-precision format if it
is not BF16. `--check` exits 1 if the README differs instead of writing it.
"""
import json
import sys

HW = ["trn1.32xlarge", "trn2.48xlarge", "trn2u.48xlarge", "trn3u.48xlarge", "p5.48xlarge", "p5en.48xlarge",
      "p6-b200.48xlarge", "gb200-nvl72"]
MODELS = ["llama3.1-8b", "llama3.1-70b", "llama3.1-405b", "qwen3-235b-a22b", "deepseek-v3"]


def fmt(x):
    return f"{x:.3f}" if x < 1 else f"{x:#.3g}"


def main():
    root = __file__.rsplit("/scripts/", 1)[0]
    cost = json.load(open(f"{root}/results/cost-2026.json"))
    readme = open(f"{root}/README.md").read()
    start = readme.index("| model (chips) | trn1 (NxD)")
    end = readme.index("\n\n", start)
    old = readme[start:end].split("\n")
    best = {}
    for r in cost["rows"]:
        p = r.get("usd_per_million_tokens", {}).get("on_demand") if r.get("status") == "ok" else None
        if p is not None and ((r["model"], r["hw"]) not in best or p < best[(r["model"], r["hw"])][0]):
            best[(r["model"], r["hw"])] = (p, r)
    lines = old[:2]
    for i, m in enumerate(MODELS):
        cells = [old[2 + i].split(" | ")[0]]  # the row label (model and chip count) as written
        for h in HW:
            if (m, h) not in best:
                cells.append("does not fit")
                continue
            p, r = best[(m, h)]
            lo, hi = r["step_time_interval_s"]
            s = r["step_time_s"]
            text = f"{fmt(p)} ({fmt(p * lo / s)}–{fmt(p * hi / s)})"
            if r.get("precision_axis", "bf16") != "bf16":
                text += " " + r["precision_axis"].upper()
            cells.append(text)
        lines.append(" | ".join(cells) + " |")
    new = readme[:start] + "\n".join(lines) + readme[end:]
    if "--check" in sys.argv[1:]:
        sys.exit(0 if new == readme else 1)
    open(f"{root}/README.md", "w").write(new)


if __name__ == "__main__":
    main()
