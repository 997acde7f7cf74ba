// The examples in docs/ir.md are real: they parse, and printing them gives
// the same text back (comments aside).
#include <fstream>
#include <sstream>

#include "gtest/gtest.h"
#include "tessera/ir/text.h"

namespace tessera {
namespace {

std::vector<std::string> ModuleBlocksOf(const std::string& markdown) {
  std::vector<std::string> blocks;
  std::istringstream in(markdown);
  std::string line;
  bool inside = false;
  std::string block;
  while (std::getline(in, line)) {
    if (line.rfind("```", 0) == 0) {
      if (inside && block.find("module \"") != std::string::npos &&
          block.find("func ") != std::string::npos) {
        blocks.push_back(block);
      }
      inside = !inside;
      block.clear();
      continue;
    }
    if (inside && line.rfind("#", 0) != 0) block += line + "\n";
  }
  return blocks;
}

TEST(Docs, ExamplesParseAndPrintBack) {
  std::ifstream file(std::string(TESSERA_SOURCE_DIR) + "/docs/ir.md");
  ASSERT_TRUE(file.good());
  std::stringstream contents;
  contents << file.rdbuf();
  std::vector<std::string> blocks = ModuleBlocksOf(contents.str());
  ASSERT_EQ(blocks.size(), 2u);
  for (const std::string& block : blocks) {
    DiagnosticEngine diagnostics;
    auto module = ParseModule(block, "ir.md", diagnostics);
    ASSERT_TRUE(module.ok()) << diagnostics.RenderAll() << block;
    EXPECT_EQ(PrintModule(*module), block);
  }
}

}  // namespace
}  // namespace tessera
