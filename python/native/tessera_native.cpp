// tessera._native: the compiler in-process for the Python runtime
// (python/tessera). One InProcessCompiler per process, plugins loaded once;
// every compile returns plain Python data (the runtime raises its own
// exceptions from the diagnostics), so no C++ exception crosses into Python
// and nothing of abseil is exposed.
#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include "in_process_compiler.h"
#include "tessera/plugin.h"

namespace nb = nanobind;

namespace tessera::native {
namespace {

nb::dict DiagnosticDict(const Diagnostic& diagnostic) {
  nb::dict out;
  out["severity"] = std::string(SeverityName(diagnostic.severity));
  out["file"] = diagnostic.file;
  out["line"] = diagnostic.loc.line;
  out["col"] = diagnostic.loc.col;
  out["message"] = diagnostic.message;
  nb::list notes;
  for (const Diagnostic& note : diagnostic.notes) {
    notes.append(DiagnosticDict(note));
  }
  out["notes"] = notes;
  return out;
}

nb::dict StageDict(const StageEstimate& stage) {
  nb::dict out;
  out["name"] = stage.name;
  out["kind"] = stage.kind;
  out["steps"] = stage.steps;
  out["runs"] = stage.runs;
  out["bytes"] = stage.bytes;
  out["flops"] = stage.flops;
  out["time_s"] = stage.time_s;
  out["bound"] = stage.bound;
  out["roofline_fraction"] = stage.roofline_fraction;
  return out;
}

nb::dict EstimateDict(const KernelEstimate& estimate) {
  nb::dict out;
  out["kernel"] = estimate.kernel;
  out["target"] = estimate.target;
  out["target_description"] = estimate.target_description;
  out["launcher"] = estimate.launcher;
  out["time_s"] = estimate.time_s;
  out["flops"] = estimate.flops;
  out["transcendentals"] = estimate.transcendentals;
  out["bytes_accessed"] = estimate.bytes_accessed;
  out["vmem_peak_bytes"] = estimate.vmem_peak_bytes;
  out["vmem_limit_bytes"] = estimate.vmem_limit_bytes;
  out["vmem_capacity_bytes"] = estimate.vmem_capacity_bytes;
  nb::list stages;
  for (const StageEstimate& stage : estimate.stages) {
    stages.append(StageDict(stage));
  }
  out["stages"] = stages;
  out["notes"] = estimate.notes;
  return out;
}

// What every entry point is given: the source, the pipeline and the facts
// of the call.
cli::CompileRequest Request(
    std::string source_path, std::string source_text, std::string config_path,
    std::vector<std::pair<std::string, std::string>> options,
    std::string kernel, std::map<std::string, std::string> args) {
  cli::CompileRequest request;
  request.source_path = std::move(source_path);
  request.source_text = std::move(source_text);
  request.config_path = std::move(config_path);
  request.backend_options = std::move(options);
  request.kernel = std::move(kernel);
  request.args = std::move(args);
  return request;
}

nb::dict Compile(cli::InProcessCompiler& compiler, std::string source_path,
                 std::string source_text, std::string config_path,
                 std::vector<std::pair<std::string, std::string>> options,
                 std::string kernel, std::map<std::string, std::string> args,
                 std::vector<int64_t> block_sizes, bool emit_code,
                 bool estimate) {
  cli::CompileRequest request = Request(
      std::move(source_path), std::move(source_text), std::move(config_path),
      std::move(options), std::move(kernel), std::move(args));
  request.block_sizes = std::move(block_sizes);
  request.emit_code = emit_code;
  request.estimate = estimate;
  cli::CompileResult result;
  {
    // The compile touches no Python object: other threads may run.
    nb::gil_scoped_release release;
    result = compiler.Compile(request);
  }
  nb::dict out;
  switch (result.outcome) {
    case cli::CompileOutcome::kOk:
      out["outcome"] = "ok";
      break;
    case cli::CompileOutcome::kUserError:
      out["outcome"] = "user_error";
      break;
    case cli::CompileOutcome::kInternalError:
      out["outcome"] = "internal_error";
      break;
  }
  out["message"] = result.message;
  nb::list diagnostics;
  for (const Diagnostic& diagnostic : result.diagnostics) {
    diagnostics.append(DiagnosticDict(diagnostic));
  }
  out["diagnostics"] = diagnostics;
  out["rendered"] = result.rendered_diagnostics;
  out["code"] = result.code;
  out["module_name"] = result.module_name;
  nb::list estimates;
  for (const KernelEstimate& kernel_estimate : result.estimates) {
    estimates.append(EstimateDict(kernel_estimate));
  }
  out["estimates"] = estimates;
  out["backend"] = result.backend;
  out["backend_options"] = result.backend_options;
  return out;
}

nb::dict ChooseBlocks(cli::InProcessCompiler& compiler, std::string source_path,
                      std::string source_text, std::string config_path,
                      std::vector<std::pair<std::string, std::string>> options,
                      std::string kernel,
                      std::map<std::string, std::string> args,
                      bool search_launchers, int64_t max_estimates) {
  const cli::CompileRequest request = Request(
      std::move(source_path), std::move(source_text), std::move(config_path),
      std::move(options), std::move(kernel), std::move(args));
  cli::BlockChoice choice;
  {
    nb::gil_scoped_release release;
    choice = compiler.ChooseBlocks(request, search_launchers, max_estimates);
  }
  nb::dict out;
  out["found"] = choice.found;
  out["why"] = choice.why;
  out["block_sizes"] = choice.block_sizes;
  out["launcher"] = choice.launcher;
  out["time_s"] = choice.time_s;
  out["own_time_s"] = choice.own_time_s;
  out["evaluated"] = choice.evaluated;
  return out;
}

}  // namespace
}  // namespace tessera::native

NB_MODULE(_native, m) {
  using tessera::cli::InProcessCompiler;
  m.doc() = "The Tessera compiler, in-process (used by tessera's runtime).";
  m.attr("version") = TESSERA_VERSION;
  m.attr("plugin_abi_version") = TESSERA_PLUGIN_ABI_VERSION;
  nb::class_<InProcessCompiler>(m, "Compiler")
      .def(nb::init<std::vector<std::string>>(), nb::arg("plugin_paths"))
      .def("compile", &tessera::native::Compile, nb::arg("source_path"),
           nb::arg("source_text"), nb::arg("config_path"),
           nb::arg("backend_options"), nb::arg("kernel"), nb::arg("args"),
           nb::arg("block_sizes"), nb::arg("emit_code") = true,
           nb::arg("estimate") = false)
      .def("choose_blocks", &tessera::native::ChooseBlocks,
           nb::arg("source_path"), nb::arg("source_text"),
           nb::arg("config_path"), nb::arg("backend_options"),
           nb::arg("kernel"), nb::arg("args"), nb::arg("search_launchers"),
           nb::arg("max_estimates"))
      .def("plugin_versions", &InProcessCompiler::PluginVersions)
      .def_prop_ro("load_errors", &InProcessCompiler::load_errors);
}
