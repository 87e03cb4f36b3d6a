// trnsim_module.cpp — the `trnsim` Python module (pybind11). It is a thin skin over the same
// C++ entry points the CLI uses: load_scenario / execute_step / make_report for run,
// validate_file / validate_json for validate, and the CLI's own option sets (command_api.hpp)
// for sweep and campaign, whose keyword arguments become the same `--name value` options with
// the same range checks and messages. Results are the JSON documents of `--format json`, as
// Python dicts and lists.
//
// Errors: bad input (ConfigError, UsageError) -> ValueError with the CLI's one-line message;
// unreadable or unwritable files -> OSError; an interrupted sweep -> KeyboardInterrupt. The GIL
// is released while simulating; calls are serialised (one SystemC kernel per process).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdlib>
#include <filesystem>
#include <initializer_list>
#include <mutex>
#include <string>
#include <vector>

#include "command_api.hpp"
#include "intervals.hpp"
#include "memory_band.hpp"
#include "paired_ratios.hpp"
#include "report.hpp"
#include "scaling.hpp"
#include "sensitivity.hpp"
#include "versus.hpp"
#include "split_advice.hpp"
#include "scenario.hpp"
#include "step_executor.hpp"
#include "trnsim/atomic_file.hpp"
#include "trnsim/error.hpp"
#include "trnsim/json_reader.hpp"
#include "worker_pool.hpp"

namespace py = pybind11;

// libsystemc.so calls sc_main from its own main(); Python has its own main, so this never runs.
extern "C" __attribute__((visibility("default"))) int sc_main(int, char*[]) { return 0; }

namespace {

std::mutex g_kernel;  // one SystemC kernel per process: one simulation at a time

// Runs f with the GIL released (other Python threads go on) and the kernel held (one simulation
// at a time), returning its JSON document.
template <class F>
nlohmann::json simulate(F&& f) {
  py::gil_scoped_release nogil;
  std::lock_guard<std::mutex> lock(g_kernel);
  return f();
}

py::object to_python(const nlohmann::json& j) { return py::module_::import("json").attr("loads")(j.dump()); }

// A dict (or anything json.dumps takes) goes through the same text parser as a file, so
// duplicate-free, range and type checks are identical; `label` names it in messages.
nlohmann::json from_python(const py::handle& obj, const std::string& label) {
  const std::string text = py::module_::import("json").attr("dumps")(obj).cast<std::string>();
  return trnsim::parse_json_text(text, label);
}

bool is_path(const py::handle& obj) {
  return py::isinstance<py::str>(obj) || py::isinstance(obj, py::module_::import("os").attr("PathLike"));
}

std::string path_of(const py::handle& obj) { return py::str(py::module_::import("os").attr("fspath")(obj)).cast<std::string>(); }

// Keyword arguments -> CLI options: name_with_underscores -> --name-with-dashes; True -> the
// flag, False/None -> omitted; lists and tuples -> comma-separated; everything else -> str().
std::vector<std::string> to_argv(const py::kwargs& kwargs) {
  std::vector<std::string> argv;
  for (const auto& [k, v] : kwargs) {
    std::string name = py::str(k).cast<std::string>();
    for (char& c : name)
      if (c == '_') c = '-';
    if (v.is_none() || (py::isinstance<py::bool_>(v) && !v.cast<bool>())) continue;
    argv.push_back("--" + name);
    if (py::isinstance<py::bool_>(v)) continue;
    if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {
      std::string joined;
      for (const auto& item : v) joined += (joined.empty() ? "" : ",") + py::str(item).cast<std::string>();
      argv.push_back(joined);
    } else {
      argv.push_back(py::str(v).cast<std::string>());
    }
  }
  return argv;
}

// The CLI options that write files are the CLI's alone: the module returns the document.
void refuse_file_options(const py::kwargs& kwargs, const char* call, std::initializer_list<const char*> options) {
  for (const char* k : options)
    if (kwargs.contains(k)) throw trnsim::UsageError(std::string(call) + ": no " + k + "= here; the result is returned");
}

// --model --hw --nodes first, then the keyword options: the argv of `trnsim sweep` / `trnsim search`.
std::vector<std::string> space_argv(const std::string& model, const py::object& hw, const py::object& nodes,
                                    const py::kwargs& kwargs) {
  py::kwargs required;
  required["model"] = model;
  required["hw"] = hw;
  required["nodes"] = nodes;
  std::vector<std::string> argv = to_argv(required);
  const auto rest = to_argv(kwargs);
  argv.insert(argv.end(), rest.begin(), rest.end());
  return argv;
}

trnsim::Scenario scenario_of(const py::handle& workload, bool allow_oom = false) {
  if (is_path(workload)) return trnsim::load_scenario(path_of(workload), allow_oom);
  return trnsim::scenario_from_json(from_python(workload, "<workload dict>"), "<workload dict>", allow_oom);
}

// The trnsim CLI next to this module (build tree) or installed beside it: sweep workers run it.
std::string cli_executable() {
  for (const char* candidate : {TRNSIM_CLI_BUILD_PATH, TRNSIM_CLI_INSTALL_PATH})
    if (std::filesystem::exists(candidate)) return candidate;
  throw trnsim::FileError(std::string("trnsim CLI not found at ") + TRNSIM_CLI_BUILD_PATH + " or " +
                          TRNSIM_CLI_INSTALL_PATH + "; sweeps run it in worker processes (build or install it)");
}

py::dict run(const py::object& workload, const py::object& trace, const py::object& sensitivity, const py::object& vs) {
  // sensitivity: None, or how much better each hardware resource is made, in % (as --sensitivity-pct).
  double sensitivity_pct = 0;
  if (!sensitivity.is_none()) {
    const bool number = (py::isinstance<py::float_>(sensitivity) || py::isinstance<py::int_>(sensitivity)) &&
                        !py::isinstance<py::bool_>(sensitivity);
    sensitivity_pct = number ? sensitivity.cast<double>() : -1;
    if (!(sensitivity_pct >= 0.1 && sensitivity_pct <= 100))
      throw trnsim::UsageError("trnsim.run: sensitivity=" + py::str(sensitivity).cast<std::string>() +
                               " is out of range; give a percentage in [0.1, 100] (e.g. 10), or None");
  }
  trnsim::Scenario s = scenario_of(workload, /*allow_oom=*/true);
  // Over the usable HBM: refused, or predicted with a warning in the notes (trnsim run's rule).
  if (const std::string warning = trnsim::memory_warning_or_refusal(s); !warning.empty()) s.notes.push_back(warning);
  // vs: another workload (path or dict) to compare with, as `trnsim run --vs` compares with an edit;
  // read before anything runs, so that a bad one fails at once. One that does not fit is reported so.
  const bool versus = !vs.is_none();
  trnsim::Scenario variant;
  if (versus) variant = scenario_of(vs, /*allow_oom=*/true);
  const std::string vs_name = !versus ? "" : is_path(vs) ? "vs=" + path_of(vs) : std::string("vs=<workload dict>");
  const std::string trace_file = trace.is_none() ? "" : path_of(trace);
  nlohmann::json report_json;
  {
    py::gil_scoped_release nogil;
    std::lock_guard<std::mutex> lock(g_kernel);
    trnsim::StepOptions opt;
    opt.trace = !trace_file.empty();
    const trnsim::StepResult r = trnsim::execute_step(s, opt);
    trnsim::StepReport report = trnsim::build_report(s, r);
    const trnsim::ValidationResults validation = trnsim::load_validation_results();  // as `trnsim run` reads it
    if (validation.intervals) trnsim::add_interval(report, s, *validation.intervals);
    trnsim::add_scaling(report, s);
    trnsim::add_split_advice(report, s, r);
    if (sensitivity_pct > 0) trnsim::add_sensitivity(report, s, r, 1 + sensitivity_pct / 100);
    if (opt.trace) trnsim::write_file_atomically(trace_file, trnsim::step_trace_json(s, r));
    const std::string refusal = versus ? trnsim::variant_refusal(variant) : "";
    if (versus && !refusal.empty()) {
      trnsim::add_versus_refusal(report, vs_name, refusal);
    } else if (versus) {
      const trnsim::StepResult vr = trnsim::execute_step(variant, trnsim::StepOptions{});
      trnsim::StepReport vrep = trnsim::build_report(variant, vr);
      if (validation.intervals) trnsim::add_interval(vrep, variant, *validation.intervals);
      trnsim::add_versus(report, vrep, vs_name);
      trnsim::add_versus_checks(report, validation);
    }
    report_json = trnsim::to_json(report);
  }
  return to_python(report_json);
}

void validate(const py::object& obj) {
  if (is_path(obj)) trnsim::validate_file(path_of(obj));
  else trnsim::validate_json(from_python(obj, "<dict>"), "<dict>");
}

nlohmann::json sweep_doc(const std::string& model, const py::object& hw, const py::object& nodes, const py::kwargs& kwargs) {
  if (kwargs.contains("out"))
    throw trnsim::UsageError("trnsim.sweep: no out= here; the result is returned (write it with pandas or json)");
  const std::vector<std::string> argv = space_argv(model, hw, nodes, kwargs);
  trnsim::Args a = trnsim::sweep_args();
  if (!a.parse(argv)) throw trnsim::UsageError("trnsim.sweep: help is `trnsim sweep --help`");
  trnsim::SweepOptions o = trnsim::sweep_options(a);
  o.progress = false;
  o.worker_executable = cli_executable();
  const nlohmann::json doc = simulate([&] { return trnsim::run_sweep(o); });
  if (!doc["failed"].empty() && !a.has("allow-failures"))
    throw trnsim::ConfigError(
        "trnsim.sweep: " + std::to_string(doc["failed"].size()) + " configuration(s) failed (e.g. " +
        doc["failed"][0]["id"].get<std::string>() + ": " + doc["failed"][0]["error"].get<std::string>() +
        "); pass allow_failures=True to accept a partial sweep, or use sweep_report()");
  return doc;
}

py::dict campaign(const py::object& workload, const py::kwargs& kwargs) {
  trnsim::Args a = trnsim::campaign_args();
  if (!a.parse(to_argv(kwargs))) throw trnsim::UsageError("trnsim.campaign: help is `trnsim campaign --help`");
  const trnsim::Scenario s = scenario_of(workload);
  const nlohmann::json j = simulate([&] { return trnsim::campaign_json(a, &s); });
  return to_python(j);
}

py::dict collective(const std::string& hw, const py::kwargs& kwargs) {
  refuse_file_options(kwargs, "trnsim.collective", {"output", "format"});
  std::vector<std::string> argv = {"--hw", hw};
  const auto rest = to_argv(kwargs);
  argv.insert(argv.end(), rest.begin(), rest.end());
  trnsim::Args a = trnsim::collective_args();
  if (!a.parse(argv)) throw trnsim::UsageError("trnsim.collective: help is `trnsim collective --help`");
  const nlohmann::json doc = simulate([&] { return trnsim::collective_json(a); });
  return to_python(doc);
}

py::dict search(const std::string& model, const py::object& hw, const py::object& nodes, const py::kwargs& kwargs) {
  refuse_file_options(kwargs, "trnsim.search", {"out"});
  const std::vector<std::string> argv = space_argv(model, hw, nodes, kwargs);
  trnsim::Args a = trnsim::search_args();
  if (!a.parse(argv)) throw trnsim::UsageError("trnsim.search: help is `trnsim search --help`");
  trnsim::SearchOptions o = trnsim::search_options(a);
  o.progress = false;
  const nlohmann::json doc = simulate([&] { return trnsim::search_checked(o); });
  return to_python(doc);
}

py::dict compare(const py::object& study, const py::kwargs& kwargs) {
  refuse_file_options(kwargs, "trnsim.compare", {"out", "check", "tolerance"});
  std::vector<std::string> argv{path_of(study)};
  const auto rest = to_argv(kwargs);
  argv.insert(argv.end(), rest.begin(), rest.end());
  trnsim::Args a = trnsim::compare_args();
  if (!a.parse(argv)) throw trnsim::UsageError("trnsim.compare: help is `trnsim compare --help`");
  trnsim::CompareOptions o = trnsim::compare_options(a);
  o.progress = false;
  const nlohmann::json doc = simulate([&] { return trnsim::run_compare(o); });
  return to_python(doc);
}

py::dict validation(const py::kwargs& kwargs) {
  refuse_file_options(kwargs, "trnsim.validation", {"out", "check"});
  trnsim::Args a = trnsim::validation_args();
  if (!a.parse(to_argv(kwargs))) throw trnsim::UsageError("trnsim.validation: help is `trnsim validation --help`");
  trnsim::ValidationOptions o = trnsim::validation_options(a);
  o.progress = false;
  const nlohmann::json v = simulate([&] { return trnsim::run_validation(o); });
  return to_python(v);
}

}  // namespace

PYBIND11_MODULE(trnsim, m) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  m.doc() =
      "trnsim: performance model of LLM training on accelerator clusters (the same C++ as the trnsim CLI).\n"
      "run(), validate(), search(), compare(), validation(), sweep(), sweep_report(), campaign(), collective(); results are the CLI's JSON\n"
      "documents (the same schema as the files `trnsim run --format json`, `search` and `validation` write).";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const trnsim::FileError& e) {
      PyErr_SetString(PyExc_OSError, e.what());
    } catch (const trnsim::ConfigError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const trnsim::UsageError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const trnsim::Interrupted& e) {
      PyErr_SetString(PyExc_KeyboardInterrupt, e.what());
    }
  });
  m.def("run", &run, py::arg("workload"), py::arg("trace") = py::none(), py::arg("sensitivity") = py::none(),
        py::arg("vs") = py::none(),
        "Simulate one training step. workload: a workload file path (relative paths are also looked up in the\n"
        "data directory) or a dict with the same fields. Returns the report as a dict (the fields of\n"
        "`trnsim run --format json`: step.step_time_s, throughput.tokens_per_s, memory_per_core_gib, cost ...).\n"
        "trace: optional path for a Chrome/Perfetto trace. sensitivity: optional percentage (e.g. 10): the step\n"
        "re-simulated with each hardware resource that much better (report['sensitivity'], as `trnsim run\n"
        "--sensitivity-pct`). vs: optional second workload (path or dict): report['versus'] holds each headline\n"
        "figure for both with its change (as `trnsim run --vs`). Raises ValueError for bad input, OSError for files.");
  m.def("validate", &validate, py::arg("obj"),
        "Strictly check a hw, model or workload file (path) or dict; returns None or raises ValueError with the\n"
        "CLI's one-line message (file or <dict>, JSON path, problem and fix).");
  m.def(
      "sweep",
      [](const std::string& model, const py::object& hw, const py::object& nodes, const py::kwargs& kw) {
        const nlohmann::json doc = sweep_doc(model, hw, nodes, kw);
        py::gil_scoped_acquire gil;
        return to_python(doc["rows"]);
      },
      py::arg("model"), py::arg("hw"), py::arg("nodes"),
      "Every valid layout of a model on the hardware and node counts given, simulated in worker processes.\n"
      "Returns the rows (a list of dicts, sorted by throughput; pandas.DataFrame(rows) takes them). Keyword\n"
      "arguments are `trnsim sweep`'s options with underscores: seq=, global_batch=, micro_batches=[1, 2],\n"
      "train_tokens=, workers=, timeout=, op_cache=, shard='1/2', allow_failures=True. Raises ValueError when\n"
      "configurations failed unless allow_failures=True.");
  m.def(
      "sweep_report",
      [](const std::string& model, const py::object& hw, const py::object& nodes, const py::kwargs& kw) {
        return to_python(sweep_doc(model, hw, nodes, kw));
      },
      py::arg("model"), py::arg("hw"), py::arg("nodes"),
      "Like sweep() but returns the whole document of `trnsim sweep` (rows, failed, rejected counts, best, stats).");
  m.def("campaign", &campaign, py::arg("workload"),
        "A whole training run with failures (the `trnsim campaign --format json` document). Keyword arguments\n"
        "are the CLI's options with underscores: tokens=, mtbf_node_hours=, checkpoint_interval=, recovery=,\n"
        "storage_GBps=, async_save=True, trials=, seed= ...");
  m.def("collective", &collective, py::arg("hw"),
        "One collective over every rank of N nodes on idle links, as nccl-tests prints it (the `trnsim collective\n"
        "--format json` document: rows of op, nodes, ranks, size_bytes, time_us, algbw_GBps, busbw_GBps). Keyword\n"
        "arguments as its options: op='alltoall', nodes=[2, 4], size='32M..8G', compare='table.csv', hw_set=.");
  m.def("search", &search, py::arg("model"), py::arg("hw"), py::arg("nodes"),
        "Exact top-K layouts by throughput and by cost to train, and the Pareto front (the document `trnsim search`\n"
        "writes to PREFIX.json). Keyword arguments are the CLI's options with underscores: seq=, global_batch=,\n"
        "axes='tp=1,2;zero=1', top_k=, train_tokens=, exhaustive=True.");
  m.def("compare", &compare, py::arg("study"),
        "Best layout per model and hardware of a study file (studies/*.json, a path), with $ per million tokens,\n"
        "days and cost to train and 90% intervals: the document `trnsim compare` writes to PREFIX.json. Keyword\n"
        "arguments as its options: prices=, validation=, jobs=, sensitivity=True or sensitivity_pct=.");
  m.def("validation", &validation,
        "Predict the validation corpus (the document `trnsim validation` writes to validation.json). Keyword\n"
        "arguments: dataset='seed,korthikanti2022', data=, sample_single=, seed=, jobs=, no_leave_out=True.");
  m.def("set_data_dir", &trnsim::set_data_dir, py::arg("path"), "Directory holding hw/ and models/ (like --data-dir).");
  m.def("data_dir", &trnsim::data_dir, "The directory hw/ and models/ are read from.");
}
