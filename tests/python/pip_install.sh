#!/usr/bin/env bash
# pip_install.sh — issue 27: `pip install --no-build-isolation .` into a fresh virtualenv made with
# --system-site-packages (Debian's setuptools is the build backend; no registry needed), then, from
# another directory and without PYTHONPATH: the module runs the main workload, the installed CLI
# runs, the typed stubs are installed, and the example script runs on a small space.
# usage: pip_install.sh SOURCE_DIR WORK_DIR
set -euo pipefail
trap 'echo "pip_install.sh: line $LINENO failed (exit $?): $BASH_COMMAND" >&2' ERR
src="$1"; work="$2"
rm -rf "$work"; mkdir -p "$work"
/usr/bin/python3 -m venv --system-site-packages "$work/venv"
"$work/venv/bin/pip" install --no-build-isolation --no-index "$src" >"$work/pip.log" 2>&1 || { tail -n 40 "$work/pip.log"; exit 1; }
cd "$work"
unset PYTHONPATH
step=$("$work/venv/bin/python" -c "import trnsim; print(trnsim.run('workloads/llama7b_tp8_dp512.json')['step']['step_time_s'])")
cli=$("$work/venv/bin/trnsim" run workloads/llama7b_tp8_dp512.json --format json |
      "$work/venv/bin/python" -c "import json, sys; print(json.load(sys.stdin)['step']['step_time_s'])")
echo "module: $step s, installed CLI: $cli s"
[ "$step" = "$cli" ]
site=$("$work/venv/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
test -f "$site/trnsim-stubs/__init__.pyi"
"$work/venv/bin/python" -c "import trnsim, os; assert os.path.isfile(os.path.join(trnsim.data_dir(), 'hw', 'trn1.32xlarge.json'))"
# A workload that names a stack profile finds stacks/ in the installed data.
"$work/venv/bin/trnsim" run workloads/torchneuron_llama3.1_8b_trn2_tp4_fsdp16.json | grep -q "stack torchneuron"
"$work/venv/bin/python" "$src/examples/pareto_trn1_p4d_p5.py" --small --nodes 2 --out "$work/pareto.svg" >"$work/example.log"
test -s "$work/pareto.svg"
echo "pip install, module, CLI, stubs and example: ok"
