#!/usr/bin/env python3
"""front_door.py — the repository stands on its own and its README stays a front door.

Why: a user's clone has nothing beside it, so nothing the project builds, tests or runs may read a
path outside the repository (the corpus once came from a folder beside the checkout); the README is read in five
minutes, so it stays short and every link in it and in docs/ resolves; history lives in
docs/history.md only, so no other page, header or data file carries the work log's numbering.
Usage: front_door.py SOURCE_DIR. Exit 1 listing every violation.
"""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1]).resolve()
problems = []

readme = (root / "README.md").read_text(encoding="utf-8")
n = readme.count("\n")
if n > 200:
    problems.append(f"README.md: {n} lines; keep it at most 200 (move details to docs/)")

link = re.compile(r"\]\(([^)\s]+)\)")
for page in [root / "README.md", *sorted((root / "docs").glob("*.md")), root / "data/validation/README.md"]:
    for target in link.findall(page.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = target.split("#", 1)[0]
        if not (page.parent / path).exists():
            problems.append(f"{page.relative_to(root)}: link {target} does not resolve")

worklog = re.compile(r"\b[Ss]ession \d+|\bsession-\d+")
places = [root / "README.md", *(root / "results").glob("*.md")]
for sub in ("app", "core", "models", "sim", "python", "stacks"):
    places += [p for p in (root / sub).rglob("*") if p.is_file() and p.suffix in {".cpp", ".hpp", ".json", ".md", ".py", ".pyi", ".txt"}]
for p in places:
    for i, line in enumerate(p.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        if worklog.search(line):
            problems.append(f"{p.relative_to(root)}:{i}: work-log numbering belongs in docs/history.md only")

outside = re.compile(r"\.\./shared|\.\./\.library")
code = [p for sub in ("app", "core", "models", "sim", "python", "scripts", "tests", "bench", ".ci")
        for p in (root / sub).rglob("*")
        if p.is_file() and (p.suffix in {".cpp", ".hpp", ".py", ".sh", ".txt", ".sbatch"} or p.name in {"run", "CMakeLists.txt"})]
code += [root / "CMakeLists.txt", root / "setup.py"]
# Data and results name their sources inside the repository too (data/reference/, data/validation/).
code += [p for sub in ("hw", "models", "workloads", "stacks", "studies", "prices", "results", "schema")
         for p in (root / sub).rglob("*") if p.is_file() and p.suffix in {".json", ".md"}]
for p in code:
    if p.resolve() == pathlib.Path(__file__).resolve():
        continue
    for i, line in enumerate(p.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        if outside.search(line):
            problems.append(f"{p.relative_to(root)}:{i}: names a path outside the repository; copy the data in (data/) and cite it there")

for line in problems:
    print(line)
sys.exit(1 if problems else 0)
