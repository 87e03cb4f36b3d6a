# Typed stubs of the `trnsim` extension module (PEP 561 stub-only package). Every result is the
# JSON document the CLI writes for the same call, as plain dicts and lists.
from os import PathLike
from typing import Any, Dict, List, Optional, Sequence, Union

Json = Dict[str, Any]
PathOrDict = Union[str, "PathLike[str]", Dict[str, Any]]

def run(workload: PathOrDict, trace: Optional[Union[str, "PathLike[str]"]] = None,
        sensitivity: Optional[float] = None, vs: Optional[PathOrDict] = None) -> Json:
    """One simulated step: the `trnsim run --format json` report (with `sensitivity` in %, as --sensitivity-pct;
    with `vs`, a second workload compared figure by figure in report['versus'], as --vs)."""

def validate(obj: PathOrDict) -> None:
    """Raises ValueError with the CLI's one-line message when the file or dict is invalid."""

def search(model: str, hw: Union[str, Sequence[str]], nodes: Union[int, Sequence[int]], **options: Any) -> Json:
    """Exact top-K layouts and the Pareto front: the document `trnsim search` writes."""

def compare(study: Union[str, "PathLike[str]"], **options: Any) -> Json:
    """Best layout per model and hardware of a study file, priced, with intervals: the document `trnsim compare` writes."""

def validation(**options: Any) -> Json:
    """The validation corpus predicted: the document `trnsim validation` writes."""

def sweep(model: str, hw: Union[str, Sequence[str]], nodes: Union[int, Sequence[int]], **options: Any) -> List[Json]:
    """Every valid layout simulated in worker processes: the rows, fastest first."""

def sweep_report(model: str, hw: Union[str, Sequence[str]], nodes: Union[int, Sequence[int]], **options: Any) -> Json:
    """The whole `trnsim sweep` document."""

def campaign(workload: PathOrDict, **options: Any) -> Json:
    """A training run with failures: the `trnsim campaign --format json` document."""

def collective(hw: str, **options: Any) -> Json:
    """One collective on idle links as nccl-tests prints it: the `trnsim collective --format json` document."""

def set_data_dir(path: str) -> None: ...
def data_dir() -> str: ...
