// The steps of a compile that every command and the runtime share: the
// frontend (or the .tir parser) and the backend's code or estimates, with
// failures mapped to the driver's conventions.
#include <cerrno>
#include <cstring>
#include <exception>
#include <fstream>

#include "compile_steps.h"
#include "fmt/format.h"
#include "tessera/ir/text.h"

namespace tessera::cli {
namespace {

// Maps a plugin call's failure to the driver's convention: diagnostics
// reported -> user error; none -> internal error.
absl::Status CheckPluginStatus(const absl::Status& status,
                               std::string_view what, size_t errors_before,
                               const DiagnosticEngine& diagnostics) {
  if (status.ok() && diagnostics.error_count() == errors_before) {
    return absl::OkStatus();
  }
  if (diagnostics.error_count() != errors_before) {
    return status.ok() ? absl::InvalidArgumentError("errors reported") : status;
  }
  return absl::InternalError(fmt::format("{} failed without a diagnostic: {}",
                                         what, status.ToString()));
}

}  // namespace

absl::Status WriteOutputFile(const std::string& path,
                             const std::string& contents,
                             DiagnosticEngine& diagnostics) {
  errno = 0;
  std::ofstream stream(path, std::ios::binary);
  stream << contents;
  stream.close();
  if (!stream) {
    // The stream keeps no reason; errno holds the one of the call that
    // failed (open, write or close).
    const int error = errno;
    diagnostics.Error(
        "", {},
        fmt::format("cannot write '{}': {}", path,
                    error != 0 ? std::strerror(error) : "write failed"));
    return absl::InvalidArgumentError("cannot write output");
  }
  return absl::OkStatus();
}

void AllowInexactBlockSizes(ResolvedPipeline& pipeline) {
  if (pipeline.frontend == nullptr) return;
  for (const OptionSpec& spec : pipeline.frontend->options) {
    if (spec.name == "exact_block_sizes" && spec.type == OptionType::kBool) {
      pipeline.frontend_options.Set(spec.name, OptionValue(false));
    }
  }
}

absl::StatusOr<Module> ParseInput(const std::string& input,
                                  const ResolvedPipeline& pipeline,
                                  const std::string& text, bool is_tir,
                                  DiagnosticEngine& diagnostics) {
  const size_t errors_before = diagnostics.error_count();
  if (is_tir) {
    absl::StatusOr<Module> module = ParseModule(text, input, diagnostics);
    absl::Status status = CheckPluginStatus(module.status(), "the .tir parser",
                                            errors_before, diagnostics);
    if (!status.ok()) return status;
    return module;
  }
  const FrontendInfo& info = *pipeline.frontend;
  std::unique_ptr<Frontend> frontend = info.create();
  if (frontend == nullptr) {
    return absl::InternalError(
        fmt::format("the factory of frontend '{}' returned null", info.name));
  }
  FrontendContext context(diagnostics, pipeline.frontend_options,
                          pipeline.info);
  absl::StatusOr<Module> module = absl::UnknownError("not run");
  try {
    module = frontend->Parse(input, text, context);
  } catch (const std::exception& exception) {
    return absl::InternalError(fmt::format(
        "frontend '{}' threw an exception: {}", info.name, exception.what()));
  } catch (...) {
    return absl::InternalError(
        fmt::format("frontend '{}' threw an exception", info.name));
  }
  absl::Status status = CheckPluginStatus(
      module.status(), fmt::format("frontend '{}'", info.name), errors_before,
      diagnostics);
  if (!status.ok()) return status;
  return module;
}

namespace {

// Creates the pipeline's backend and runs `call` on it (Emit or Estimate),
// mapping exceptions and undiagnosed failures to internal errors.
template <typename Result, typename Call>
absl::StatusOr<Result> CallBackend(const Module& module,
                                   const ResolvedPipeline& pipeline,
                                   DiagnosticEngine& diagnostics, Call call) {
  const BackendInfo& info = *pipeline.backend;
  const PropertySet missing =
      pipeline.backend_required.Minus(module.properties);
  if (!missing.empty()) {
    diagnostics.Error(
        "", {},
        fmt::format(
            "backend '{}' requires '{}', which the module does not "
            "have after the passes (it has: {}); add the passes that "
            "produce it",
            info.name, missing.ToString(),
            module.properties.empty() ? "none" : module.properties.ToString()));
    return absl::FailedPreconditionError("missing backend properties");
  }
  std::unique_ptr<Backend> backend = info.create();
  if (backend == nullptr) {
    return absl::InternalError(
        fmt::format("the factory of backend '{}' returned null", info.name));
  }
  BackendContext context(diagnostics, pipeline.info.backend_options,
                         pipeline.info);
  const size_t errors_before = diagnostics.error_count();
  absl::StatusOr<Result> result = absl::UnknownError("not run");
  try {
    result = call(*backend, context);
  } catch (const std::exception& exception) {
    return absl::InternalError(fmt::format(
        "backend '{}' threw an exception: {}", info.name, exception.what()));
  } catch (...) {
    return absl::InternalError(
        fmt::format("backend '{}' threw an exception", info.name));
  }
  if (absl::IsUnimplemented(result.status()) &&
      diagnostics.error_count() == errors_before) {
    diagnostics.Error(
        "", {},
        fmt::format("backend '{}' has no performance model: {}", info.name,
                    std::string(result.status().message())));
    return result.status();
  }
  absl::Status status =
      CheckPluginStatus(result.status(), fmt::format("backend '{}'", info.name),
                        errors_before, diagnostics);
  if (!status.ok()) return status;
  return result;
}

}  // namespace

absl::StatusOr<std::vector<EmittedFile>> RunBackend(
    const Module& module, const ResolvedPipeline& pipeline,
    DiagnosticEngine& diagnostics) {
  return CallBackend<std::vector<EmittedFile>>(
      module, pipeline, diagnostics,
      [&](Backend& backend, BackendContext& context) {
        return backend.Emit(module, context);
      });
}

absl::StatusOr<std::vector<KernelEstimate>> RunEstimate(
    const Module& module, const ResolvedPipeline& pipeline,
    DiagnosticEngine& diagnostics) {
  return CallBackend<std::vector<KernelEstimate>>(
      module, pipeline, diagnostics,
      [&](Backend& backend, BackendContext& context) {
        return backend.Estimate(module, context);
      });
}

}  // namespace tessera::cli
