# setup.py — the CMake bridge of pyproject.toml: build_ext configures this tree with CMake (install
# prefix = the target environment, so the module and the CLI find the data files where the wheel
# puts them: <prefix>/share/trnsim), builds the `trnsim` CLI and the pybind11 module, and packs
# the module, the CLI (<prefix>/bin/trnsim), the typed stubs and the data files.
import glob
import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))
STAGE = os.path.join("build", "pip", "stage")  # relative: setuptools wants relative data_files paths


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = os.path.join(ROOT, "build", "pip", "cmake")
        cfg = [
            "-DCMAKE_BUILD_TYPE=Release",
            f"-DCMAKE_INSTALL_PREFIX={sys.prefix}",
            f"-DPython3_EXECUTABLE={sys.executable}",
            "-DTRNSIM_BENCH=OFF",
        ]
        subprocess.check_call(["cmake", "-S", ROOT, "-B", build] + cfg)
        jobs = str(os.cpu_count() or 1)
        subprocess.check_call(["cmake", "--build", build, "-j", jobs, "--target", "trnsim", "trnsim_python"])
        built = glob.glob(os.path.join(build, "trnsim*.so"))
        if len(built) != 1:
            raise RuntimeError(f"trnsim: expected one built module in {build}, found {built}")
        dest = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copy2(built[0], dest)
        stage = os.path.join(ROOT, STAGE)
        os.makedirs(stage, exist_ok=True)
        shutil.copy2(os.path.join(build, "trnsim"), os.path.join(stage, "trnsim"))


os.makedirs(os.path.join(ROOT, "build", "pip"), exist_ok=True)  # egg_base must exist before egg_info


def data_files():
    files = [("bin", [os.path.join(STAGE, "trnsim")])]
    for sub in ("hw", "models", "workloads", "schema", "stacks", "studies", "prices"):
        found = sorted(glob.glob(os.path.join(sub, "*.json")))
        files.append((os.path.join("share", "trnsim", sub), found))
    # the validation residuals behind the prediction intervals of `trnsim run` and `trnsim compare`
    files.append((os.path.join("share", "trnsim", "results"), ["results/validation.json"]))
    # the validation corpus `trnsim validation` and `trnsim calibrate` read by default
    files.append((os.path.join("share", "trnsim", "data", "validation"), sorted(glob.glob("data/validation/*"))))
    return files


setup(
    ext_modules=[CMakeExtension("trnsim")],
    cmdclass={"build_ext": CMakeBuild},
    packages=["trnsim-stubs"],
    package_dir={"trnsim-stubs": "python/trnsim-stubs"},
    package_data={"trnsim-stubs": ["__init__.pyi"]},
    data_files=data_files(),
    options={"build": {"build_base": os.path.join("build", "pip", "setuptools")},
             "egg_info": {"egg_base": os.path.join("build", "pip")}},
    zip_safe=False,
)
