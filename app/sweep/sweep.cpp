// sweep.cpp — see sweep.hpp.
#include "sweep.hpp"
#include "versus.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <algorithm>
#include <map>

#include "op_cache_file.hpp"
#include "scenario.hpp"
#include "trnsim/atomic_file.hpp"
#include "trnsim/error.hpp"
#include "trnsim/fnv_hash.hpp"
#include "worker_pool.hpp"

namespace trnsim {

namespace {

// Workers write the ops they simulated to CACHE.<pid>; fold them into CACHE (first entry
// of a key wins: entries are exact, so any copy is the same answer). A damaged cache or
// partial is skipped with a warning naming it, never merged; the merged file replaces it.
void merge_op_caches(const std::string& cache) {
  namespace fs = std::filesystem;
  const fs::path base(cache);
  OpTimingMap entries;
  read_op_cache_or_warn(cache, entries);
  const fs::path dir = base.has_parent_path() ? base.parent_path() : fs::path(".");
  std::vector<fs::path> partials;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string(), prefix = base.filename().string() + ".";
    if (name.rfind(prefix, 0) == 0 && name.find_first_not_of("0123456789", prefix.size()) == std::string::npos)
      partials.push_back(e.path());
  }
  for (const auto& p : partials) read_op_cache_or_warn(p.string(), entries);
  write_op_cache(cache, entries);
  for (const auto& p : partials) fs::remove(p);
}

// What every layout of the sweep shares beyond the enumerated axes: the options that are set.
nlohmann::json sweep_space(const SweepOptions& o) {
  nlohmann::json s = nlohmann::json::object();
  if (o.low_precision) s["precision"] = to_string(*o.low_precision);
  if (!o.space.stack.empty()) s["stack"] = o.space.stack;
  if (o.space.lora_rank > 0) s["lora_rank"] = o.space.lora_rank;
  if (!o.space.hw_set.empty()) s["hw_set"] = o.space.hw_set;
  return s;
}

}  // namespace

std::string sweep_id(const SweepOptions& o) {
  // Everything that decides which configurations exist and what their rows hold; not the
  // shard, the workers, the timeout or the cache. FNV-1a of the description, 16 hex digits.
  nlohmann::json d = {{"model", o.space.model}, {"hws", o.hws}, {"nodes", o.nodes}, {"seq", o.space.seq_len},
                      {"global_batch", o.space.global_batch}, {"micro_batches", o.space.micro_batches},
                      {"zero", o.space.zero}, {"fused", o.space.fused}, {"train_tokens", o.train_tokens},
                      {"shards", o.shard_count}};
  for (auto c : o.space.checkpointing) d["checkpointing"].push_back(to_string(c));
  d.update(sweep_space(o));  // only the options that are set: sweeps without them keep their identity
  return fmt::format("{:016x}", fnv1a64(d.dump()));
}

nlohmann::json run_sweep(const SweepOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<Workload> all;
  for (const auto& hw : o.hws)
    for (int64_t n : o.nodes) {
      LayoutSpace sp = o.space;
      sp.hw = hw;
      sp.nodes = n;
      sp.precision = o.low_precision.value_or(Precision::BF16_SR);  // BF16: the chip's (layouts.hpp)
      for (auto& w : enumerate_layouts(sp)) all.push_back(w);
    }
  nlohmann::json doc;
  doc["sweep_id"] = sweep_id(o);
  doc["enumerated"] = all.size();
  doc["space"] = sweep_space(o);
  std::map<std::string, int> rejected;
  std::vector<Workload> todo;
  for (size_t i = 0; i < all.size(); ++i) {
    if (static_cast<int>(i % static_cast<size_t>(o.shard_count)) != o.shard_index - 1) continue;
    try {
      Scenario s = make_scenario(all[i], true);
      if (!s.fits) {
        ++rejected[rejection_reason(s.memory_error)];
        continue;
      }
      todo.push_back(all[i]);
    } catch (const ConfigError& e) {
      ++rejected[rejection_reason(e.what())];
    }
  }
  // Workload copies, batch lists and worker reports; removed on every way out (signals included).
  const ScratchDir scratch((std::filesystem::temp_directory_path() / fmt::format("trnsim-sweep-{}", getpid())).string());
  const std::filesystem::path dir = scratch.path();
  // Configurations run in worker processes, a batch per process (SystemC elaborates once
  // per process); a batch that crashes or times out is re-run one configuration per
  // process, so only the guilty configuration is recorded as failed.
  const std::string exe = o.worker_executable.empty() ? self_executable() : o.worker_executable;
  const size_t per_batch = std::clamp<size_t>(todo.size() / (static_cast<size_t>(std::max(1, o.workers)) * 4), 1, 64);
  std::vector<std::string> files;
  for (const auto& w : todo) {
    files.push_back((dir / w.name).string());
    write_file_atomically(files.back() + ".json", workload_to_json(w), Durability::RenameOnly);
  }
  auto common = [&](std::vector<std::string> argv) {
    argv.insert(argv.end(), {"--data-dir", data_dir()});
    if (!o.op_cache.empty()) argv.insert(argv.end(), {"--op-cache", o.op_cache});
    if (!o.space.hw_set.empty()) argv.insert(argv.end(), {"--hw-set", o.space.hw_set});
    return argv;
  };
  std::vector<Job> jobs;
  std::vector<std::pair<size_t, size_t>> ranges;
  for (size_t b = 0; b < todo.size(); b += per_batch) {
    const size_t e = std::min(todo.size(), b + per_batch);
    const std::string list = (dir / ("batch" + std::to_string(b) + ".txt")).string();
    std::string names;
    for (size_t i = b; i < e; ++i) names += files[i] + ".json\n";
    write_file_atomically(list, names, Durability::RenameOnly);
    Job j;
    j.argv = common({exe, "run-batch", list, "--outdir", dir.string(), "--heartbeat", list + ".beat"});
    j.stdout_file = list + ".out";
    j.stderr_file = list + ".err";
    j.heartbeat_file = list + ".beat";
    jobs.push_back(j);
    ranges.push_back({b, e});
  }
  auto progress = [&](size_t done, size_t total) {
    if (!o.progress) return;
    const int width = 40, fill = static_cast<int>(width * done / std::max<size_t>(total, 1));
    std::fprintf(stderr, "\r[%s%s] %zu/%zu batches", std::string(static_cast<size_t>(fill), '#').c_str(),
                 std::string(static_cast<size_t>(width - fill), '.').c_str(), done, total);
    if (done == total) std::fputc('\n', stderr);
  };
  // The worker touches its heartbeat before each configuration: the time-out is per configuration.
  auto batch_results = run_jobs(jobs, o.workers, o.timeout_s, progress);
  // Isolate: configurations of failed batches without an output, one process each.
  std::vector<size_t> retry;
  for (size_t b = 0; b < jobs.size(); ++b)
    if (batch_results[b].exit_code != 0)
      for (size_t i = ranges[b].first; i < ranges[b].second; ++i)
        if (!std::filesystem::exists(files[i] + ".report.json") && !std::filesystem::exists(files[i] + ".err"))
          retry.push_back(i);
  std::vector<Job> singles;
  for (size_t i : retry) {
    Job j;
    j.argv = common({exe, "run", files[i] + ".json", "--format", "json", "--no-scaling", "--no-split-advice", "--output", files[i] + ".report.json"});
    j.stdout_file = files[i] + ".stdout";
    j.stderr_file = files[i] + ".err";
    singles.push_back(j);
  }
  auto single_results = run_jobs(singles, o.workers, o.timeout_s, nullptr);
  std::map<size_t, JobResult> single_of;
  for (size_t k = 0; k < retry.size(); ++k) single_of[retry[k]] = single_results[k];
  nlohmann::json rows = nlohmann::json::array(), failed = nlohmann::json::array();
  for (size_t i = 0; i < todo.size(); ++i) {
    std::string error;
    int code = 0;
    if (std::filesystem::exists(files[i] + ".report.json") && (!single_of.count(i) || single_of[i].exit_code == 0)) {
      try {
        std::ifstream in(files[i] + ".report.json");
        rows.push_back(row_from_report(nlohmann::json::parse(in), o.train_tokens));
        continue;
      } catch (const std::exception& e) {
        error = std::string("unreadable report: ") + e.what();
        code = 1;
      }
    } else if (single_of.count(i)) {
      code = single_of[i].exit_code;
      error = single_of[i].error;
    } else {
      std::ifstream in(files[i] + ".err");
      std::getline(in, error);
      code = 1;
    }
    failed.push_back({{"id", todo[i].name}, {"exit_code", code}, {"error", error}});
  }
  const size_t simulated = todo.size();
  if (!o.op_cache.empty()) merge_op_caches(o.op_cache);
  doc["rejected"] = rejected;
  doc["failed"] = failed;
  doc["rows"] = rows;
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  doc["stats"] = {{"simulated", simulated},
                  {"worker_processes", jobs.size() + singles.size()},
                  {"wall_s", wall},
                  {"workers", o.workers},
                  {"configs_per_s", simulated == 0 ? 0.0 : static_cast<double>(simulated) / wall},
                  {"shard", fmt::format("{}/{}", o.shard_index, o.shard_count)},
                  {"train_tokens", o.train_tokens}};
  finalize_sweep(doc);
  return doc;
}

void finalize_sweep(nlohmann::json& doc) {
  auto& rows = doc["rows"];
  std::vector<nlohmann::json> v(rows.begin(), rows.end());
  std::sort(v.begin(), v.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
    const double ta = a["tokens_per_s"].get<double>(), tb = b["tokens_per_s"].get<double>();
    if (ta != tb) return ta > tb;
    return a["id"].get<std::string>() < b["id"].get<std::string>();
  });
  // Pareto front: no other row is both faster to train and cheaper.
  for (auto& r : v) {
    bool dominated = false;
    for (const auto& q : v)
      if (q["days_to_train"].get<double>() <= r["days_to_train"].get<double>() &&
          q["usd_to_train_on_demand"].get<double>() <= r["usd_to_train_on_demand"].get<double>() &&
          (q["days_to_train"] != r["days_to_train"] || q["usd_to_train_on_demand"] != r["usd_to_train_on_demand"])) {
        dominated = true;
        break;
      }
    r["pareto"] = !dominated;
  }
  rows = v;
  doc["best"] = v.empty() ? nlohmann::json() : v.front();
}

void check_shards(const std::vector<std::string>& files, const std::vector<nlohmann::json>& parts) {
  std::map<int, std::string> seen;
  int count = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    const auto& p = parts[i];
    int k = 0, n = 0;
    const bool shaped = p.is_object() && p.contains("sweep_id") && p["sweep_id"].is_string() && p.contains("rows") &&
                        p.contains("stats") && p["stats"].contains("shard") && p["stats"]["shard"].is_string() &&
                        std::sscanf(p["stats"]["shard"].get<std::string>().c_str(), "%d/%d", &k, &n) == 2;
    if (!shaped)
      throw ConfigError(fmt::format("{}: not a sweep shard (no sweep_id / stats.shard); give the JSON outputs of "
                                    "`trnsim sweep --shard K/N --out ...`", files[i]));
    if (p["sweep_id"] != parts[0]["sweep_id"])
      throw ConfigError(fmt::format("{}: shard of another sweep (sweep_id {} vs {} in {}); merge shards of one sweep only",
                                    files[i], p["sweep_id"].get<std::string>(), parts[0]["sweep_id"].get<std::string>(),
                                    files[0]));
    count = n;
    if (!seen.emplace(k, files[i]).second)
      throw ConfigError(fmt::format("{}: shard {}/{} given twice (also {}); give each shard once", files[i], k, n, seen[k]));
  }
  std::string missing;
  for (int k = 1; k <= count; ++k)
    if (!seen.count(k)) missing += (missing.empty() ? "" : ", ") + std::to_string(k);
  if (!missing.empty())
    throw ConfigError(fmt::format("merge: shard(s) {} of {} missing; run them (`trnsim sweep --shard K/{}`) and merge all",
                                  missing, count, count));
}

nlohmann::json merge_sweeps(const std::vector<nlohmann::json>& parts) {
  nlohmann::json doc;
  doc["rows"] = nlohmann::json::array();
  doc["failed"] = nlohmann::json::array();
  std::map<std::string, int> rejected;
  size_t enumerated = 0, simulated = 0;
  double wall = 0;
  for (const auto& p : parts) {
    for (const auto& r : p["rows"]) doc["rows"].push_back(r);
    for (const auto& f : p["failed"]) doc["failed"].push_back(f);
    for (auto it = p["rejected"].begin(); it != p["rejected"].end(); ++it) rejected[it.key()] += it.value().get<int>();
    enumerated = std::max(enumerated, p["enumerated"].get<size_t>());
    simulated += p["stats"]["simulated"].get<size_t>();
    wall += p["stats"]["wall_s"].get<double>();
  }
  doc["sweep_id"] = parts.empty() ? nlohmann::json() : parts.front()["sweep_id"];
  doc["space"] = parts.empty() || !parts.front().contains("space") ? nlohmann::json::object() : parts.front()["space"];
  doc["enumerated"] = enumerated;
  doc["rejected"] = rejected;
  doc["stats"] = {{"simulated", simulated}, {"wall_s_summed", wall}, {"merged_parts", parts.size()},
                  {"train_tokens", parts.empty() ? 1e12 : parts.front()["stats"]["train_tokens"].get<double>()}};
  finalize_sweep(doc);
  return doc;
}

// One line per configuration simulated: the rows (status "ok"), then the failures (status
// "failed", metrics empty, the one-line error in the last column).
std::string sweep_csv(const nlohmann::json& doc) {
  static const char* cols[] = {"id", "hw", "nodes", "tp", "pp", "dp", "micro_batch", "checkpointing", "zero", "fused",
                               "step_time_s", "sequences_per_s", "tokens_per_s", "mfu", "memory_per_core_gib",
                               "usd_per_million_tokens_on_demand", "usd_per_million_tokens_reserved", "days_to_train",
                               "usd_to_train_on_demand", "pareto"};
  auto quoted = [](std::string v) {
    std::string q = "\"";
    for (char c : v) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  std::string o;
  for (size_t i = 0; i < std::size(cols); ++i) o += std::string(i ? "," : "") + cols[i];
  o += ",status,error\n";
  for (const auto& r : doc["rows"]) {
    for (size_t i = 0; i < std::size(cols); ++i) {
      const auto& v = r[cols[i]];
      o += (i ? "," : "") + (v.is_string() ? v.get<std::string>() : v.dump());
    }
    o += ",ok,\n";
  }
  for (const auto& f : doc["failed"]) {
    o += f["id"].get<std::string>() + std::string(std::size(cols) - 1, ',');
    o += ",failed," + quoted(f["error"].get<std::string>()) + "\n";
  }
  return o;
}

std::string sweep_markdown(const nlohmann::json& doc, size_t max_rows) {
  std::string o = fmt::format(
      "{} layouts enumerated, {} simulated, {} failed; rejected before simulating:", doc["enumerated"].get<size_t>(),
      doc["rows"].size() + doc["failed"].size(), doc["failed"].size());
  for (auto it = doc["rejected"].begin(); it != doc["rejected"].end(); ++it)
    o += fmt::format(" {} x {};", it.value().get<int>(), it.key());
  o += fmt::format("\n\nTime and cost to train on {:.3g} tokens (on-demand prices). ★ = Pareto front of time vs cost.",
                   doc["stats"]["train_tokens"].get<double>());
  if (doc.contains("space") && !doc["space"].empty()) {
    const auto& s = doc["space"];
    o += " Every layout:";
    if (s.contains("precision")) o += fmt::format(" precision {};", s["precision"].get<std::string>());
    if (s.contains("stack")) o += fmt::format(" stack {} (stacks/{}.json);", s["stack"].get<std::string>(), s["stack"].get<std::string>());
    if (s.contains("lora_rank")) o += fmt::format(" LoRA rank {} (base frozen);", s["lora_rank"].get<int64_t>());
  }
  o += "\n\n";
  o += "| # | hw | nodes | TP | PP | DP | mb | recompute | ZeRO | fused | step (s) | tokens/s | MFU | GiB/core | $/M tokens | days | $ to train | |\n";
  o += "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  size_t i = 0;
  for (const auto& r : doc["rows"]) {
    if (++i > max_rows && !r["pareto"].get<bool>()) continue;
    o += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.3f} | {:.0f} | {:.1f}% | {:.1f} | {:.4f} | {:.1f} | {:.3g} | {} |\n", i,
                     r["hw"].get<std::string>(), r["nodes"].get<int64_t>(), r["tp"].get<int64_t>(), r["pp"].get<int64_t>(),
                     r["dp"].get<int64_t>(), r["micro_batch"].get<int64_t>(), r["checkpointing"].get<std::string>(),
                     r["zero"].get<int>(), r["fused"].get<bool>() ? "yes" : "no", r["step_time_s"].get<double>(),
                     r["tokens_per_s"].get<double>(), 100 * r["mfu"].get<double>(), r["memory_per_core_gib"].get<double>(),
                     r["usd_per_million_tokens_on_demand"].get<double>(), r["days_to_train"].get<double>(),
                     r["usd_to_train_on_demand"].get<double>(), r["pareto"].get<bool>() ? "★" : "");
  }
  if (doc.contains("top_order")) o += "\n" + top_order_sentence(doc["top_order"]);  // added by `trnsim sweep` (ranking.hpp)
  if (!doc["failed"].empty()) {
    o += fmt::format("\n## Failed configurations ({})\n\n| id | exit code | error |\n|---|---|---|\n", doc["failed"].size());
    for (const auto& f : doc["failed"])
      o += fmt::format("| {} | {} | {} |\n", f["id"].get<std::string>(), f["exit_code"].get<int>(),
                       f["error"].get<std::string>());
  }
  return o;
}

}  // namespace trnsim
