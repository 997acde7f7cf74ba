#include "scaling_sources.h"

#include "fmt/format.h"

namespace tessera::bench {
namespace {

constexpr const char* kHeader =
    "import torch\nimport helion\nimport helion.language as hl\n\n";

}  // namespace

std::string KernelsSource(int n) {
  std::string text = kHeader;
  for (int i = 0; i < n; ++i) {
    text += fmt::format(
        "\n@helion.kernel\n"
        "def add_{0}(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:\n"
        "    out = torch.empty_like(x)\n"
        "    for tile in hl.tile(out.size()):\n"
        "        out[tile] = x[tile] + y[tile]\n"
        "    return out\n",
        i);
  }
  return text;
}

std::string ParametersSource(int n) {
  std::string params;
  for (int i = 0; i < n; ++i) {
    params += fmt::format("{}x{}: torch.Tensor", i ? ", " : "", i);
  }
  return fmt::format(
      "{}\n@helion.kernel\ndef wide({}) -> torch.Tensor:\n"
      "    out = torch.empty_like(x0)\n"
      "    for tile in hl.tile(out.size()):\n"
      "        out[tile] = x0[tile] + x1[tile]\n"
      "    return out\n",
      kHeader, params);
}

std::string StatementsSource(int n) {
  std::string body = "        v0 = x[tile]\n";
  for (int i = 1; i < n; ++i) {
    body += fmt::format("        v{} = v{} * 1.5 + 0.5\n", i, i - 1);
  }
  return fmt::format(
      "{}\n@helion.kernel\n"
      "def chain(x: torch.Tensor) -> torch.Tensor:\n"
      "    out = torch.empty_like(x)\n"
      "    for tile in hl.tile(out.size()):\n"
      "{}"
      "        out[tile] = v{}\n"
      "    return out\n",
      kHeader, body, n - 1);
}

}  // namespace tessera::bench
