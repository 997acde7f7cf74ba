// The "test-passes" plugin's frontend and backends: a frontend for `.tst`
// files (textual IR under another extension, so frontend selection by
// extension can be tested) and backends that write the IR as text files.
#include <filesystem>

#include "absl/status/status.h"
#include "test_plugin.h"

namespace tessera::testing {
namespace {

class TextIrFrontend : public Frontend {
 public:
  absl::StatusOr<Module> Parse(std::string_view path, std::string_view text,
                               FrontendContext& ctx) override {
    absl::StatusOr<Module> module = ParseModule(text, path, ctx.diagnostics());
    if (module.ok() && ctx.options().GetBool("announce")) {
      ctx.diagnostics().Remark(std::string(path), {},
                               "parsed by test-frontend");
    }
    return module;
  }
};

// One file per module (or per function with `split = true`), headed by the
// launcher option, so tests can see CLI overrides arrive.
class TextBackend : public Backend {
 public:
  absl::StatusOr<std::vector<EmittedFile>> Emit(const Module& module,
                                                BackendContext& ctx) override {
    const std::string header =
        "# launcher: " + ctx.options().GetString("launcher") + "\n";
    std::vector<EmittedFile> files;
    if (ctx.options().GetBool("split")) {
      for (const Function& function : module.functions) {
        files.push_back(
            {function.name + ".txt", header + PrintFunction(function)});
      }
    } else {
      const std::string stem =
          std::filesystem::path(module.source_file).stem().string();
      files.push_back({(stem.empty() ? "module" : stem) + ".txt",
                       header + PrintModule(module)});
    }
    return files;
  }
};

}  // namespace

void RegisterTestFrontendAndBackends(PluginRegistrar& registrar) {
  FrontendInfo frontend;
  frontend.name = "test-frontend";
  frontend.description = "reads textual IR from .tst files";
  frontend.extensions = {".tst"};
  frontend.options = {{"announce",
                       OptionType::kBool,
                       false,
                       "emit a remark after parsing",
                       {}}};
  frontend.create = [] { return std::make_unique<TextIrFrontend>(); };
  registrar.AddFrontend(std::move(frontend));

  BackendInfo backend;
  backend.name = "test-backend";
  backend.description = "writes the IR as text";
  backend.options = {
      {"launcher",
       OptionType::kString,
       std::string("plain"),
       "written into each file's header",
       {"plain", "fancy"}},
      {"split", OptionType::kBool, false, "one file per function", {}},
  };
  backend.create = [] { return std::make_unique<TextBackend>(); };
  registrar.AddBackend(backend);

  BackendInfo ssa_backend = backend;
  ssa_backend.name = "test-ssa-backend";
  ssa_backend.description = "writes the IR as text; requires SSA";
  ssa_backend.required = {kSsaProperty};
  registrar.AddBackend(std::move(ssa_backend));
}

}  // namespace tessera::testing
